package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The mixing pinned by numbers computed outside this code base (Python, explicit 64-bit masking),
 * and the two properties the double hashing relies on: h2 is odd, so the 7 probes are distinct.
 */
class KeyMixTest {

    @Test
    void mix_knownValues() {
        assertEquals(0L, KeyMix.mix(0L));
        assertEquals(0x5692161d100b05e5L, KeyMix.mix(1L));
        assertEquals(0xdbd238973a2b148aL, KeyMix.mix(2L));
        assertEquals(0xb2c058e4ebb5112cL, KeyMix.mix(0x0123456789abcdefL));
        assertEquals(0xb4d055fcf2cbbd7bL, KeyMix.mix(-1L));
        assertEquals(0x25c26ea579cea98aL, KeyMix.mix(Long.MIN_VALUE));
        // SplitMix64 seeded with 0 returns mix(0x9e3779b97f4a7c15) first: its well-known first output.
        assertEquals(0xe220a8397b1dcdafL, KeyMix.mix(KeyMix.GOLDEN_GAMMA));
    }

    @Test
    void h1h2_knownValues() {
        assertEquals(0L, KeyMix.h1(0, 0));
        assertEquals(0xe220a8397b1dcdafL, KeyMix.h2(0, 0));
        assertEquals(0x5692161d100b05e5L, KeyMix.h1(1, 0));
        assertEquals(0x07776f161bd8ea27L, KeyMix.h2(1, 0));

        // The trace id 00 01 02 .. 0f.
        byte[] id = new byte[16];
        for (int i = 0; i < 16; i++) {
            id[i] = (byte) i;
        }
        assertEquals(0x0706050403020100L, KeyMix.traceIdLo(id, 0));
        assertEquals(0x0f0e0d0c0b0a0908L, KeyMix.traceIdHi(id, 0));
        long h1 = KeyMix.h1(0x0706050403020100L, 0x0f0e0d0c0b0a0908L);
        long h2 = KeyMix.h2(0x0706050403020100L, 0x0f0e0d0c0b0a0908L);
        assertEquals(0xb0e0d09b497e900eL, h1);
        assertEquals(0xf2a271d75310a6fdL, h2);
        int[] probes = {14, 779, 520, 261, 2, 767, 508}; // in 1024 bits
        for (int i = 0; i < probes.length; i++) {
            assertEquals(probes[i], BloomBits.probe(h1, h2, i, 1024), "probe " + i);
        }
    }

    @Test
    void h2_alwaysOdd() {
        SplittableRandom rnd = new SplittableRandom(0xC0DE_0001L);
        long[] edges = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, KeyMix.GOLDEN_GAMMA};
        for (long lo : edges) {
            for (long hi : edges) {
                assertEquals(1L, KeyMix.h2(lo, hi) & 1, "h2(" + lo + ", " + hi + ")");
            }
        }
        int evenBeforeOr = 0;
        for (int i = 0; i < 1_000_000; i++) {
            long lo = rnd.nextLong();
            long hi = rnd.nextLong();
            long h2 = KeyMix.h2(lo, hi);
            if ((h2 & 1) == 0) {
                throw new AssertionError("h2 even for (" + lo + ", " + hi + ")");
            }
            if ((KeyMix.mix(hi ^ KeyMix.mix(lo) ^ KeyMix.GOLDEN_GAMMA) & 1) == 0) {
                evenBeforeOr++;
            }
        }
        assertTrue(evenBeforeOr > 400_000, "about half the mixed values are even before | 1: " + evenBeforeOr);
    }

    @Test
    void probe_sevenDistinctPositions() {
        SplittableRandom rnd = new SplittableRandom(0xC0DE_0002L);
        for (int bits = 64; bits <= 1 << 24; bits <<= 2) {
            for (int n = 0; n < 100_000; n++) {
                long lo = rnd.nextLong();
                long hi = n % 10 == 0 ? lo : rnd.nextLong(); // now and then halves that are equal
                long h1 = KeyMix.h1(lo, hi);
                long h2 = KeyMix.h2(lo, hi);
                int[] positions = new int[BloomSidecar.K];
                for (int i = 0; i < BloomSidecar.K; i++) {
                    positions[i] = BloomBits.probe(h1, h2, i, bits);
                    assertTrue(positions[i] >= 0 && positions[i] < bits);
                    for (int j = 0; j < i; j++) {
                        if (positions[j] == positions[i]) {
                            throw new AssertionError("probes " + j + " and " + i + " meet at " + positions[i]
                                    + " in " + bits + " bits for (" + lo + ", " + hi + ")");
                        }
                    }
                }
            }
        }
    }

    @Test
    void put_setsExactlyTheProbeBits() {
        SplittableRandom rnd = new SplittableRandom(0xC0DE_0003L);
        for (int n = 0; n < 2_000; n++) {
            int bits = 64 << rnd.nextInt(15);
            long lo = rnd.nextLong();
            long hi = rnd.nextLong();
            long h1 = KeyMix.h1(lo, hi);
            long h2 = KeyMix.h2(lo, hi);
            BloomBits filter = BloomBits.ofBits(bits, BloomSidecar.K);
            filter.put(h1, h2);
            assertEquals(BloomSidecar.K, filter.bitCount(), "7 distinct bits set");
            for (int i = 0; i < BloomSidecar.K; i++) {
                assertTrue(filter.isSet(BloomBits.probe(h1, h2, i, bits)));
            }
            assertTrue(filter.mayContain(h1, h2));
        }
    }
}
