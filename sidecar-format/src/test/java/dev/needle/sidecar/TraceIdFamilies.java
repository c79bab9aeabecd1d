package dev.needle.sidecar;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The shapes real trace ids take, written byte by byte as their producers write them, for tests
 * that must hold the filter to structured data as well as to random data.
 *
 * <p>The halves are decoded here by hand from the rule in docs/DESIGN.md (lo = little-endian u64 of
 * bytes 0..8, hi = of bytes 8..16), not through {@link KeyMix}, so that the tests check the code
 * against the format rather than against itself.
 */
final class TraceIdFamilies {

    /** 2025-11-29T20:15:00Z: the start of the X-Ray ids' block. */
    static final long XRAY_EPOCH_SECONDS = 1_764_447_300L;
    /** A five-minute block: the X-Ray ids' seconds run over this many consecutive seconds. */
    static final int XRAY_SPAN_SECONDS = 300;
    /** The one value of every byte of a counter-derived id outside bytes 4..7. */
    static final byte COUNTER_FILL = 0x5A;

    private TraceIdFamilies() {
    }

    /** 16 random bytes. */
    static byte[] random(SplittableRandom rnd) {
        byte[] id = new byte[16];
        rnd.nextBytes(id);
        return id;
    }

    /** X-Ray: epoch seconds big-endian in bytes 0..3, then 12 random bytes. */
    static byte[] xray(long epochSeconds, SplittableRandom rnd) {
        byte[] id = random(rnd);
        id[0] = (byte) (epochSeconds >>> 24);
        id[1] = (byte) (epochSeconds >>> 16);
        id[2] = (byte) (epochSeconds >>> 8);
        id[3] = (byte) epochSeconds;
        return id;
    }

    /** A 64-bit id zero-padded to 16 bytes: bytes 0..7 zero (so lo = 0), bytes 8..15 random (hi). */
    static byte[] padded64(SplittableRandom rnd) {
        byte[] id = new byte[16];
        byte[] low = new byte[8];
        rnd.nextBytes(low);
        System.arraycopy(low, 0, id, 8, 8);
        return id;
    }

    /** A counter-derived id: the counter big-endian in bytes 4..7, every other byte {@link #COUNTER_FILL}. */
    static byte[] counter(int counter) {
        byte[] id = new byte[16];
        Arrays.fill(id, COUNTER_FILL);
        id[4] = (byte) (counter >>> 24);
        id[5] = (byte) (counter >>> 16);
        id[6] = (byte) (counter >>> 8);
        id[7] = (byte) counter;
        return id;
    }

    /** lo: the little-endian u64 of bytes 0..8. */
    static long lo(byte[] id) {
        return littleEndian(id, 0);
    }

    /** hi: the little-endian u64 of bytes 8..16. */
    static long hi(byte[] id) {
        return littleEndian(id, 8);
    }

    private static long littleEndian(byte[] b, int at) {
        long v = 0;
        for (int i = 7; i >= 0; i--) {
            v = (v << 8) | (b[at + i] & 0xFF);
        }
        return v;
    }

    /** A trace id as its two halves, for sets of ids. */
    record Key(long lo, long hi) {
        static Key of(byte[] id) {
            return new Key(TraceIdFamilies.lo(id), TraceIdFamilies.hi(id));
        }
    }
}
