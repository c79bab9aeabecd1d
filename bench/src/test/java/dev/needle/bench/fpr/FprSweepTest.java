package dev.needle.bench.fpr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.sidecar.BloomSidecar;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The default sweep (m = 2^20, 4,000,000 absent keys per point, k = 7) held to the theory.
 *
 * <p>Why ±15% cannot fail by chance: at b = 16, the lowest rate swept (7.0e-4), 4,000,000 probes
 * expect 2,800 false positives, so measured / theory has a binomial standard deviation of 1.9%, and
 * 15% is 7.9σ; the filter's own randomness (how many bits n keys happen to set) adds under 0.5%.
 * Each point checks its own σ, so a smaller sweep that would make the band too narrow fails loudly
 * instead of flaking.
 */
final class FprSweepTest {

    private static final double TOLERANCE = 0.15;
    private static final double SIGMAS = 5;

    private static List<FprPoint> points;

    @BeforeAll
    static void sweep() {
        points = FprSweep.defaults().run();
    }

    @Test
    void run_everyFamilyAndBitsPerKey_onceInOrder() {
        FprFamily[] families = FprFamily.values();
        int perFamily = FprSweep.MAX_BITS_PER_KEY - FprSweep.MIN_BITS_PER_KEY + 1;
        assertEquals(families.length * perFamily, points.size());
        for (int i = 0; i < points.size(); i++) {
            FprPoint p = points.get(i);
            assertEquals(families[i / perFamily], p.family());
            assertEquals(FprSweep.MIN_BITS_PER_KEY + i % perFamily, p.bitsPerKey());
            assertEquals(BloomSidecar.K, p.k());
            assertEquals(FprSweep.DEFAULT_BITS, p.bits());
            assertEquals(FprSweep.DEFAULT_BITS / p.bitsPerKey(), p.keys());
            assertEquals(FprSweep.DEFAULT_PROBES, p.probes());
        }
    }

    @Test
    void run_mixed_everyFamilyWithinFifteenPercentOfTheory() {
        for (FprPoint p : points) {
            assertTrue(TOLERANCE > SIGMAS * p.ratioStandardDeviation(),
                    () -> p + ": too few probes, ±" + TOLERANCE + " is only "
                            + TOLERANCE / p.ratioStandardDeviation() + " σ");
            assertTrue(Math.abs(p.mixedRatio() - 1) <= TOLERANCE,
                    () -> p.family().label() + " at b = " + p.bitsPerKey() + ": measured / theory = "
                            + p.mixedRatio());
        }
    }

    @Test
    void run_unmixed_structuredFamiliesFarAboveTheoryAtTenBitsPerKey() {
        for (FprFamily family : List.of(FprFamily.COUNTER, FprFamily.XRAY, FprFamily.SHORT64)) {
            FprPoint p = at(family, 10);
            assertTrue(p.unmixedRatio() > 3, () -> family.label() + " unmixed: " + p.unmixedRatio() + " × theory");
        }
        // Counter ids differ only in bits 32..63 of lo and hi is constant: unmixed, every id's probes
        // are the same 7 bits, so every absent id is a false positive.
        assertEquals(1.0, at(FprFamily.COUNTER, 10).unmixedRate());
    }

    /**
     * Random ids have no structure to hide, and an attribute key is already MurmurHash3's output (with
     * a batch's mixed constant XORed in, for BATCH_ATTR_IDX): mixing changes nothing for them.
     */
    @Test
    void run_unmixed_randomAndAttributeNearTheory() {
        for (FprPoint p : points) {
            if (p.family() == FprFamily.RANDOM || p.family() == FprFamily.ATTRIBUTE
                    || p.family() == FprFamily.BATCH_ATTRIBUTE) {
                assertTrue(Math.abs(p.unmixedRatio() - 1) <= TOLERANCE,
                        () -> p.family().label() + " unmixed at b = " + p.bitsPerKey() + ": " + p.unmixedRatio());
            }
        }
    }

    @Test
    void optimalK_isTheFormatsKAtTenBitsPerKeyOnly() {
        assertEquals(BloomSidecar.K, at(FprFamily.RANDOM, 10).optimalK());
        assertEquals(4, at(FprFamily.RANDOM, 6).optimalK());
        assertEquals(11, at(FprFamily.RANDOM, 16).optimalK());
        assertTrue(at(FprFamily.RANDOM, 16).theoryAtOptimalK() < at(FprFamily.RANDOM, 16).theory());
    }

    @Test
    void run_sameSeed_sameCounts() {
        FprSweep sweep = new FprSweep(1 << 14, 20_000, 42);
        for (FprFamily family : FprFamily.values()) {
            assertEquals(sweep.run(family), sweep.run(family), family.label());
        }
        assertNotEquals(sweep.run(FprFamily.RANDOM), new FprSweep(1 << 14, 20_000, 43).run(FprFamily.RANDOM));
    }

    @Test
    void constructor_badArguments_throw() {
        assertThrows(IllegalArgumentException.class, () -> new FprSweep(3 << 20, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new FprSweep(512, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new FprSweep(1 << 20, 0, 0));
    }

    private static FprPoint at(FprFamily family, int bitsPerKey) {
        return points.stream()
                .filter(p -> p.family() == family && p.bitsPerKey() == bitsPerKey)
                .findFirst().orElseThrow();
    }
}
