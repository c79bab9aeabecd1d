package dev.needle.sidecar;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Reduces a key's two 64-bit halves (lo, hi) to the two hashes h1, h2 that drive the probes.
 *
 * <pre>
 * mix(z) = splitmix64's finalizer
 * h1 = mix(lo ^ mix(hi))
 * h2 = mix(hi ^ mix(lo) ^ 0x9e3779b97f4a7c15) | 1
 * </pre>
 *
 * <p>A BATCH_ATTR_IDX key, (pair, record batch b), is the pair's (lo, hi) with lo replaced by
 * {@link #batchLo} = {@code lo ^ mix(b + 0x632be59bd9b4e019)}, then the same h1 and h2.
 */
public final class KeyMix {

    /* Why mix at all: probe positions read only the low bits of h1 and h2. Structured trace ids
     * (X-Ray's epoch seconds in bytes 0..3, 64-bit ids zero-padded to 16 bytes, counters in
     * bytes 4..7) keep those bits constant, and unmixed they would all land on the same few bits.
     * Each of h1 and h2 depends on all 128 bits; h2 is odd so that the k probes are distinct
     * modulo the power-of-two filter size. A batch index enters through a splitmix64 output XORed
     * into lo, so the keys of one pair in two batches differ in about half of lo's bits, and h1, h2
     * of each are as unrelated as those of two different pairs: a pair in batch 3 makes batch 4 no
     * likelier to answer "maybe" (FalsePositiveRateTest measures it). */

    /** The golden-ratio constant that separates h2 from h1. */
    public static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    /** Added to a batch index before it is mixed, so that batch 0 changes its keys too ({@code mix(0) = 0}). */
    public static final long BATCH_GAMMA = 0x632be59bd9b4e019L;

    private static final VarHandle LE_LONG =
            MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private KeyMix() {
    }

    /** The splitmix64 finalizer: a bijection on 64 bits in which every input bit affects every output bit. */
    public static long mix(long z) {
        z ^= z >>> 30;
        z *= 0xbf58476d1ce4e5b9L;
        z ^= z >>> 27;
        z *= 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    /** The first probe hash of key (lo, hi). */
    public static long h1(long lo, long hi) {
        return mix(lo ^ mix(hi));
    }

    /** The probe step of key (lo, hi); always odd. */
    public static long h2(long lo, long hi) {
        return mix(hi ^ mix(lo) ^ GOLDEN_GAMMA) | 1L;
    }

    /**
     * lo of the BATCH_ATTR_IDX key of an attribute pair (lo, hi) in record batch {@code batch}
     * (0-based, in data.arrow's order): {@code lo ^ mix(batch + BATCH_GAMMA)}; hi is the pair's.
     */
    public static long batchLo(long lo, int batch) {
        if (batch < 0) {
            throw new IllegalArgumentException("batch (" + batch + ") must be >= 0");
        }
        return lo ^ mix(batch + BATCH_GAMMA);
    }

    /** lo of a 16-byte trace id starting at {@code offset}: the little-endian u64 of bytes 0..8. */
    public static long traceIdLo(byte[] id, int offset) {
        return (long) LE_LONG.get(id, offset);
    }

    /** hi of a 16-byte trace id starting at {@code offset}: the little-endian u64 of bytes 8..16. */
    public static long traceIdHi(byte[] id, int offset) {
        return (long) LE_LONG.get(id, offset + 8);
    }
}
