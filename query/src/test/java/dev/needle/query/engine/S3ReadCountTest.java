package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.Version1Blocks;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Clients;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Fault;
import dev.needle.testkit.FaultProxy.Injection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * What lookups cost on a bucket of writer-version-3 blocks, counted on the wire by a
 * {@link FaultProxy} in front of S3Proxy and by the store in EXPLAIN, with every cache empty (a new
 * engine per lookup, no index): a block that TRACE_IDX rules out costs one GET (the sidecar, whole,
 * in the GET that opens it); a block that holds the trace four when one batch holds it, in three
 * round trips — TRACE_IDX; then meta.json and data.arrow's tail (its footer, in the opening GET: no
 * HEAD) at once; then the batch, header and every column in one GET (a trace lookup reads a batch
 * its zone maps keep whole, as they nearly always keep only the trace's) — and three when data.arrow
 * is smaller than the least GET (64 KiB), which then brings all of it; an absent attribute value
 * makes no GET of any data.arrow. Answers are those of the same records on a local store, in blocks
 * of version 3 and of version 2.
 */
class S3ReadCountTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final long SEED = 53;

    @TempDir
    Path dir;

    @Test
    void coldLookups_getsCounted_absentValueReadsNoData_answersAsLocalVersions3And2() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(); FaultProxy proxy = FaultProxy.start(server.endpoint());
             RootAllocator allocator = new RootAllocator();
             S3BlockStore s3 = new S3BlockStore(S3Clients.builder(proxy.endpoint(), true)
                     .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                             AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))).build(),
                     server.createBucket("counts"), "p", dir.resolve("staging"), Clock.systemUTC(),
                     S3BlockStore.DEFAULT_SWEEP_GRACE)) {
            Corpus c = Corpus.write(s3, allocator, TENANT, SEED, 3, 60);
            FsBlockStore v3 = new FsBlockStore(dir.resolve("v3"));
            Corpus.write(v3, allocator, TENANT, SEED, 3, 60);
            FsBlockStore v2 = new FsBlockStore(dir.resolve("v2"));
            Corpus v2Corpus = Corpus.write(v2, allocator, TENANT, SEED, 3, 60);
            for (BlockRef ref : v2Corpus.spanBlocks) {
                Version1Blocks.toVersion2(v2.blockDir(ref));
            }
            Injection dataGets = proxy.inject(Fault.delay(Duration.ZERO).on("GET", "/data\\.arrow"));

            try (QueryEngine onV3 = new QueryEngine(v3, HeadSource.EMPTY, 1 << 20, 1);
                 QueryEngine onV2 = new QueryEngine(v2, HeadSource.EMPTY, 1 << 20, 1)) {
                for (Bytes id : List.of(c.traceIds.get(0), c.traceIds.get(17), c.traceIds.get(c.traceIds.size() - 1),
                        c.absentTraceId())) {
                    TraceResult onS3;
                    long gets = proxy.requests("GET");
                    try (QueryEngine cold = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 1)) {
                        onS3 = cold.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
                    }
                    gets = proxy.requests("GET") - gets;
                    assertFalse(onS3.partial(), onS3.problems().toString());
                    Explain plan = onS3.spanPlan();
                    // The store keeps no index here: one GET finds none (404), one lists the blocks.
                    assertEquals(gets, plan.totals().requests() + 2, "every GET but the index's and the listing's is a block's: " + plan);
                    for (BlockDecision d : plan.blocks()) {
                        // These blocks are smaller than a GET's least size: data.arrow's tail is all of it.
                        assertEquals(d.decidedBy() == Step.TRACE_IDX ? 1 : 3, d.requests(), d.toString());
                    }
                    assertEquals(onV3.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false).spans(), onS3.spans());
                    assertEquals(onV2.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false).spans(), onS3.spans());
                }

                for (String q : List.of("{ span.user.id = \"u17\" }", "{ span.code = 404 }")) {
                    Expr absent = QueryParser.parse(q, Signal.SPANS);
                    long before = dataGets.hits();
                    SearchResult<SpanRecord> result;
                    try (QueryEngine cold = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 1)) {
                        result = cold.searchSpans(TENANT, absent, TimeRange.ALL, 100, Mechanisms.ALL);
                    }
                    assertTrue(result.records().isEmpty(), q);
                    assertEquals(0, dataGets.hits() - before, q + ": no GET of a data.arrow");
                    assertTrue(result.plan().blocks().stream().allMatch(d -> d.requests() == 1),
                            q + ": one GET a block, its ATTR_IDX: " + result.plan());
                }

                Expr present = QueryParser.parse("{ span.code = \"404\" }", Signal.SPANS);
                try (QueryEngine cold = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 1)) {
                    SearchResult<SpanRecord> result = cold.searchSpans(TENANT, present, TimeRange.ALL, 100_000,
                            Mechanisms.ALL);
                    assertFalse(result.records().isEmpty());
                    assertEquals(new HashSet<>(onV3.searchSpans(TENANT, present, TimeRange.ALL, 100_000,
                            Mechanisms.ALL).records()), new HashSet<>(result.records()));
                    assertEquals(new HashSet<>(onV2.searchSpans(TENANT, present, TimeRange.ALL, 100_000,
                            Mechanisms.ALL).records()), new HashSet<>(result.records()));
                }
            }
        }
    }

    /**
     * A block of six batches of about 400 KB: a cold trace lookup makes three GETs for it, then one
     * per batch its zone maps keep, and reads far less than the block; looked up again, one GET.
     */
    @Test
    void coldTraceLookup_largeBatches_oneGetPerBatchRead() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(); RootAllocator allocator = new RootAllocator();
             S3BlockStore s3 = new S3BlockStore(server.client(), server.createBucket("large"), "p",
                     dir.resolve("staging"), Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE)) {
            List<SpanRecord> spans = new RandomRecords(59).spans(1_500);
            BlockWriter writer = new BlockWriter(s3, allocator, 250);
            writer.writeSpans(TENANT, spans);
            FsBlockStore local = new FsBlockStore(dir.resolve("local"));
            new BlockWriter(local, allocator, 250).writeSpans(TENANT, spans);
            Bytes id = spans.get(700).traceId();
            try (QueryEngine cold = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 1);
                 QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 1)) {
                TraceResult result = cold.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
                assertEquals(onDisk.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false).spans(), result.spans());
                BlockDecision d = result.spanPlan().blocks().get(0);
                // TRACE_IDX, meta.json, data.arrow's tail; then each batch the zone maps keep, whole.
                assertTrue(d.batchesSkipped() >= 4, "of six batches, " + d);
                assertEquals(3 + d.batchesRead(), d.requests(), d.toString());
                long dataBytes = Files.size(local.blockDir(local.list(TENANT, Signal.SPANS).get(0)).resolve("data.arrow"));
                assertTrue(d.bytesRead() * 2 < dataBytes, d.bytesRead() + " bytes read of " + dataBytes);

                // Warm: the sidecar, meta.json and footer are cached decoded, the batches' ranges as bytes;
                // opening data.arrow (its size checked against meta.json) is the one GET left.
                TraceResult again = cold.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
                assertEquals(result.spans(), again.spans());
                assertEquals(1, again.spanPlan().blocks().get(0).requests(), again.spanPlan().toString());
            }
        }
    }

}
