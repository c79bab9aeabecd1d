package dev.needle.bench;

import dev.needle.sidecar.BitSlicedFilters;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import dev.needle.sidecar.TraceIdxBuilder;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
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
 * A trace id probed in the TRACE_IDX of 100,000 blocks at once: bit-sliced ({@link BitSlicedFilters},
 * {@link #slicedPresent}, {@link #slicedAbsent}) against each block's filter one by one
 * ({@link #eachPresent}, {@link #eachAbsent}); and what keeping the structure costs: building it from
 * every sidecar ({@link #buildAll}, which a reader pays when it first reads an index) and adding one
 * block to it ({@link #addOne}, which it pays per block published).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar BitSlicedProbe -f 1 -wi 2 -i 3}
 * (or {@code ./needle bench jmh BitSlicedProbe -f 1 -wi 2 -i 3}).
 *
 * <p>Each block holds the distinct trace ids of a 2,500-row span block: 120 to 700 (traces of a few to
 * some twenty spans, cut at block edges), so its TRACE_IDX is 2, 4 or 8 Kibit as the writer sizes it.
 * The setup prints the bytes of filter bits one probe reads each way: bit-sliced, k rows of blocks/64
 * words per size; one by one, k words of every block. Every probe's answer is checked against the
 * blocks' own sidecars.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgs = "-Xmx3g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class BitSlicedProbeBenchmark {

    /** Keys probed in turn, present and absent. */
    static final int PROBE_KEYS = 256;
    private static final long SEED = 0x736c_6963_6564L;

    @Param({"100000"})
    public int blocks;

    private Sidecar[] sidecars;
    private Map<Integer, Sidecar> byId;
    private BitSlicedFilters sliced;
    private Sidecar extra;
    private final long[] presentLo = new long[PROBE_KEYS];
    private final long[] presentHi = new long[PROBE_KEYS];
    private final int[] presentBlock = new int[PROBE_KEYS];
    private final long[] absentLo = new long[PROBE_KEYS];
    private final long[] absentHi = new long[PROBE_KEYS];
    private final int[] expectedPresent = new int[PROBE_KEYS];
    private final int[] expectedAbsent = new int[PROBE_KEYS];
    private int next;
    private long wrong;

    /** Builds every block's TRACE_IDX, the bit-sliced filters of all, and each probe's expected answer. */
    @Setup(Level.Trial)
    public void build() {
        SplittableRandom random = new SplittableRandom(SEED);
        sidecars = new Sidecar[blocks];
        byId = new HashMap<>(blocks * 2);
        long filterBytes = 0;
        for (int b = 0; b < blocks; b++) {
            int ids = 120 + random.nextInt(581);
            TraceIdxBuilder builder = new TraceIdxBuilder(ids);
            for (int i = 0; i < ids; i++) {
                long lo = random.nextLong();
                long hi = random.nextLong();
                if (b % (blocks / PROBE_KEYS) == 0 && i == 0 && b / (blocks / PROBE_KEYS) < PROBE_KEYS) {
                    int key = b / (blocks / PROBE_KEYS);
                    presentLo[key] = lo;
                    presentHi[key] = hi;
                    presentBlock[key] = b;
                }
                builder.add(lo, hi);
            }
            byte[] file = builder.build().orElseThrow();
            filterBytes += file.length - BloomSidecar.HEADER_BYTES;
            sidecars[b] = Verify.verifiedSidecar(file, file.length - BloomSidecar.HEADER_BYTES);
            byId.put(b, sidecars[b]);
        }
        extra = sidecars[0];
        sliced = BitSlicedFilters.of(byId);
        for (int i = 0; i < PROBE_KEYS; i++) {
            absentLo[i] = random.nextLong();
            absentHi[i] = random.nextLong();
            expectedPresent[i] = eachCount(presentLo[i], presentHi[i]);
            expectedAbsent[i] = eachCount(absentLo[i], absentHi[i]);
            Verify.that(expectedPresent[i] >= 1 && sliced.probeTraceId(presentLo[i], presentHi[i]).mayContain(presentBlock[i]),
                    "present id #%d is not found in its block %d", i, presentBlock[i]);
        }
        BitSlicedFilters.Candidates probe = sliced.probeTraceId(absentLo[0], absentHi[0]);
        System.out.printf("%n%d blocks, %d bytes of filters (%d MiB held bit-sliced); one probe reads %d bytes of"
                + " filter bits bit-sliced, %d one by one (k = %d words of each block)%n", blocks, filterBytes,
                sliced.sizeInBytes() >> 20, probe.filterBytesRead(), 8L * BloomSidecar.K * blocks, BloomSidecar.K);
    }

    private int eachCount(long lo, long hi) {
        int maybe = 0;
        for (Sidecar s : sidecars) {
            maybe += s.mayContainTraceId(lo, hi) ? 1 : 0;
        }
        return maybe;
    }

    /** Starts each iteration's check afresh. */
    @Setup(Level.Iteration)
    public void reset() {
        wrong = 0;
    }

    /** A present trace id, bit-sliced: the blocks that may hold it. */
    @Benchmark
    public int slicedPresent() {
        int key = next++ & (PROBE_KEYS - 1);
        int maybe = sliced.probeTraceId(presentLo[key], presentHi[key]).count();
        wrong += maybe == expectedPresent[key] ? 0 : 1;
        return maybe;
    }

    /** An absent trace id, bit-sliced: the blocks that answer "maybe" (false positives). */
    @Benchmark
    public int slicedAbsent() {
        int key = next++ & (PROBE_KEYS - 1);
        int maybe = sliced.probeTraceId(absentLo[key], absentHi[key]).count();
        wrong += maybe == expectedAbsent[key] ? 0 : 1;
        return maybe;
    }

    /** A present trace id, every block's filter one by one. */
    @Benchmark
    public int eachPresent() {
        int key = next++ & (PROBE_KEYS - 1);
        int maybe = eachCount(presentLo[key], presentHi[key]);
        wrong += maybe == expectedPresent[key] ? 0 : 1;
        return maybe;
    }

    /** An absent trace id, every block's filter one by one. */
    @Benchmark
    public int eachAbsent() {
        int key = next++ & (PROBE_KEYS - 1);
        int maybe = eachCount(absentLo[key], absentHi[key]);
        wrong += maybe == expectedAbsent[key] ? 0 : 1;
        return maybe;
    }

    /** The bit-sliced filters of every block, from their decoded sidecars. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public BitSlicedFilters buildAll() {
        return BitSlicedFilters.of(byId);
    }

    /** One more block added to the filters of all the others (its segment copied, the rest shared). */
    @Benchmark
    public BitSlicedFilters addOne() {
        return sliced.with(Map.of(blocks, extra), Set.of());
    }

    /** Fails the iteration if any probe counted other blocks than the blocks' own sidecars do. */
    @TearDown(Level.Iteration)
    public void check() {
        Verify.that(wrong == 0, "%d probes counted other blocks than the sidecars", wrong);
    }
}
