package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.MetricsAggregator;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.TimeSeries;
import dev.needle.query.traceql.TraceQlParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TraceQL metrics query whose spans are judged alone holds its series and the spans' ids, not the spans:
 * over 100,000 spans, which an 8 MiB budget could not hold as records, a count by minute answers exactly; a
 * query with a series per span still stops with the memory limit (a 422).
 */
class TraceQlMetricsBudgetTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_764_446_100L * S;
    private static final int BLOCKS = 4;
    private static final int PER_BLOCK = 25_000;
    private static final long BUDGET = 8L << 20;

    @TempDir
    static Path dir;
    private static RootAllocator allocator;
    private static QueryEngine engine;

    @BeforeAll
    static void setUp() throws Exception {
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(dir);
        BlockWriter writer = new BlockWriter(store, allocator);
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "api")), 0, "");
        for (int b = 0; b < BLOCKS; b++) {
            List<SpanRecord> block = new ArrayList<>(PER_BLOCK);
            for (int i = 0; i < PER_BLOCK; i++) {
                // 100,000 spans over 10 minutes, one every 6 ms: 10,000 a minute, each its own trace.
                int n = b * PER_BLOCK + i;
                long start = T0 + n * 6_000_000L;
                block.add(SpanRecord.builder().resource(resource)
                        .traceId(Bytes.fromHex(String.format("%032x", n + 1))).spanId(Bytes.fromHex("0000000000000001"))
                        .name("get").startTimeUnixNano(start).endTimeUnixNano(start + 1_000_000L)
                        .attributes(List.of(KeyValue.of("n", n))).build());
            }
            writer.writeSpans(TENANT, block);
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2,
                new QueryLimits(BUDGET, BUDGET, Duration.ofMinutes(5)));
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        allocator.close();
    }

    private static MetricsResult metrics(String text) throws Exception {
        Query.Metrics query = (Query.Metrics) TraceQlParser.parse(text);
        return engine.metrics(TENANT, query, new MetricsAggregator(query, T0, T0 + 600 * S, 60 * S),
                new TimeRange(T0, T0 + 600 * S), Mechanisms.ALL);
    }

    @Test
    void spansPastTheBudget_areCountedExactly() throws Exception {
        QueryAbortedException asRecords = assertThrows(QueryAbortedException.class, () -> engine.searchSpans(TENANT,
                new Expr.MatchAll(), TimeRange.ALL, BLOCKS * PER_BLOCK, Mechanisms.ALL));
        assertEquals(QueryAbortedException.Reason.MEMORY, asRecords.reason(), "the spans are more than the budget");

        MetricsResult perMinute = metrics("{ name = \"get\" } | count_over_time()");
        assertEquals(List.of(), perMinute.problems());
        assertEquals(1, perMinute.series().size());
        TimeSeries all = perMinute.series().get(0);
        assertEquals(Map.of(), all.labels());
        // Step i holds (T0 + i min, T0 + (i + 1) min]: the span at T0 is in none, the last step lacks one at its end.
        List<Double> counts = all.points().stream().map(TimeSeries.Point::value).toList();
        assertEquals(List.of(10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0, 10_000.0,
                9_999.0), counts);
        assertEquals(0, engine.queryBytes(), "nothing is held once the query is done");
    }

    @Test
    void aSeriesPerSpan_stopsWithTheMemoryLimit() {
        QueryAbortedException e = assertThrows(QueryAbortedException.class,
                () -> metrics("{ } | count_over_time() by (span.n)"));
        assertEquals(QueryAbortedException.Reason.MEMORY, e.reason());
        assertTrue(e.getMessage().contains("memory limit of 8MiB"), e.getMessage());
        assertEquals(0, engine.queryBytes(), "everything is given back");
    }
}
