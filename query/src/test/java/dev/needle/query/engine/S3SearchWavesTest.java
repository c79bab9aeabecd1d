package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.FaultProxy;
import dev.needle.blocks.store.FaultProxy.Exchange;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.S3BlockStore;
import dev.needle.blocks.store.S3ProxyServer;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * A search on a bucket reads the newest blocks in waves as wide as the blocks the engine reads at
 * once there ({@link S3BlockStore#blocksReadAtOnce}), not as its threads: with a limit that the newest
 * block meets, the first wave reads that many blocks and leaves the older ones unread, where on disk
 * (one thread) one block is read. Answers, with limits and without, are those of a full scan on disk,
 * and EXPLAIN counts every request the store saw for each block.
 */
class S3SearchWavesTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    /** More blocks than are read at once. */
    private static final int BLOCKS = 12;
    /** A quarter of the spans, in every block. */
    private static final String COMMON_QUERY = "{ resource.service.name = \"payment\" }";

    @TempDir
    Path dir;

    @Test
    void searchWithALimit_firstWaveSpansThePool_answersAsAFullScanOnDisk() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(); FaultProxy proxy = FaultProxy.start(server.endpoint());
             RootAllocator allocator = new RootAllocator();
             S3BlockStore s3 = new S3BlockStore(S3BlockStore.clientBuilder(proxy.endpoint(), true)
                     .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                             AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))).build(),
                     server.createBucket("waves"), "p", dir.resolve("staging"), Clock.systemUTC(),
                     S3BlockStore.DEFAULT_SWEEP_GRACE)) {
            Corpus.write(s3, allocator, TENANT, 29, BLOCKS, 60);
            Corpus.writeIndex(s3, TENANT);
            FsBlockStore local = new FsBlockStore(dir.resolve("local"));
            Corpus.write(local, allocator, TENANT, 29, BLOCKS, 60);
            int atOnce = s3.blocksReadAtOnce(1);
            Expr common = QueryParser.parse(COMMON_QUERY, Signal.SPANS);

            try (QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 1)) {
                SearchResult<SpanRecord> firstOnDisk = onDisk.searchSpans(TENANT, common, TimeRange.ALL, 1, Mechanisms.ALL);
                assertEquals(1, count(firstOnDisk.plan(), Step.ROWS), "on disk, one thread: " + firstOnDisk.plan());

                for (int limit : List.of(1, 40, 100_000)) {
                    proxy.takeLog();
                    SearchResult<SpanRecord> cold;
                    try (QueryEngine engine = new QueryEngine(s3, HeadSource.EMPTY, 1 << 20, 1)) {
                        cold = engine.searchSpans(TENANT, common, TimeRange.ALL, limit, Mechanisms.ALL);
                    }
                    assertFalse(cold.partial(), cold.problems().toString());
                    assertEquals(onDisk.searchSpans(TENANT, common, TimeRange.ALL, limit, Mechanisms.NONE).records(),
                            cold.records(), "limit " + limit);
                    List<Exchange> log = proxy.takeLog();
                    for (BlockDecision d : cold.plan().blocks()) {
                        assertEquals(d.requests(), log.stream().filter(e -> e.target().contains("/" + d.block() + "/"))
                                .count(), "EXPLAIN counts the block's requests: " + d);
                    }
                    if (limit == 1) {
                        assertEquals(atOnce, count(cold.plan(), Step.ROWS), "the first wave: " + cold.plan());
                        assertEquals(cold.plan().blocks().size() - atOnce, count(cold.plan(), Step.LIMIT), cold.plan().toString());
                    }
                }
            }
        }
    }

    private static long count(Explain plan, Step step) {
        return plan.blocks().stream().filter(d -> d.decidedBy() == step).count();
    }
}
