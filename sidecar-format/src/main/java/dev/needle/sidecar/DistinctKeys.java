package dev.needle.sidecar;

/**
 * The distinct 128-bit keys (lo, hi) of a sidecar being built: an open-addressing hash set whose
 * memory grows with distinct keys, not with rows, and stops at {@link BloomSidecar#MAX_KEYS}.
 */
final class DistinctKeys {

    private static final int INITIAL_CAPACITY = 1 << 10;

    private long[] los = new long[INITIAL_CAPACITY];
    private long[] his = new long[INITIAL_CAPACITY];
    private int size;
    /** (0, 0) marks an empty slot, so that key is remembered apart. */
    private boolean hasZero;
    private boolean overflowed;
    private boolean hasLast;
    private long lastLo;
    private long lastHi;

    /** Adds (lo, hi); a repeat of the previous key costs one comparison. */
    void add(long lo, long hi) {
        if (hasLast && lo == lastLo && hi == lastHi) {
            return;
        }
        hasLast = true;
        lastLo = lo;
        lastHi = hi;
        if (overflowed) {
            return;
        }
        if ((lo | hi) == 0) {
            if (!hasZero) {
                hasZero = true;
                grew();
            }
            return;
        }
        int mask = los.length - 1;
        int slot = (int) KeyMix.mix(lo ^ Long.rotateLeft(hi, 32)) & mask;
        while (los[slot] != 0 || his[slot] != 0) {
            if (los[slot] == lo && his[slot] == hi) {
                return;
            }
            slot = (slot + 1) & mask;
        }
        los[slot] = lo;
        his[slot] = hi;
        grew();
    }

    private void grew() {
        size++;
        if (size > BloomSidecar.MAX_KEYS) {
            overflowed = true;
            los = null;
            his = null;
        } else if (size * 2 > los.length) {
            rehash(los.length * 2);
        }
    }

    private void rehash(int capacity) {
        long[] oldLos = los;
        long[] oldHis = his;
        los = new long[capacity];
        his = new long[capacity];
        int mask = capacity - 1;
        for (int i = 0; i < oldLos.length; i++) {
            long lo = oldLos[i];
            long hi = oldHis[i];
            if ((lo | hi) != 0) {
                int slot = (int) KeyMix.mix(lo ^ Long.rotateLeft(hi, 32)) & mask;
                while (los[slot] != 0 || his[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                los[slot] = lo;
                his[slot] = hi;
            }
        }
    }

    /** The number of distinct keys added, or more than MAX_KEYS once overflowed. */
    int size() {
        return size;
    }

    /** Whether more than MAX_KEYS distinct keys were added, so that no file is written. */
    boolean overflowed() {
        return overflowed;
    }

    /** A filter sized for these keys with every key put, or null when empty or overflowed. */
    BloomBits toBits() {
        if (size == 0 || overflowed) {
            return null;
        }
        BloomBits bits = BloomBits.sizedFor(size);
        if (hasZero) {
            bits.put(KeyMix.h1(0, 0), KeyMix.h2(0, 0));
        }
        for (int i = 0; i < los.length; i++) {
            long lo = los[i];
            long hi = his[i];
            if ((lo | hi) != 0) {
                bits.put(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi));
            }
        }
        return bits;
    }
}
