package dev.needle.sidecar;

/**
 * The distinct keys of a sidecar being built, held as their probe hashes (h1, h2): an
 * open-addressing hash set whose memory grows with distinct keys, not with rows, and that stops
 * at {@link BloomSidecar#MAX_KEYS}.
 */
final class DistinctKeys {

    /* Why (h1, h2) and not (lo, hi): the bits a key sets depend only on (h1, h2), so two keys with
     * equal hashes are the same key to the filter; the hashes are computed once, on insert, and h1
     * mixes all 128 bits, so structured ids spread over the table. h2 is always odd, so h2 == 0
     * marks an empty slot. */

    private static final int MIN_CAPACITY = 1 << 10;

    /** Slot i holds h1 at 2i and h2 at 2i + 1. */
    private long[] table;
    private int size;
    private boolean overflowed;
    private boolean hasLast;
    private long lastLo;
    private long lastHi;

    /** A set sized so that {@code expectedKeys} distinct keys fit without rehashing. */
    DistinctKeys(int expectedKeys) {
        int capacity = MIN_CAPACITY;
        while (capacity < 2L * Math.min(expectedKeys, BloomSidecar.MAX_KEYS)) {
            capacity <<= 1;
        }
        table = new long[2 * capacity];
    }

    /** Adds key (lo, hi); a repeat of the previous key costs one comparison. */
    void add(long lo, long hi) {
        if (hasLast && lo == lastLo && hi == lastHi) {
            return;
        }
        hasLast = true;
        lastLo = lo;
        lastHi = hi;
        if (!overflowed) {
            insert(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi));
        }
    }

    private void insert(long h1, long h2) {
        int mask = table.length / 2 - 1;
        int slot = (int) h1 & mask;
        while (table[2 * slot + 1] != 0) {
            if (table[2 * slot] == h1 && table[2 * slot + 1] == h2) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        table[2 * slot] = h1;
        table[2 * slot + 1] = h2;
        size++;
        if (size > BloomSidecar.MAX_KEYS) {
            overflowed = true;
            table = null;
        } else if (size * 4L > table.length) {
            rehash();
        }
    }

    private void rehash() {
        long[] old = table;
        table = new long[old.length * 2];
        size = 0;
        for (int i = 0; i < old.length; i += 2) {
            if (old[i + 1] != 0) {
                insert(old[i], old[i + 1]);
            }
        }
    }

    /** The number of distinct keys added, or more than MAX_KEYS once overflowed. */
    int size() {
        return size;
    }

    /** A filter sized for these keys with every key put, or null when empty or overflowed. */
    BloomBits toBits() {
        return toBits(BloomSidecar.BITS_PER_KEY);
    }

    /** A filter of {@code bitsPerKey} bits per key (see {@link BloomBits#sizedFor(int, int)}) with every key put, or null. */
    BloomBits toBits(int bitsPerKey) {
        if (size == 0 || overflowed) {
            return null;
        }
        BloomBits bits = BloomBits.sizedFor(size, bitsPerKey);
        for (int i = 0; i < table.length; i += 2) {
            if (table[i + 1] != 0) {
                bits.put(table[i], table[i + 1]);
            }
        }
        return bits;
    }
}
