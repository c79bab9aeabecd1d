package dev.needle.sidecar;

import java.util.Arrays;

/**
 * The distinct keys of a sidecar being built, held as their probe hashes (h1, h2): a hash set
 * whose memory grows with distinct keys, not with rows, and that stops at
 * {@link BloomSidecar#MAX_KEYS}.
 */
final class DistinctKeys {

    /* Why (h1, h2) and not (lo, hi): the bits a key sets depend only on (h1, h2), so two keys with
     * equal hashes are the same key to the filter; the hashes are computed once, on insert, and h1
     * mixes all 128 bits, so structured ids spread over the table.
     *
     * Why two arrays: a block's keys outgrow the caches, and an open-addressing table of (h1, h2)
     * (16 bytes a slot, half empty) cost a cache miss on nearly every insert; it was the sidecar
     * thread's hottest method under ingest. Here the keys are appended to a dense array in the order
     * they first came (sequential writes), and the table that is probed at random holds one int a
     * slot: the key's index + 1 (0 = empty) in its low INDEX_BITS bits, and in the high bits a
     * fingerprint, h1's top bits, which no position uses. A new key, which is most of them, is looked up
     * in the int table alone (a quarter of the bytes); the dense array is read only when the
     * fingerprint matches, and growing rebuilds only the int table, from a sequential read. */

    /** Bits of a slot that hold index + 1, at most MAX_KEYS (2^20 - 1 = 1,048,575 is more). */
    private static final int INDEX_BITS = 20;
    private static final int INDEX_MASK = (1 << INDEX_BITS) - 1;
    /** h1 is shifted right by this to give a slot's fingerprint bits; positions use h1's low bits. */
    private static final int FINGERPRINT_SHIFT = Long.SIZE - (Integer.SIZE - INDEX_BITS);
    private static final int MIN_SLOTS = 1 << 10;

    /** Key i's h1 at 2i and h2 at 2i + 1, i = 0..size-1, in the order they first came. */
    private long[] keys;
    /** Open addressing by h1's low bits: 0, or fingerprint | (index + 1). At most half full. */
    private int[] slots;
    private int size;
    private boolean overflowed;
    private boolean hasLast;
    private long lastLo;
    private long lastHi;

    /** A set sized so that {@code expectedKeys} distinct keys fit without growing. */
    DistinctKeys(int expectedKeys) {
        int expected = Math.max(0, Math.min(expectedKeys, BloomSidecar.MAX_KEYS));
        int capacity = MIN_SLOTS;
        while (capacity < 2L * expected) {
            capacity <<= 1;
        }
        slots = new int[capacity];
        keys = new long[2 * Math.max(expected, MIN_SLOTS / 2)];
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
        int fingerprint = fingerprint(h1);
        int mask = slots.length - 1;
        int slot = (int) h1 & mask;
        for (int held = slots[slot]; held != 0; held = slots[slot]) {
            if ((held & ~INDEX_MASK) == fingerprint) {
                int at = 2 * ((held & INDEX_MASK) - 1);
                if (keys[at] == h1 && keys[at + 1] == h2) {
                    return;
                }
            }
            slot = (slot + 1) & mask;
        }
        if (size == BloomSidecar.MAX_KEYS) {
            // One key past the cut-off: size says so, and the arrays are not needed any more.
            overflowed = true;
            size++;
            keys = null;
            slots = null;
            return;
        }
        if (2 * size + 1 >= keys.length) {
            keys = Arrays.copyOf(keys, 2 * keys.length);
        }
        keys[2 * size] = h1;
        keys[2 * size + 1] = h2;
        size++;
        slots[slot] = fingerprint | size;
        if (size * 2L > slots.length) {
            grow();
        }
    }

    private static int fingerprint(long h1) {
        return (int) (h1 >>> FINGERPRINT_SHIFT) << INDEX_BITS;
    }

    /** Doubles the table, placing the keys again from the dense array: every key is distinct, so no compare. */
    private void grow() {
        slots = new int[slots.length * 2];
        int mask = slots.length - 1;
        for (int i = 0; i < size; i++) {
            long h1 = keys[2 * i];
            int slot = (int) h1 & mask;
            while (slots[slot] != 0) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = fingerprint(h1) | (i + 1);
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
        for (int i = 0; i < 2 * size; i += 2) {
            bits.put(keys[i], keys[i + 1]);
        }
        return bits;
    }
}
