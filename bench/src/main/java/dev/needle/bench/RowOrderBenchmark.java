package dev.needle.bench;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.RowOrder;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjIntConsumer;
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
 * Ordering a 300,000-row block's rows alone, the step {@link BlockWriteBenchmark} starts with:
 * {@link RowOrder}'s radix sort of primitive columns beside the object sorts it replaced, which are kept here,
 * and only here, to compare against ({@code spanKeys}: a key object per span sorted by TimSort;
 * {@code boxedLogs}: boxed indexes and {@link BlockWriter#LOG_ORDER}). Throughput is rows per second.
 *
 * <p>Spans are {@link BlockWriteBenchmark}'s two inputs; logs are the corpus's. The setup checks that
 * both ways give the same rows, so a broken order fails instead of looking fast.
 *
 * <p>Run: {@code ./needle bench jmh RowOrder -f 1 -wi 3 -i 5}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class RowOrderBenchmark {

    static final int ROWS = 300_000;
    /** The writer's work in the same pass (its shared resources and scopes), left out of both ways. */
    private static final ObjIntConsumer<Object> NOTHING_ALONGSIDE = (record, index) -> { };
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    /** {@value #ROWS} spans, {@code synthetic} or {@code received} as in {@link BlockWriteBenchmark}. */
    @State(Scope.Benchmark)
    public static class Spans {
        /** {@code synthetic} or {@code received}. */
        @Param({"synthetic", "received"})
        public String input;

        SpanRecord[] records;

        /** Makes the spans and checks both orders agree. */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            List<SpanRecord> spans = switch (input) {
                case "synthetic" -> BenchSpans.generate(ROWS, 42);
                case "received" -> BlockWriteBenchmark.received();
                default -> throw new IllegalArgumentException("input " + input + " is not synthetic or received");
            };
            records = spans.toArray(new SpanRecord[0]);
            RowOrder.Spans order = RowOrder.spans(records, NOTHING_ALONGSIDE);
            RowOrder.Spans before = spanKeyOrder(records);
            Verify.that(Arrays.equals(order.rows(), before.rows()), "the orders of %s spans differ", input);
            Verify.that(Arrays.equals(order.traceIds(), before.traceIds())
                            && order.distinctTraceIds() == spans.stream().map(SpanRecord::traceId).distinct().count(),
                    "%d distinct trace ids keyed, %d before", order.distinctTraceIds(), before.distinctTraceIds());
        }
    }

    /** {@value #ROWS} log records of the corpus. */
    @State(Scope.Benchmark)
    public static class Logs {
        LogRecord[] records;

        /** Makes the records and checks both orders agree. */
        @Setup(Level.Trial)
        public void setUp() {
            Corpus corpus = new Corpus(CorpusSpec.defaults(0, ROWS));
            List<LogRecord> logs = new ArrayList<>(ROWS);
            for (int chunk = 0; chunk < corpus.logChunks(); chunk++) {
                logs.addAll(corpus.logs(chunk).records());
            }
            Verify.that(logs.size() == ROWS, "the corpus made %d log records, expected %d", logs.size(), ROWS);
            records = logs.toArray(new LogRecord[0]);
            Verify.that(Arrays.equals(RowOrder.logs(records, NOTHING_ALONGSIDE), boxedLogOrder(records)),
                    "the orders of the logs differ");
        }
    }

    /** The spans in block order by {@link RowOrder}. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public RowOrder.Spans rowOrderSpans(Spans spans) {
        return RowOrder.spans(spans.records, NOTHING_ALONGSIDE);
    }

    /** The spans in block order by a key object per span, as before {@link RowOrder}. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public RowOrder.Spans spanKeys(Spans spans) {
        return spanKeyOrder(spans.records);
    }

    /** The log records in block order by {@link RowOrder}. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int[] rowOrderLogs(Logs logs) {
        return RowOrder.logs(logs.records, NOTHING_ALONGSIDE);
    }

    /** The log records in block order by boxed indexes and {@link BlockWriter#LOG_ORDER}, as before {@link RowOrder}. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public int[] boxedLogs(Logs logs) {
        return boxedLogOrder(logs.records);
    }

    /** The span order before {@link RowOrder}, with its distinct ids' TRACE_IDX keys; 16-byte trace ids only. */
    static RowOrder.Spans spanKeyOrder(SpanRecord[] records) {
        SpanKey[] keys = new SpanKey[records.length];
        for (int i = 0; i < records.length; i++) {
            byte[] id = records[i].traceId().unsafeArray();
            keys[i] = new SpanKey((long) BIG_ENDIAN_LONG.get(id, 0), (long) BIG_ENDIAN_LONG.get(id, Long.BYTES),
                    records[i].startTimeUnixNano(), i);
        }
        Arrays.sort(keys);
        int[] rows = new int[keys.length];
        long[] traceIds = new long[2 * keys.length];
        int halves = 0;
        for (int r = 0; r < keys.length; r++) {
            rows[r] = keys[r].index();
            if (r == 0 || keys[r].high() != keys[r - 1].high() || keys[r].low() != keys[r - 1].low()) {
                traceIds[halves++] = Long.reverseBytes(keys[r].high());
                traceIds[halves++] = Long.reverseBytes(keys[r].low());
            }
        }
        return new RowOrder.Spans(rows, Arrays.copyOf(traceIds, halves));
    }

    /** A span's sort key; the index breaks ties. */
    private record SpanKey(long high, long low, long start, int index) implements Comparable<SpanKey> {
        @Override
        public int compareTo(SpanKey o) {
            int c = Long.compareUnsigned(high, o.high);
            if (c == 0) {
                c = Long.compareUnsigned(low, o.low);
            }
            if (c == 0) {
                c = Long.compare(start, o.start);
            }
            return c != 0 ? c : Integer.compare(index, o.index);
        }
    }

    /** The log order before {@link RowOrder}. */
    static int[] boxedLogOrder(LogRecord[] records) {
        Integer[] indexes = new Integer[records.length];
        Arrays.setAll(indexes, i -> i);
        Arrays.sort(indexes, (a, b) -> BlockWriter.LOG_ORDER.compare(records[a], records[b]));
        return Arrays.stream(indexes).mapToInt(Integer::intValue).toArray();
    }
}
