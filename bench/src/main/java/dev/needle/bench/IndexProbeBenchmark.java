package dev.needle.bench;

import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyMix;
import dev.needle.sidecar.Sidecar;
import dev.needle.sidecar.TraceIdxBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
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
 * The cost of looking an absent trace id up in the index of 10,000 blocks: every block's TRACE_IDX,
 * decoded from one {@link BlockIndex} object, probed from memory ({@link #probeAbsent}, microseconds
 * per lookup, all blocks), and the cost of decoding that object with its filters, which a reader pays
 * each time the index changed ({@link #decodeIndex}).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar IndexProbe -f 1 -wi 3 -i 5}
 * (or {@code ./needle bench jmh IndexProbe -f 1 -wi 3 -i 5}).
 *
 * <p>Each block holds {@code idsPerBlock} random trace ids (a 2 KiB filter for 1,000). The setup
 * prints the bytes of filter a lookup touches: {@code mayContain} reads all k = 7 probe words of every
 * block (no early exit), so 56 bytes per block in 7 cache lines; the setup counts the distinct
 * 64-byte lines.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgs = "-Xmx2g")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class IndexProbeBenchmark {

    /** Absent ids probed in turn; each one's count of "maybe" answers is known from the setup. */
    static final int PROBE_KEYS = 256;
    private static final long SEED = 0x696e_6465_78L;
    private static final TenantId TENANT = TenantId.of("bench");

    @Param({"10000"})
    public int blocks;

    @Param({"1000"})
    public int idsPerBlock;

    private byte[] object;
    private Sidecar[] filters;
    private final long[] absentLo = new long[PROBE_KEYS];
    private final long[] absentHi = new long[PROBE_KEYS];
    private final int[] expectedMaybe = new int[PROBE_KEYS];
    private int next;
    private long wrong;

    /** Builds the blocks' filters and the index object, decodes it, and checks every filter's present ids. */
    @Setup(Level.Trial)
    public void buildIndex() throws BlockIndex.CorruptIndexException {
        SplittableRandom random = new SplittableRandom(SEED);
        List<BlockIndex.Entry> entries = new ArrayList<>(blocks);
        long[][] firstIds = new long[blocks][2];
        for (int b = 0; b < blocks; b++) {
            TraceIdxBuilder builder = new TraceIdxBuilder(idsPerBlock);
            for (int i = 0; i < idsPerBlock; i++) {
                long lo = random.nextLong();
                long hi = random.nextLong();
                if (i == 0) {
                    firstIds[b] = new long[] {lo, hi};
                }
                builder.add(lo, hi);
            }
            long start = 1_764_446_100_000L + b * 60_000L;
            entries.add(new BlockIndex.Entry(BlockName.forRange(start * 1_000_000L, (start + 59_999) * 1_000_000L,
                    "b" + b), new byte[0], builder.build().orElseThrow(), new byte[0]));
        }
        object = BlockIndex.of(TENANT, Signal.SPANS, entries).encode();
        filters = decode(object);
        Verify.that(filters.length == blocks, "decoded %d filters of %d blocks", filters.length, blocks);
        for (int b = 0; b < blocks; b++) {
            Verify.that(filters[b].isVerified() && filters[b].mayContainTraceId(firstIds[b][0], firstIds[b][1]),
                    "block %d does not hold its own first id", b);
        }
        Set<Long> lines = new HashSet<>();
        for (int i = 0; i < PROBE_KEYS; i++) {
            absentLo[i] = random.nextLong();
            absentHi[i] = random.nextLong();
            expectedMaybe[i] = maybes(i);
        }
        long h1 = KeyMix.h1(absentLo[0], absentHi[0]);
        long h2 = KeyMix.h2(absentLo[0], absentHi[0]);
        for (int b = 0; b < blocks; b++) {
            int bits = filters[b].bits().orElseThrow().bits();
            for (int p = 0; p < BloomSidecar.K; p++) {
                lines.add(((long) b << 32) | (BloomBits.probe(h1, h2, p, bits) >>> 9));
            }
        }
        System.out.printf("%nindex: %d blocks, %d bytes; a lookup reads %d bytes of filter words (%d per block)"
                + " in %d distinct 64-byte lines (%d bytes)%n", blocks, object.length, 8L * BloomSidecar.K * blocks,
                8 * BloomSidecar.K, lines.size(), 64L * lines.size());
    }

    private static Sidecar[] decode(byte[] object) throws BlockIndex.CorruptIndexException {
        BlockIndex index = BlockIndex.decode(object, TENANT, Signal.SPANS);
        Sidecar[] out = new Sidecar[index.entries().size()];
        for (int b = 0; b < out.length; b++) {
            out[b] = BloomSidecar.decode(index.entries().get(b).traceIdx());
        }
        return out;
    }

    private int maybes(int key) {
        int maybe = 0;
        for (Sidecar filter : filters) {
            maybe += filter.mayContainTraceId(absentLo[key], absentHi[key]) ? 1 : 0;
        }
        return maybe;
    }

    /** Starts each iteration's check afresh. */
    @Setup(Level.Iteration)
    public void reset() {
        wrong = 0;
    }

    /** One absent trace id against every block's filter: the blocks that answer "maybe" (false positives). */
    @Benchmark
    public int probeAbsent() {
        int key = next++ & (PROBE_KEYS - 1);
        int maybe = maybes(key);
        if (maybe != expectedMaybe[key]) {
            wrong++;
        }
        return maybe;
    }

    /** Decodes the whole index object and every filter in it, as a reader does when the index changed. */
    @Benchmark
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public Sidecar[] decodeIndex() throws BlockIndex.CorruptIndexException {
        return decode(object);
    }

    /** Fails the iteration if any lookup counted other false positives than the setup did. */
    @TearDown(Level.Iteration)
    public void check() {
        Verify.that(wrong == 0, "%d lookups counted other false positives than the setup", wrong);
    }
}
