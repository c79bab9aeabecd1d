package dev.needle.bench;

import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import dev.needle.sidecar.TraceIdxBuilder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of asking a TRACE_IDX whether it may hold one trace id: {@link Sidecar#mayContainTraceId(long, long)}
 * on a verified sidecar decoded from a {@link TraceIdxBuilder}-built file, so KeyMix's two hashes
 * are included. Goal: at most 25 ns per probe, for an absent key (the common case when a query
 * looks for one trace among many blocks) and a present one (all seven probes).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar SidecarProbe -f 1 -wi 3 -i 5}
 * (or {@code ./needle bench jmh SidecarProbe -f 1 -wi 3 -i 5}). Reported in ns per probe.
 *
 * <p>{@code filterKiB} is the bitset size; the filter holds the most keys that give exactly that
 * size (n = bits / 10, at most {@link BloomSidecar#MAX_KEYS}), so it is as full as real ones get.
 * 2 MiB is the largest filter the format writes (1,000,000 keys); there is no 1.25 MiB filter, since
 * sizes are powers of two.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class SidecarProbeBenchmark {

    /* Probing cycles through 2^16 pre-generated ids (1 MiB of keys), read in order, so that the
     * key array streams through the prefetcher while the filter is hit at random, as it is when
     * many different ids are looked up; a short cycle would let the touched filter words sit in L1. */
    static final int PROBE_KEYS = 1 << 16;
    private static final int PROBE_MASK = PROBE_KEYS - 1;
    private static final long SEED = 0x6e65_6564_6c65L;

    @Param({"64", "1024", "2048"})
    public int filterKiB;

    private final long[] presentLo = new long[PROBE_KEYS];
    private final long[] presentHi = new long[PROBE_KEYS];
    private final long[] absentLo = new long[PROBE_KEYS];
    private final long[] absentHi = new long[PROBE_KEYS];
    private Sidecar sidecar;
    /** How many of the absent ids the filter answers "maybe" for (its false positives). */
    private int absentMaybeKeys;

    private long presentNext;
    long presentNo;
    private long absentNext;
    private long absentStart;
    private long absentMaybe;

    /** Builds, encodes and decodes the filter, then checks every present id and the false-positive count. */
    @Setup(Level.Trial)
    public void buildFilter() {
        long bits = filterKiB * 8192L;
        int keys = (int) Math.min(BloomSidecar.MAX_KEYS, bits / BloomSidecar.BITS_PER_KEY);
        SplittableRandom random = new SplittableRandom(SEED);
        long[] lo = new long[keys];
        long[] hi = new long[keys];
        TraceIdxBuilder builder = new TraceIdxBuilder();
        for (int i = 0; i < keys; i++) {
            lo[i] = random.nextLong();
            hi[i] = random.nextLong();
            builder.add(lo[i], hi[i]);
        }
        Verify.that(builder.distinctKeys() == keys, "builder counted %d distinct ids, %d were added",
                builder.distinctKeys(), keys);
        sidecar = Verify.verifiedSidecar(builder.build().orElseThrow(), bits / 8);
        for (int i = 0; i < keys; i++) {
            Verify.that(sidecar.mayContainTraceId(lo[i], hi[i]), "present id #%d answered absent", i);
        }
        for (int i = 0; i < PROBE_KEYS; i++) {
            presentLo[i] = lo[i % keys];
            presentHi[i] = hi[i % keys];
            absentLo[i] = random.nextLong();
            absentHi[i] = random.nextLong();
            if (sidecar.mayContainTraceId(absentLo[i], absentHi[i])) {
                absentMaybeKeys++;
            }
        }
        checkFalsePositives(keys, bits);
    }

    /** The false positives over the random absent ids must be those of theory, within 5 sigma. */
    private void checkFalsePositives(int keys, long bits) {
        double p = BloomBits.theoreticalFalsePositiveRate(keys, bits, BloomSidecar.K);
        double expected = p * PROBE_KEYS;
        double sigma = Math.sqrt(expected * (1 - p));
        Verify.that(Math.abs(absentMaybeKeys - expected) <= 5 * sigma + 1,
                "%d of %d absent ids answered maybe, theory says %.1f +- %.1f (n=%d, m=%d, k=%d)",
                absentMaybeKeys, PROBE_KEYS, expected, sigma, keys, bits, BloomSidecar.K);
    }

    /** Starts each iteration's answer counts afresh. */
    @Setup(Level.Iteration)
    public void resetCounts() {
        presentNo = 0;
        absentStart = absentNext;
        absentMaybe = 0;
    }

    /** A trace id that was added: all k probes run; the answer must be true. */
    @Benchmark
    public boolean presentKey() {
        int i = (int) presentNext++ & PROBE_MASK;
        boolean maybe = sidecar.mayContainTraceId(presentLo[i], presentHi[i]);
        if (!maybe) {
            presentNo++;
        }
        return maybe;
    }

    /** A random trace id that was not added: usually ruled out after a probe or two. */
    @Benchmark
    public boolean absentKey() {
        int i = (int) absentNext++ & PROBE_MASK;
        boolean maybe = sidecar.mayContainTraceId(absentLo[i], absentHi[i]);
        if (maybe) {
            absentMaybe++;
        }
        return maybe;
    }

    /**
     * Fails the iteration unless every present probe said "maybe" and the absent probes said "maybe"
     * exactly as often as the setup found: any PROBE_KEYS consecutive ids of the cycle hold exactly
     * {@code absentMaybeKeys} false positives, so q whole cycles plus r more ids give q times that
     * plus as many as r ids can hold.
     */
    @TearDown(Level.Iteration)
    public void checkAnswers() {
        Verify.that(presentNo == 0, "%d probes of present ids answered absent", presentNo);
        long calls = absentNext - absentStart;
        long cycles = calls / PROBE_KEYS;
        long rest = calls % PROBE_KEYS;
        long min = cycles * absentMaybeKeys + Math.max(0, rest - (PROBE_KEYS - absentMaybeKeys));
        long max = cycles * absentMaybeKeys + Math.min(rest, absentMaybeKeys);
        Verify.that(absentMaybe >= min && absentMaybe <= max,
                "%d of %d probes of absent ids answered maybe, expected %d..%d", absentMaybe, calls, min, max);
    }
}
