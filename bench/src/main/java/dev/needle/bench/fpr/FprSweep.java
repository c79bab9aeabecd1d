package dev.needle.bench.fpr;

import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyMix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Measures the Bloom filter's false-positive rate for every {@link FprFamily} at bits per key
 * {@value #MIN_BITS_PER_KEY}…{@value #MAX_BITS_PER_KEY}, with the format's key mixing and without it,
 * against the theory (1 - e^(-k·n/m))^k. Deterministic for a seed; families run in parallel.
 *
 * <p>Each point fills two filters of m bits (2^20 by default, the size of a TRACE_IDX over 52,429 to
 * 104,857 traces) with the same n = m / b keys, one with the hashes the format uses
 * ({@link KeyMix#h1}, {@link KeyMix#h2}) and one with the raw halves (h1 = lo, h2 = hi | 1), and asks
 * both about the same absent keys. Bits per key is the sweep's knob, not the format's: the format
 * sizes m as the power of two ≥ 10·n, so its real bits per key lie in [10, 20); here n is chosen for
 * an exact b instead.
 *
 * <p><b>k is the format's {@link BloomSidecar#K} = 7 at every b</b>, not the optimum round(b·ln 2).
 * The sweep answers "what rate does a needle sidecar give at b bits per key", and every sidecar the
 * format writes has k = 7, so each point is a filter the format could hold; the theory uses the same
 * k, so the comparison stays exact. What fixing k costs is reported beside it
 * ({@link FprPoint#optimalK()}, {@link FprPoint#theoryAtOptimalK()}): nothing at b = 10, where the
 * optimum is 7, and at most a factor of about 1.5 at the ends of the range.
 */
public final class FprSweep {

    /* Keys, per family:
     *   present  trace (or counter) t = 0..n-1; trace t starts t·100 µs after START_EPOCH_SECOND, so
     *            10,000 traces share each second, as X-Ray ids in a busy block do.
     *   absent   j = 0..probes-1, all distinct: COUNTER takes the odd counter 2j+1 and ATTRIBUTE the odd
     *            user-<2j+1>, so they are certainly absent; the random families draw fresh random bytes
     *            (the chance that any of them equals a present key is below 10^-7 for the whole sweep).
     *            Absent id j is made in the second of present trace j mod n_min (n_min = m / 16), so that
     *            every absent X-Ray id falls in a second that every filter of the sweep holds traces of.
     * The present keys are made once for the largest n and each b takes a prefix; the absent keys are
     * made once and asked of every filter. */

    /** The smallest bits per key swept. */
    public static final int MIN_BITS_PER_KEY = 6;
    /** The largest bits per key swept. */
    public static final int MAX_BITS_PER_KEY = 16;
    /** m = 2^20 bits: a block's TRACE_IDX at the format's 10 bits per key rounds to this size. */
    public static final int DEFAULT_BITS = 1 << 20;
    /**
     * 4,000,000 absent keys: at b = 16, where the theory is lowest (7.0e-4), that expects 2,800 false
     * positives, so measured / theory has a binomial standard deviation of 1.9%.
     */
    public static final int DEFAULT_PROBES = 4_000_000;
    /** The seed of a default run. */
    public static final long DEFAULT_SEED = 0x6670_7273_7765_6570L;

    /** 2026-11-29T20:15:00Z, when the first present trace starts. */
    static final long START_EPOCH_SECOND = 1_795_983_300L;
    /** One trace every 100 µs. */
    static final int TRACES_PER_SECOND = 10_000;

    private final int bits;
    private final int probes;
    private final long seed;

    /**
     * A sweep over filters of {@code bits} bits (a power of two, at least 64 · {@value #MAX_BITS_PER_KEY})
     * asked about {@code probes} absent keys each.
     */
    public FprSweep(int bits, int probes, long seed) {
        if (bits < 64 * MAX_BITS_PER_KEY || Integer.bitCount(bits) != 1) {
            throw new IllegalArgumentException("bits (" + bits + ") must be a power of two >= " + 64 * MAX_BITS_PER_KEY);
        }
        if (probes < 1) {
            throw new IllegalArgumentException("probes (" + probes + ") must be positive");
        }
        this.bits = bits;
        this.probes = probes;
        this.seed = seed;
    }

    /** m = 2^20, 4,000,000 probes, the default seed. */
    public static FprSweep defaults() {
        return new FprSweep(DEFAULT_BITS, DEFAULT_PROBES, DEFAULT_SEED);
    }

    /** Every family at every bits per key: family by family in {@link FprFamily} order, b ascending within each. */
    public List<FprPoint> run() {
        // One family per task: a family's points depend only on its own seeded streams, so the
        // result is the same on any number of threads.
        return Arrays.stream(FprFamily.values()).parallel().flatMap(family -> run(family).stream()).toList();
    }

    /** One family at every bits per key, b ascending. */
    public List<FprPoint> run(FprFamily family) {
        SplittableRandom random = new SplittableRandom(KeyMix.mix(seed ^ family.label().hashCode()));
        int maxKeys = bits / MIN_BITS_PER_KEY;
        int minKeys = bits / MAX_BITS_PER_KEY;
        long[] presentLo = new long[maxKeys];
        long[] presentHi = new long[maxKeys];
        for (int t = 0; t < maxKeys; t++) {
            family.key(t, false, secondOf(t), random, presentLo, presentHi);
        }
        long[] absentLo = new long[probes];
        long[] absentHi = new long[probes];
        for (int j = 0; j < probes; j++) {
            family.key(j, true, secondOf(j % minKeys), random, absentLo, absentHi);
        }

        List<FprPoint> points = new ArrayList<>();
        for (int b = MIN_BITS_PER_KEY; b <= MAX_BITS_PER_KEY; b++) {
            int keys = bits / b;
            BloomBits mixed = BloomBits.ofBits(bits, BloomSidecar.K);
            BloomBits unmixed = BloomBits.ofBits(bits, BloomSidecar.K);
            for (int t = 0; t < keys; t++) {
                long lo = presentLo[t];
                long hi = presentHi[t];
                mixed.put(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi));
                unmixed.put(lo, hi | 1);
            }
            long mixedFalsePositives = 0;
            long unmixedFalsePositives = 0;
            for (int j = 0; j < probes; j++) {
                long lo = absentLo[j];
                long hi = absentHi[j];
                if (mixed.mayContain(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi))) {
                    mixedFalsePositives++;
                }
                if (unmixed.mayContain(lo, hi | 1)) {
                    unmixedFalsePositives++;
                }
            }
            points.add(new FprPoint(family, b, BloomSidecar.K, bits, keys, probes,
                    mixedFalsePositives, unmixedFalsePositives));
        }
        return points;
    }

    private static long secondOf(int trace) {
        return START_EPOCH_SECOND + trace / TRACES_PER_SECOND;
    }
}
