package dev.needle.query.logql.metric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryAbortedException;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.QueryLimits;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.ql.Expr;
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
 * A metric query holds its series, not its records: over 300,000 log records, which a 64 MiB budget could not
 * hold as records, a count by minute answers exactly; a query whose series are one per record (each record's
 * observed_timestamp is a label) still stops with the memory limit, as a 422, not an OutOfMemoryError.
 */
class MetricBudgetTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_764_446_100L * S;
    private static final int BLOCKS = 6;
    private static final int PER_BLOCK = 50_000;
    private static final long BUDGET = 64L << 20;

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
        Scope scope = new Scope("io.test", "1.0", List.of(), 0, "");
        for (int b = 0; b < BLOCKS; b++) {
            List<LogRecord> block = new ArrayList<>(PER_BLOCK);
            for (int i = 0; i < PER_BLOCK; i++) {
                // 300,000 records over 10 minutes, one every 2 ms: 30,000 a minute.
                long time = T0 + (b * (long) PER_BLOCK + i) * 2_000_000L;
                block.add(LogRecord.builder().resource(resource).scope(scope).timeUnixNano(time)
                        .observedTimeUnixNano(time).severityNumber(9).body(AnyValue.of("ok " + i % 10)).build());
            }
            writer.writeLogs(TENANT, block);
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2,
                new QueryLimits(BUDGET, BUDGET, Duration.ofMinutes(5)));
    }

    @AfterAll
    static void tearDown() {
        engine.close();
        allocator.close();
    }

    private static MetricEval.Value eval(String query, long[] times) throws Exception {
        MetricExpr expr = ((LogQl.Metric) LogQlParser.parse(query)).expr();
        try (MetricSource source = new MetricSource(new LokiSearch(engine), engine.budget(), TENANT, Mechanisms.ALL)) {
            MetricEval.Value value = new MetricEval(times, times.length == 1, source).eval(expr);
            assertEquals(List.of(), source.problems());
            return value;
        }
    }

    @Test
    void recordsPastTheBudget_areCountedExactly() throws Exception {
        QueryAbortedException asRecords = assertThrows(QueryAbortedException.class, () -> engine.searchLogs(TENANT,
                new Expr.MatchAll(), TimeRange.ALL, BLOCKS * PER_BLOCK, Mechanisms.ALL));
        assertEquals(QueryAbortedException.Reason.MEMORY, asRecords.reason(), "the records are more than the budget");

        long[] minutes = new long[10];
        for (int m = 0; m < minutes.length; m++) {
            minutes[m] = T0 + (m + 1) * 60 * S - 1;
        }
        MetricEval.Value perMinute = eval("sum by (service_name) (count_over_time({service_name=\"api\"}[1m]))",
                minutes);
        assertEquals(1, perMinute.series().size());
        MetricEval.Series api = perMinute.series().get(0);
        assertEquals(Map.of("service_name", "api"), api.labels());
        for (int m = 0; m < minutes.length; m++) {
            assertEquals(30_000, api.values()[m], "minute " + m);
        }

        MetricEval.Value all = eval("sum(bytes_over_time({service_name=\"api\"} |= \"ok 7\" [10m]))",
                new long[] {T0 + 600 * S});
        assertEquals(List.of(new MetricEval.Sample(Map.of(), 30_000 * 4)), all.steps().get(0));
        assertEquals(0, engine.queryBytes(), "nothing is held once the query is done");
    }

    @Test
    void aSeriesPerRecord_stopsWithTheMemoryLimit() {
        QueryAbortedException e = assertThrows(QueryAbortedException.class,
                () -> eval("count_over_time({service_name=\"api\"}[10m])", new long[] {T0 + 600 * S}));
        assertEquals(QueryAbortedException.Reason.MEMORY, e.reason());
        assertTrue(e.getMessage().contains("memory limit of 64MiB"), e.getMessage());
        assertEquals(0, engine.queryBytes(), "everything is given back");
    }
}
