package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.traceql.MetricsAggregator;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.TimeSeries;
import dev.needle.query.traceql.TraceQlParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Counting spans while reading equals aggregating every trace: random TraceQL metrics queries (every function,
 * by(), topk and bottomk, filters after the function, spanset filters a span decides alone and ones that need
 * the whole trace) over random traces in real blocks, some spans stored twice, answered by the engine with every
 * mechanism but COUNTS on and with every mechanism off, equal an aggregator given every trace's spans in the range,
 * each span once. Values
 * agree to 1e-9 relative: durations in seconds summed in another order may differ in their last bit.
 */
class TraceQlMetricsTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_764_446_100L * S;
    private static final String[] LOCAL = {"{ }", "{ resource.service.name = \"api\" }", "{ span.a > 1 }",
        "{ status = error }", "{ name = \"n1\" || span.a = 2 }", "{ duration > 300ms && kind = server }"};
    private static final String[] WHOLE = {"{ } > { }", "{ name = \"n0\" } >> { span.a != 1 }",
        "{ span:childCount > 1 }"};
    private static final String[] FUNCTIONS = {"rate()", "count_over_time()", "min_over_time(duration)",
        "max_over_time(span.a)", "sum_over_time(duration)", "avg_over_time(span.a)", "histogram_over_time(duration)",
        "quantile_over_time(duration, .5, .9)", "compare({ status = error }, 3)"};
    private static final String[] BY = {"", " by (resource.service.name)", " by (name, span.a)"};
    private static final String[] AFTER = {"", "", " | topk(2)", " | bottomk(1)", " > 1"};

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private QueryEngine engine;
    /** Every trace, each span once, by start time. */
    private final Map<Bytes, List<SpanRecord>> traces = new LinkedHashMap<>();

    @BeforeEach
    void setUp() throws Exception {
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(dir);
        BlockWriter writer = new BlockWriter(store, allocator, 16);
        SplittableRandom random = new SplittableRandom(5);
        String[] services = {"api", "db", "web"};
        List<List<SpanRecord>> blocks = new ArrayList<>();
        for (int b = 0; b < 5; b++) {
            blocks.add(new ArrayList<>());
        }
        for (int t = 0; t < 120; t++) {
            byte[] id = new byte[16];
            random.nextBytes(id);
            Bytes traceId = Bytes.wrap(id);
            // Traces over 5 minutes, in whole tenths of a second so that spans share start times.
            long start = T0 + random.nextInt(3000) * S / 10;
            int spans = 1 + random.nextInt(6);
            List<SpanRecord> trace = new ArrayList<>();
            for (int s = 1; s <= spans; s++) {
                Resource resource = new Resource(List.of(KeyValue.of("service.name",
                        services[random.nextInt(services.length)])), 0, "");
                List<KeyValue> attributes = random.nextInt(4) == 0 ? List.of()
                        : List.of(KeyValue.of("a", random.nextInt(4)));
                long begin = start + random.nextInt(20) * S / 10;
                trace.add(SpanRecord.builder().resource(resource).traceId(traceId)
                        .spanId(Bytes.fromHex(String.format("%016x", s)))
                        .parentSpanId(s == 1 ? Bytes.EMPTY : Bytes.fromHex(String.format("%016x", 1 + random.nextInt(s - 1))))
                        .name("n" + random.nextInt(3)).kind(random.nextInt(6)).statusCode(random.nextInt(3))
                        .startTimeUnixNano(begin).endTimeUnixNano(begin + random.nextInt(1, 2000) * 1_000_000L)
                        .attributes(attributes).build());
            }
            trace.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano));
            traces.put(traceId, trace);
            int block = (int) ((start - T0) / (60 * S));
            blocks.get(block).addAll(trace);
            // A client's retry: some spans stored again, in the next block.
            if (random.nextInt(5) == 0) {
                blocks.get((block + 1) % blocks.size()).add(trace.get(0));
            }
        }
        for (List<SpanRecord> block : blocks) {
            writer.writeSpans(TENANT, block);
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
    }

    @AfterEach
    void tearDown() {
        engine.close();
        allocator.close();
    }

    @Test
    void randomMetricsQueries_countedWhileReading_equalEveryTraceAggregated_withEveryMechanismOnAndOff()
            throws Exception {
        SplittableRandom random = new SplittableRandom(9);
        int compared = 0;
        int streamed = 0;
        for (int q = 0; q < 150; q++) {
            boolean local = random.nextInt(4) != 0;
            String function = FUNCTIONS[random.nextInt(FUNCTIONS.length)];
            String text = (local ? LOCAL[random.nextInt(LOCAL.length)] : WHOLE[random.nextInt(WHOLE.length)]) + " | "
                    + function + (function.startsWith("compare") ? ""
                            : BY[random.nextInt(BY.length)] + AFTER[random.nextInt(AFTER.length)]);
            Query.Metrics query = (Query.Metrics) TraceQlParser.parse(text);
            // A query that needs whole traces is asked over every span: its candidates are found in the range only.
            long start = local ? T0 + random.nextInt(200) * S : T0 - 60 * S;
            long end = local ? start + (1 + random.nextInt(200)) * S : T0 + 600 * S;
            long step = new long[] {5, 15, 60}[random.nextInt(3)] * S;
            // The engine counts the spans that start in the range, in the steps the aggregator aligns.
            TimeRange range = new TimeRange(start, end);
            MetricsAggregator every = new MetricsAggregator(query, start, end, step);
            traces.values().forEach(t -> every.add(t.stream().filter(s -> range.contains(s.startTimeUnixNano())).toList()));
            List<TimeSeries> expected = every.series();
            // COUNTS counts spans as stored, a span stored twice twice (CountedMetricsTest holds it to the records).
            for (Mechanisms mechanisms : List.of(Mechanisms.ALL.withCounts(false), Mechanisms.NONE)) {
                MetricsResult found = engine.metrics(TENANT, query, new MetricsAggregator(query, start, end, step),
                        range, mechanisms);
                assertEquals(List.of(), found.problems());
                assertSame(expected, found.series(), text + " over " + start + ".." + end + " step " + step
                        + " with " + mechanisms);
                assertEquals(0, engine.queryBytes(), "nothing is held once the query is done");
            }
            compared += expected.isEmpty() ? 0 : 1;
            streamed += !MetricsAggregator.needsWholeTraces(query) && !expected.isEmpty() ? 1 : 0;
        }
        assertTrue(compared > 90, "compared " + compared);
        assertTrue(streamed > 60, "streamed " + streamed);
    }

    private static void assertSame(List<TimeSeries> expected, List<TimeSeries> actual, String what) {
        assertEquals(expected.stream().map(TimeSeries::labels).toList(), actual.stream().map(TimeSeries::labels).toList(),
                what);
        for (int s = 0; s < expected.size(); s++) {
            List<TimeSeries.Point> e = expected.get(s).points();
            List<TimeSeries.Point> a = actual.get(s).points();
            assertEquals(e.stream().map(TimeSeries.Point::timestampNanos).toList(),
                    a.stream().map(TimeSeries.Point::timestampNanos).toList(), what + " " + expected.get(s).labels());
            for (int i = 0; i < e.size(); i++) {
                double x = e.get(i).value();
                double y = a.get(i).value();
                if (x != y && !(Double.isNaN(x) && Double.isNaN(y))
                        && Math.abs(x - y) > 1e-9 * Math.max(Math.abs(x), Math.abs(y))) {
                    fail(what + " " + expected.get(s).labels() + ": " + e + " expected, " + a + " found");
                }
            }
        }
    }
}
