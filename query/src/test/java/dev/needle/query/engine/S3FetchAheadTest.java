package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Clients;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.store.s3.S3Timeouts;
import dev.needle.query.ql.QueryParser;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Exchange;
import dev.needle.testkit.FaultProxy.Fault;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * Searches on a bucket, where a block's batches are fetched ahead of their reads (BlockScan's
 * {@link ReadAhead}), each with every cache empty (a new store and engine), counted on the wire by a
 * {@link FaultProxy}: the answers are those of a full scan of the same records on disk, with a limit
 * and without; a block's data GETs are at most one per batch fetched (without a limit the batches
 * read, with one at most about twice as many: waves that double) plus one per matched batch decoded;
 * EXPLAIN counts every request the proxy saw for the blocks; a GET that fails during a fetch-ahead
 * (500s, bodies cut short) makes the answer PARTIAL naming the block, never wrong. The store's index
 * is written, so data.arrow is opened without a request and the first GETs, made at once, learn its
 * ETag together.
 */
class S3FetchAheadTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    /** About one span in 40: a limit of 7 reads several batches of a block, in waves. */
    private static final String SPAN_QUERY =
            "{ resource.service.name = \"payment\" && span.http.response.status_code = 500 }";
    private static final String LOG_QUERY = "{ log.log.source = \"app\" }";
    private static final int ALL = 100_000;
    /** Short, so that failing GETs fail soon. */
    private static final S3Timeouts SHORT = new S3Timeouts(Duration.ofSeconds(2), Duration.ofMillis(500),
            Duration.ofSeconds(5));

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private static int buckets;

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FaultProxy proxy;
    private String bucket;
    private Corpus corpus;
    private FsBlockStore local;

    @BeforeEach
    void write() throws Exception {
        allocator = new RootAllocator();
        proxy = FaultProxy.start(server.endpoint());
        bucket = server.createBucket("ahead-" + ++buckets);
        try (S3BlockStore s3 = store()) {
            corpus = Corpus.write(s3, allocator, TENANT, 71, 3, 500);
            Corpus.writeIndex(s3, TENANT);
        }
        local = new FsBlockStore(dir.resolve("local"));
        Corpus.write(local, allocator, TENANT, 71, 3, 500);
    }

    @AfterEach
    void close() throws Exception {
        proxy.close();
        allocator.close();
    }

    /** A new store on the bucket, through the proxy: a new client and an empty cache of ranges. */
    private S3BlockStore store() throws IOException {
        return new S3BlockStore(S3Clients.builder(proxy.endpoint(), true, SHORT).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))).build(),
                bucket, "p", dir.resolve("staging"), Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE);
    }

    @Test
    void searches_answerAsAFullScanOnDisk_withBoundedGetsPerBlock() throws Exception {
        try (QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 1)) {
            for (int limit : List.of(ALL, 7)) {
                Explain spans = compare(onDisk, SPAN_QUERY, limit, (engine, mechanisms) -> engine.searchSpans(TENANT,
                        QueryParser.parse(SPAN_QUERY, Signal.SPANS), TimeRange.ALL, limit, mechanisms));
                assertTrue(limit == ALL || spans.blocks().stream().anyMatch(d -> d.batchesRead() >= 4),
                        "under the limit, a block read in waves of 1, 2, 4, ...: " + spans);
                compare(onDisk, LOG_QUERY, limit, (engine, mechanisms) -> engine.searchLogs(TENANT,
                        QueryParser.parse(LOG_QUERY, Signal.LOGS), TimeRange.ALL, limit, mechanisms));
            }
        }
    }

    /** A search asked of an engine with some mechanisms. */
    private interface Search<R> {
        SearchResult<R> ask(QueryEngine engine, Mechanisms mechanisms) throws Exception;
    }

    /**
     * {@code search} cold on the bucket with every mechanism answers as a full scan on disk, and its
     * GETs are bounded; returns its plan.
     */
    private <R> Explain compare(QueryEngine onDisk, String q, int limit, Search<R> search) throws Exception {
        SearchResult<R> scanned = search.ask(onDisk, Mechanisms.NONE);
        SearchResult<R> cold = cold(engine -> search.ask(engine, Mechanisms.ALL));
        assertFalse(cold.partial(), cold.problems().toString());
        assertFalse(scanned.records().isEmpty(), q);
        assertEquals(scanned.records(), cold.records(), q + ", limit " + limit);
        checkGets(cold.plan(), limit, q);
        return cold.plan();
    }

    /** One lookup on a new store and engine; the proxy's log holds its requests alone. */
    private <T> T cold(Lookup<T> lookup) throws Exception {
        proxy.takeLog();
        try (S3BlockStore store = store(); QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2)) {
            proxy.takeLog();
            return lookup.ask(engine);
        }
    }

    /** A lookup asked of an engine. */
    private interface Lookup<T> {
        T ask(QueryEngine engine) throws Exception;
    }

    /**
     * Each block read: EXPLAIN's requests are the proxy's for its files, and its data GETs at most one
     * per batch fetched ahead plus one per batch decoded (each read one batch or fewer).
     */
    private void checkGets(Explain plan, int limit, String q) {
        List<Exchange> log = proxy.takeLog();
        int readBlocks = 0;
        for (BlockDecision d : plan.blocks()) {
            List<Exchange> mine = log.stream().filter(e -> e.target().contains("/" + d.block() + "/")).toList();
            assertEquals(d.requests(), mine.size(), q + ": EXPLAIN counts the block's requests: " + d);
            long dataGets = mine.stream().filter(e -> e.target().contains("/data.arrow")).count();
            int fetched = limit == ALL ? d.batchesRead() : Math.max(0, 2 * d.batchesRead() - 1);
            assertTrue(dataGets <= fetched + d.batchesRead(), q + ", limit " + limit + ": " + dataGets
                    + " data GETs for " + d);
            if (d.decidedBy() == BlockDecision.Step.ROWS) {
                readBlocks++;
                assertTrue(dataGets >= 1, d.toString());
            }
        }
        assertTrue(readBlocks > 0, q + ": some block was read: " + plan);
    }

    @Test
    void getsFailingDuringTheFetchAhead_partialNamingTheBlock_thenWholeOnceHealed() throws Exception {
        String q = "{ span.code = \"200\" || span.code = \"404\" }";
        SearchResult<SpanRecord> whole = cold(engine -> engine.searchSpans(TENANT, QueryParser.parse(q, Signal.SPANS),
                TimeRange.ALL, ALL, Mechanisms.ALL));
        assertFalse(whole.partial());
        BlockRef failing = corpus.spanBlocks.get(1);
        Set<SpanRecord> others = new HashSet<>(whole.records());
        others.removeIf(s -> failing.name().mayOverlap(s.startTimeUnixNano(), s.startTimeUnixNano()));
        for (Fault fault : List.of(Fault.status(500), Fault.truncate())) {
            proxy.inject(fault.on("GET", "/" + failing.name() + "/data\\.arrow"));
            SearchResult<SpanRecord> partial = cold(engine -> engine.searchSpans(TENANT,
                    QueryParser.parse(q, Signal.SPANS), TimeRange.ALL, ALL, Mechanisms.ALL));
            assertTrue(partial.partial(), fault.toString());
            assertEquals(1, partial.problems().size(), partial.problems().toString());
            assertTrue(partial.problems().get(0).contains(failing.name().toString()), partial.problems().toString());
            assertEquals(others, new HashSet<>(partial.records()), "every other block's records, and only theirs");
            proxy.heal();
        }
        assertEquals(new HashSet<>(whole.records()), new HashSet<>(cold(engine -> engine.searchSpans(TENANT,
                QueryParser.parse(q, Signal.SPANS), TimeRange.ALL, ALL, Mechanisms.ALL)).records()));
    }
}
