package dev.needle.bench;

import dev.needle.corpus.TraceIdFamily;
import dev.needle.sidecar.KeyMix;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of reducing a 16-byte trace id to its two probe hashes: {@link KeyMix#traceIdLo},
 * {@link KeyMix#traceIdHi}, {@link KeyMix#h1} and {@link KeyMix#h2}, paid once per distinct trace id
 * when a TRACE_IDX is built and once per TRACE_IDX a lookup probes. Ids of each
 * {@link TraceIdFamily}, 4,096 per invocation, back to back as a FixedSizeBinary(16) column holds them.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar KeyMix -f 1 -wi 2 -i 3}
 * (or {@code ./needle bench jmh KeyMix -f 1 -wi 2 -i 3}). Reported in ns per key.
 *
 * <p>Every invocation checks the sums of the h1 and h2 it computed against sums the setup took
 * from a reference implementation written here from docs/FORMAT.md, itself checked against that
 * document's golden vectors, so a KeyMix that drifts from the format fails the benchmark.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class KeyMixBenchmark {

    static final int IDS = 4096;
    private static final int ID_BYTES = 16;
    private static final long SEED = 0x6b65_794d_6978L;
    /** The epoch second of the first trace, 2026-11-29T20:15:00Z, which X-Ray ids carry in bytes 0..3. */
    private static final long EPOCH_SECOND = 1_795_983_300L;

    @Param({"random", "xray", "short64", "counter"})
    public String family;

    private final byte[] ids = new byte[IDS * ID_BYTES];
    long expectedH1Sum;
    long expectedH2Sum;

    /** Checks the reference against docs/FORMAT.md's golden vectors, makes the ids and sums their reference hashes. */
    @Setup(Level.Trial)
    public void generate() {
        checkGolden("4bf92f3577b34da6a3ce929d0e0e4736", 0x561ce2e339e83d9bL, 0xc5e42e9803c9a76bL);
        checkGolden("00000000000000003d2f8e1b9c7a6e55", 0x47833a7903c52c0bL, 0x30e70c7996d731b1L);
        checkGolden("a1a2a3a400000001a9aaabacadaeafb0", 0xfb0d7315a578a647L, 0x48c24a58ca68c4edL);
        checkGolden("00000000000000000000000000000000", 0x0000000000000000L, 0xe220a8397b1dcdafL);
        checkGolden("ffffffffffffffffffffffffffffffff", 0xd6bdf7544574c9cbL, 0x7171dc2673885773L);

        TraceIdFamily idFamily = TraceIdFamily.of(family);
        SplittableRandom random = new SplittableRandom(SEED);
        for (int t = 0; t < IDS; t++) {
            // About eight traces start per second, so X-Ray ids share their first bytes in runs.
            byte[] id = idFamily.present(t, EPOCH_SECOND + t / 8, random);
            System.arraycopy(id, 0, ids, t * ID_BYTES, ID_BYTES);
            expectedH1Sum += referenceH1(id);
            expectedH2Sum += referenceH2(id);
        }
    }

    /** Mixes every id; fails unless the sums of h1 and of h2 are the reference's. */
    @Benchmark
    @OperationsPerInvocation(IDS)
    public long mixIds() {
        byte[] column = ids;
        long h1Sum = 0;
        long h2Sum = 0;
        for (int at = 0; at < column.length; at += ID_BYTES) {
            long lo = KeyMix.traceIdLo(column, at);
            long hi = KeyMix.traceIdHi(column, at);
            h1Sum += KeyMix.h1(lo, hi);
            h2Sum += KeyMix.h2(lo, hi);
        }
        Verify.that(h1Sum == expectedH1Sum && h2Sum == expectedH2Sum,
                "%s ids: h1 sum %016x, h2 sum %016x; the reference gives %016x, %016x",
                family, h1Sum, h2Sum, expectedH1Sum, expectedH2Sum);
        return h1Sum ^ h2Sum;
    }

    private static void checkGolden(String hex, long h1, long h2) {
        byte[] id = new byte[ID_BYTES];
        for (int i = 0; i < ID_BYTES; i++) {
            id[i] = (byte) Integer.parseInt(hex, 2 * i, 2 * i + 2, 16);
        }
        Verify.that(referenceH1(id) == h1 && referenceH2(id) == h2,
                "reference gives h1=%016x h2=%016x for %s, docs/FORMAT.md says %016x %016x",
                referenceH1(id), referenceH2(id), hex, h1, h2);
    }

    /* The reference, kept apart from KeyMix on purpose: bytes are assembled one by one rather than
     * through a VarHandle, and the formulas are copied from docs/FORMAT.md, not from KeyMix. */

    private static long referenceH1(byte[] id) {
        return referenceMix(littleEndian(id, 0) ^ referenceMix(littleEndian(id, 8)));
    }

    private static long referenceH2(byte[] id) {
        return referenceMix(littleEndian(id, 8) ^ referenceMix(littleEndian(id, 0)) ^ 0x9e3779b97f4a7c15L) | 1;
    }

    private static long referenceMix(long z) {
        z ^= z >>> 30;
        z *= 0xbf58476d1ce4e5b9L;
        z ^= z >>> 27;
        z *= 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    private static long littleEndian(byte[] b, int from) {
        long value = 0;
        for (int i = 7; i >= 0; i--) {
            value = value << 8 | (b[from + i] & 0xff);
        }
        return value;
    }
}
