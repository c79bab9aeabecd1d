package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The distinct-key set counts and fills exactly what a plain {@code HashSet} of (h1, h2) does, so
 * that the sidecars it builds are the bytes the format's sizing rule gives.
 */
class DistinctKeysTest {

    /** A key's probe hashes, as the filter sees it. */
    private record Hashes(long h1, long h2) {
    }

    @ParameterizedTest(name = "{0} distinct keys, hint {1}")
    @CsvSource({
        "1, 0", "511, 0", "512, 0", "513, 0", "6553, 0", "6554, 0", "50000, 0", "50000, 50000", "50000, 1000",
        "130000, 300000",
    })
    void toBits_randomKeysWithRepeats_equalsTheFilterOfTheirSet(int distinct, int hint) {
        SplittableRandom random = new SplittableRandom(distinct * 31L + hint);
        long[] lo = new long[distinct];
        long[] hi = new long[distinct];
        for (int i = 0; i < distinct; i++) {
            lo[i] = random.nextLong();
            hi[i] = random.nextLong();
        }
        DistinctKeys keys = new DistinctKeys(hint);
        Set<Hashes> expected = new HashSet<>();
        // Every key once in order, then a third of them again at random, some twice in a row.
        for (int i = 0; i < distinct; i++) {
            keys.add(lo[i], hi[i]);
            expected.add(new Hashes(KeyMix.h1(lo[i], hi[i]), KeyMix.h2(lo[i], hi[i])));
        }
        for (int n = 0; n < distinct / 3; n++) {
            int i = random.nextInt(distinct);
            keys.add(lo[i], hi[i]);
            keys.add(lo[i], hi[i]);
        }
        assertEquals(expected.size(), keys.size());
        assertSameWords(filterOf(expected, BloomSidecar.BITS_PER_KEY), keys.toBits());
        assertSameWords(filterOf(expected, 14), keys.toBits(14));
    }

    /** Keys that share h1, so one table position and one fingerprint, are told apart by h2. */
    @Test
    void add_keysWithEqualH1_areDistinctByH2() {
        long h1 = 0x0123_4567_89ab_cdefL;
        SplittableRandom random = new SplittableRandom(5);
        DistinctKeys keys = new DistinctKeys(0);
        Set<Hashes> expected = new HashSet<>();
        long[] his = new long[2_000];
        for (int i = 0; i < his.length; i++) {
            his[i] = random.nextLong();
            long lo = unmix(h1) ^ KeyMix.mix(his[i]);
            assertEquals(h1, KeyMix.h1(lo, his[i]));
            keys.add(lo, his[i]);
            expected.add(new Hashes(h1, KeyMix.h2(lo, his[i])));
        }
        for (long hi : his) {
            keys.add(unmix(h1) ^ KeyMix.mix(hi), hi);
        }
        assertEquals(expected.size(), keys.size());
        assertSameWords(filterOf(expected, BloomSidecar.BITS_PER_KEY), keys.toBits());
    }

    @Test
    void toBits_pastMaxKeys_isNull_andAtMaxKeysIsAFilter() {
        DistinctKeys keys = new DistinctKeys(0);
        for (int i = 0; i < BloomSidecar.MAX_KEYS; i++) {
            keys.add(i, 0);
        }
        assertEquals(BloomSidecar.MAX_KEYS, keys.size());
        assertNotNull(keys.toBits());
        keys.add(0, 0);
        assertEquals(BloomSidecar.MAX_KEYS, keys.size(), "a repeat is not a new key");
        keys.add(-1, 0);
        assertEquals(BloomSidecar.MAX_KEYS + 1, keys.size());
        assertNull(keys.toBits());
        keys.add(-2, 0);
        assertNull(keys.toBits());
    }

    @Test
    void toBits_noKeys_isNull() {
        assertNull(new DistinctKeys(100).toBits());
    }

    private static BloomBits filterOf(Set<Hashes> keys, int bitsPerKey) {
        BloomBits bits = BloomBits.sizedFor(keys.size(), bitsPerKey);
        keys.forEach(k -> bits.put(k.h1(), k.h2()));
        return bits;
    }

    private static void assertSameWords(BloomBits expected, BloomBits actual) {
        long[] want = new long[expected.words()];
        long[] got = new long[actual.words()];
        for (int i = 0; i < want.length; i++) {
            want[i] = expected.word(i);
        }
        for (int i = 0; i < got.length; i++) {
            got[i] = actual.word(i);
        }
        assertArrayEquals(want, got);
    }

    /** The inverse of {@link KeyMix#mix}: each step of the splitmix64 finalizer undone, last first. */
    private static long unmix(long z) {
        z = unshift(z, 31);
        z *= inverse(0x94d049bb133111ebL);
        z = unshift(z, 27);
        z *= inverse(0xbf58476d1ce4e5b9L);
        return unshift(z, 30);
    }

    /** x such that x ^ (x >>> shift) == z. */
    private static long unshift(long z, int shift) {
        long x = z;
        for (int i = 0; i < Long.SIZE / shift + 1; i++) {
            x = z ^ (x >>> shift);
        }
        return x;
    }

    /** The inverse of an odd number modulo 2^64, by Newton's iteration (each step doubles the correct bits). */
    private static long inverse(long odd) {
        long x = odd;
        for (int i = 0; i < 5; i++) {
            x *= 2 - odd * x;
        }
        return x;
    }
}
