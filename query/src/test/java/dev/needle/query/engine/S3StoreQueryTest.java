package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The engine over {@link S3BlockStore} in S3Proxy: the same corpus written through BlockWriter to a
 * bucket and to a local directory answers trace and attribute lookups alike, and a block whose
 * objects go missing or shrink under a query makes the answer partial, naming the block.
 */
class S3StoreQueryTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long SEED = 43;
    private static final List<String> SEARCHES = List.of("{ resource.service.name = \"payment\" }",
            "{ span.http.response.status_code = 500 }", "{ span.sampling.ratio = 0.25 && status = error }",
            "{ span.user.id = \"u17\" }" /* absent */, "{ span.code = \"404\" }",
            "{ span.code = 404 }" /* absent: the values are strings */, "{ name = \"op-3\" || span.retries = 2 }");

    @TempDir
    static Path dir;
    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private static RootAllocator allocator;
    private static FsBlockStore local;
    private static S3BlockStore s3;
    private static Corpus corpus;

    @BeforeAll
    static void writeBoth() throws Exception {
        allocator = new RootAllocator();
        local = new FsBlockStore(dir.resolve("local"));
        corpus = Corpus.write(local, allocator, TENANT, SEED, 5, 150);
        s3 = store("lookups");
        Corpus.write(s3, allocator, TENANT, SEED, 5, 150);
    }

    @AfterAll
    static void stop() throws Exception {
        s3.close();
        allocator.close();
    }

    private static S3BlockStore store(String bucket) throws IOException {
        return new S3BlockStore(server.client(), server.createBucket(bucket), "p", dir.resolve("staging-" + bucket),
                Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE);
    }

    @Test
    void traceLookups_answerAsOnTheLocalStore() throws IOException {
        assertEquals(corpus.spanBlocks.size(), s3.list(TENANT, Signal.SPANS).size());
        try (QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 2);
             QueryEngine onS3 = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 2)) {
            List<Bytes> ids = new ArrayList<>(corpus.traceIds.subList(0, 40));
            ids.add(corpus.absentTraceId());
            for (Bytes id : ids) {
                TraceResult expected = onDisk.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
                TraceResult actual = onS3.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
                assertFalse(actual.partial(), actual.problems().toString());
                assertEquals(expected.spans(), actual.spans(), id.toString());
                assertEquals(expected.logs(), actual.logs(), id.toString());
            }
        }
    }

    @Test
    void searches_answerAsOnTheLocalStore() throws Exception {
        try (QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 2);
             QueryEngine onS3 = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 2)) {
            int answered = 0;
            for (String q : SEARCHES) {
                Expr expr = QueryParser.parse(q, Signal.SPANS);
                SearchResult<SpanRecord> expected = onDisk.searchSpans(TENANT, expr, TimeRange.ALL, 100_000, Mechanisms.ALL);
                SearchResult<SpanRecord> actual = onS3.searchSpans(TENANT, expr, TimeRange.ALL, 100_000, Mechanisms.ALL);
                assertFalse(actual.partial(), actual.problems().toString());
                answered += actual.records().isEmpty() ? 0 : 1;
                assertEquals(new HashSet<>(expected.records()), new HashSet<>(actual.records()), q);
                assertEquals(expected.records().size(), actual.records().size(), q);
            }
            assertEquals(SEARCHES.size() - 2, answered, "every search but the two absent ones finds spans");
        }
    }

    /**
     * A warm engine (sidecars and block facts cached) whose block loses its data.arrow, then another
     * whose data.arrow is replaced by a shorter object: each answer is the others' blocks' records
     * exactly, and partial, naming the block.
     */
    @Test
    void getFailsUnderAQuery_partialNamingTheBlock() throws Exception {
        try (S3BlockStore store = store("faults"); S3Client raw = server.client();
             QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2)) {
            Corpus c = Corpus.write(store, allocator, TENANT, SEED, 4, 100);
            Expr everything = QueryParser.parse("{ span.code = \"200\" || span.code = \"404\" }", Signal.SPANS);
            SearchResult<SpanRecord> whole = engine.searchSpans(TENANT, everything, TimeRange.ALL, 100_000, Mechanisms.ALL);
            assertFalse(whole.partial());
            assertEquals(c.spans.size(), whole.records().size());

            BlockRef gone = c.spanBlocks.get(1);
            raw.deleteObject(b -> b.bucket("faults").key("p/" + gone + "/data.arrow"));
            BlockRef shrunk = c.spanBlocks.get(2);
            raw.putObject(b -> b.bucket("faults").key("p/" + shrunk + "/data.arrow"), RequestBody.fromBytes(new byte[100]));

            SearchResult<SpanRecord> partial = engine.searchSpans(TENANT, everything, TimeRange.ALL, 100_000, Mechanisms.ALL);
            assertTrue(partial.partial());
            assertEquals(2, partial.problems().size(), partial.problems().toString());
            assertTrue(partial.problems().stream().anyMatch(p -> p.contains(gone.name().toString())), partial.problems().toString());
            assertTrue(partial.problems().stream().anyMatch(p -> p.contains(shrunk.name().toString())), partial.problems().toString());
            Set<SpanRecord> expected = new HashSet<>(whole.records());
            expected.removeAll(spansOf(gone, c));
            expected.removeAll(spansOf(shrunk, c));
            assertEquals(expected, new HashSet<>(partial.records()));

            Bytes traceInGone = whole.records().stream().filter(s -> inBlock(s, gone)).findFirst().orElseThrow().traceId();
            TraceResult trace = engine.trace(TENANT, traceInGone, TimeRange.ALL, Mechanisms.ALL, false);
            assertTrue(trace.partial());
            assertTrue(trace.problems().toString().contains(gone.name().toString()), trace.problems().toString());
        }
    }

    /** The spans a block held: those of the corpus inside its time range (blocks of the corpus do not overlap). */
    private static List<SpanRecord> spansOf(BlockRef block, Corpus c) {
        return c.spans.stream().filter(s -> inBlock(s, block)).toList();
    }

    private static boolean inBlock(SpanRecord s, BlockRef block) {
        return block.name().mayOverlap(s.startTimeUnixNano(), s.startTimeUnixNano());
    }
}
