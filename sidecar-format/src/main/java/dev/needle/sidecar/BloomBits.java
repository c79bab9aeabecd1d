package dev.needle.sidecar;

/**
 * A Bloom filter's bitset with power-of-two size, probed by double hashing:
 * probe i = 0..k-1 is bit {@code (h1 + i·h2) & mask}; bit b is bit (b &amp; 63) of word b &gt;&gt; 6.
 *
 * <p>Filled only while a sidecar is built; a decoded sidecar's bits are never changed.
 */
public final class BloomBits {

    /* Cheat sheet (n keys, m bits, k probes):
     *   false-positive rate  p = (1 - e^(-k·n/m))^k          at m = 10n, k = 7: p ≈ 0.82%
     *   expected fill        X/m = 1 - e^(-k·n/m)
     *   keys implied by fill n ≈ -(m/k) · ln(1 - X/m)         (Swamidass & Baldi, 2007)
     * m is rounded up to a power of two, so the real bits per key lie in [10, 20). */

    private final long[] words;
    private final long mask;
    private final int k;

    BloomBits(long[] words, int k) {
        this.words = words;
        this.mask = (long) words.length * 64 - 1;
        this.k = k;
    }

    /** An empty filter sized by the format's rule for n distinct keys, with k = 7. */
    public static BloomBits sizedFor(int distinctKeys) {
        return sizedFor(distinctKeys, BloomSidecar.BITS_PER_KEY);
    }

    /**
     * An empty filter of the smallest power of two ≥ {@code bitsPerKey} · n bits (at least 64, at
     * most the format's {@link BloomSidecar#MAX_WORDS} words), with k = 7.
     */
    public static BloomBits sizedFor(int distinctKeys, int bitsPerKey) {
        if (bitsPerKey < 1) {
            throw new IllegalArgumentException("bitsPerKey (" + bitsPerKey + ") must be positive");
        }
        int bits = (int) Math.min(bitsFor(distinctKeys, bitsPerKey), 64L * BloomSidecar.MAX_WORDS);
        return new BloomBits(new long[bits / 64], BloomSidecar.K);
    }

    /** An empty filter of {@code bits} bits (a power of two, at least 64) and k probes. */
    public static BloomBits ofBits(int bits, int k) {
        if (bits < 64 || Integer.bitCount(bits) != 1) {
            throw new IllegalArgumentException("bits (" + bits + ") must be a power of two >= 64");
        }
        if (k < 1 || k > BloomSidecar.MAX_K) {
            throw new IllegalArgumentException("k (" + k + ") must be in 1.." + BloomSidecar.MAX_K);
        }
        return new BloomBits(new long[bits / 64], k);
    }

    /** max(64, the smallest power of two ≥ bitsPerKey · n). */
    static int bitsFor(long distinctKeys, int bitsPerKey) {
        long wanted = Math.max(64L, distinctKeys * bitsPerKey);
        long bits = Long.highestOneBit(wanted);
        if (bits < wanted) {
            bits <<= 1;
        }
        if (bits > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many keys for one filter: " + distinctKeys);
        }
        return (int) bits;
    }

    /** The bit position of probe {@code i} for hashes (h1, h2) in a filter of {@code bits} bits. */
    public static int probe(long h1, long h2, int i, int bits) {
        return (int) ((h1 + i * h2) & (bits - 1L));
    }

    /** Sets the k probe bits of (h1, h2). */
    public void put(long h1, long h2) {
        long pos = h1;
        for (int i = 0; i < k; i++) {
            int bit = (int) (pos & mask);
            words[bit >>> 6] |= 1L << bit;
            pos += h2;
        }
    }

    /** False when some probe bit of (h1, h2) is clear: then the key was certainly never put. */
    public boolean mayContain(long h1, long h2) {
        // Tests every probe and ANDs the bits instead of stopping at the first clear one: for absent
        // keys in a half-full filter that early exit is a coin flip the branch predictor loses.
        long all = 1;
        long pos = h1;
        for (int i = 0; i < k; i++) {
            int bit = (int) (pos & mask);
            all &= words[bit >>> 6] >>> bit;
            pos += h2;
        }
        return (all & 1) != 0;
    }

    /** Whether bit {@code bit} is set. */
    public boolean isSet(int bit) {
        return (words[bit >>> 6] & (1L << bit)) != 0;
    }

    /** The number of probes per key. */
    public int k() {
        return k;
    }

    /** The number of bits, m. */
    public int bits() {
        return words.length * 64;
    }

    /** The number of 64-bit words. */
    public int words() {
        return words.length;
    }

    /** Word {@code i} of the bitset. */
    public long word(int i) {
        return words[i];
    }

    /** The number of set bits, X. */
    public long bitCount() {
        long count = 0;
        for (long w : words) {
            count += Long.bitCount(w);
        }
        return count;
    }

    /** X / m. */
    public double fillRatio() {
        return (double) bitCount() / bits();
    }

    /** The number of distinct keys the fill implies: -(m/k) · ln(1 - X/m); infinite when full. */
    public double impliedKeys() {
        return -((double) bits() / k) * Math.log1p(-fillRatio());
    }

    /** The false-positive rate this fill gives a random absent key: (X/m)^k. */
    public double falsePositiveRate() {
        return Math.pow(fillRatio(), k);
    }

    /** The theoretical false-positive rate of n keys in m bits with k probes: (1 - e^(-k·n/m))^k. */
    public static double theoreticalFalsePositiveRate(long n, long m, int k) {
        return Math.pow(-Math.expm1(-(double) k * n / m), k);
    }

    /** Heap bytes held by the bitset, for caches bounded by bytes. */
    public long sizeInBytes() {
        return 16L + 8L * words.length;
    }
}
