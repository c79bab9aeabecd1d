package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Queries run within their limits: a search holds at most its answer however many rows its filter
 * reads, a query that would hold more than its memory or run past its time stops with a clear
 * {@link QueryAbortedException} and gives back all it held, and the next query runs normally.
 */
class QueryLimitsTest {

    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final int BLOCKS = 3;
    private static final int PER_BLOCK = 20_000;
    private static final long MIB = 1 << 20;
    private static final Expr EVERYTHING = new Expr.MatchAll();

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;
    private final List<LogRecord> logs = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "limits")), 0, "");
        Scope scope = new Scope("limits-test", "1", List.of(), 0, "");
        BlockWriter writer = new BlockWriter(store, allocator);
        for (int b = 0; b < BLOCKS; b++) {
            List<LogRecord> block = new ArrayList<>();
            for (int i = 0; i < PER_BLOCK; i++) {
                int n = b * PER_BLOCK + i;
                block.add(LogRecord.builder().resource(resource).scope(scope).timeUnixNano(T0 + n * 1_000_000L)
                        .observedTimeUnixNano(T0 + n * 1_000_000L).severityNumber(9).severityText("INFO")
                        .body(AnyValue.of("request " + n + " served in " + (n % 97) + " ms by worker-" + (n % 13)))
                        .attributes(List.of(KeyValue.of("n", n))).build());
            }
            logs.addAll(block);
            writer.writeLogs(TenantId.DEFAULT, block);
        }
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    private QueryEngine engine(long queryBytes, long totalBytes, Duration timeout) {
        return new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2, new QueryLimits(queryBytes, totalBytes, timeout));
    }

    @Test
    void aFilterThatKeepsNothing_readsEveryRowWithinAFewRecordsOfMemory() throws Exception {
        try (QueryEngine engine = engine(MIB, MIB, Duration.ofMinutes(1))) {
            for (Order order : Order.values()) {
                SearchResult<LogRecord> none = engine.searchLogs(TenantId.DEFAULT, EVERYTHING,
                        new RecordFilter<>(line -> line.contains("no-such-token"), r -> true), TimeRange.ALL, 100, order,
                        Mechanisms.ALL);
                assertEquals(List.of(), none.records());
                assertEquals(BLOCKS * PER_BLOCK, none.plan().totals().rowsScanned(), "every row was tested");
                assertEquals(0, engine.queryBytes(), "nothing is held once the query is done");
            }
        }
    }

    @Test
    void aLimitedSearch_holdsItsAnswer_notEveryMatch_inEitherOrder() throws Exception {
        // Each record is some hundreds of bytes: 60,000 would pass a 1 MiB budget many times over.
        try (QueryEngine engine = engine(MIB, MIB, Duration.ofMinutes(1))) {
            AtomicInteger judged = new AtomicInteger();
            for (Order order : Order.values()) {
                SearchResult<LogRecord> found = engine.searchLogs(TenantId.DEFAULT, EVERYTHING,
                        new RecordFilter<>(line -> line.contains("worker-7"), r -> judged.incrementAndGet() > 0
                                && ((AnyValue.Int) r.attributes().get(0).value()).value() % 2 == 0),
                        TimeRange.ALL, 50, order, Mechanisms.NONE);
                Comparator<LogRecord> byTime = Comparator.comparingLong(LogRecord::eventTimeUnixNano);
                List<LogRecord> expected = logs.stream()
                        .filter(r -> ((AnyValue.Str) r.body()).value().contains("worker-7")
                                && ((AnyValue.Int) r.attributes().get(0).value()).value() % 2 == 0)
                        .sorted(order == Order.NEWEST_FIRST ? byTime.reversed() : byTime).limit(50).toList();
                assertEquals(expected, found.records(), order.toString());
                assertEquals(0, engine.queryBytes());
            }
            assertTrue(judged.get() < BLOCKS * PER_BLOCK / 13 * 2, "the line test ruled rows out before records were "
                    + "built: " + judged.get() + " judged");
        }
    }

    @Test
    void aQueryPastItsMemory_stopsWithAClearError_givesAllBack_andTheNextRuns() throws Exception {
        try (QueryEngine engine = engine(MIB, 2 * MIB, Duration.ofMinutes(1))) {
            QueryAbortedException e = assertThrows(QueryAbortedException.class, () -> engine.searchLogs(TenantId.DEFAULT,
                    EVERYTHING, TimeRange.ALL, 1_000_000, Mechanisms.ALL));
            assertEquals(QueryAbortedException.Reason.MEMORY, e.reason());
            assertTrue(e.getMessage().contains("memory limit of 1MiB"), e.getMessage());
            assertEquals(0, engine.queryBytes());

            SearchResult<LogRecord> next = engine.searchLogs(TenantId.DEFAULT, EVERYTHING, TimeRange.ALL, 10,
                    Mechanisms.ALL);
            assertEquals(10, next.records().size());
            assertEquals(logs.get(logs.size() - 1), next.records().get(0));
        }
    }

    @Test
    void aTagsScanOfBlocksWithoutTags_addsAsItReads_withinItsMemory() throws Exception {
        try (QueryEngine engine = engine(MIB, MIB, Duration.ofMinutes(1))) {
            for (var block : store.list(TenantId.DEFAULT, Signal.LOGS)) {
                java.nio.file.Files.delete(store.blockDir(block).resolve(dev.needle.blocks.index.BlockTags.FILE));
            }
            TagsResult tags = engine.logTags(TenantId.DEFAULT, TimeRange.ALL, key -> true);
            assertEquals(BLOCKS, tags.scanned());
            assertTrue(tags.tags().keys().containsKey("log.n"), tags.tags().keys().keySet().toString());
            assertEquals(0, engine.queryBytes());
        }
    }

    @Test
    void aQueryPastItsTime_stopsWithAClearError() throws Exception {
        try (QueryEngine engine = engine(64 * MIB, 64 * MIB, Duration.ofMillis(50))) {
            QueryAbortedException e = assertThrows(QueryAbortedException.class, () -> engine.searchLogs(TenantId.DEFAULT,
                    EVERYTHING, new RecordFilter<>(null, r -> sleep(5)), TimeRange.ALL, 100, Order.NEWEST_FIRST,
                    Mechanisms.ALL));
            assertEquals(QueryAbortedException.Reason.TIMEOUT, e.reason());
            assertTrue(e.getMessage().contains("ran longer than its limit of 50ms"), e.getMessage());
            assertEquals(0, engine.queryBytes());
        }
    }

    @Test
    void queriesThatTogetherPassTheServersShare_theLaterOneIsTurnedAway_theFirstFinishes() throws Exception {
        try (QueryEngine engine = engine(MIB, MIB + MIB / 2, Duration.ofMinutes(1))) {
            CountDownLatch holding = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            AtomicInteger passed = new AtomicInteger();
            // The first query holds its 1,000 newest records, then waits while the second asks for more.
            CompletableFuture<SearchResult<LogRecord>> first = CompletableFuture.supplyAsync(() -> {
                try {
                    return engine.searchLogs(TenantId.DEFAULT, QueryParser.parse("{ }", Signal.LOGS),
                            new RecordFilter<>(null, r -> {
                                if (passed.incrementAndGet() == 1_500) {
                                    holding.countDown();
                                    await(release);
                                }
                                return true;
                            }), TimeRange.ALL, 1_000, Order.NEWEST_FIRST, Mechanisms.ALL);
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertTrue(holding.await(30, TimeUnit.SECONDS));
            QueryAbortedException e = assertThrows(QueryAbortedException.class, () -> engine.searchLogs(TenantId.DEFAULT,
                    EVERYTHING, TimeRange.ALL, 3_000, Mechanisms.ALL));
            assertEquals(QueryAbortedException.Reason.BUSY, e.reason());
            release.countDown();
            assertEquals(1_000, first.get(30, TimeUnit.SECONDS).records().size());
            assertEquals(0, engine.queryBytes());
        }
    }

    private static boolean sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return true;
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
