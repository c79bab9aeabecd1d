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
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Exchange;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * A search reads the newest blocks in waves: the first of as many blocks as the engine has threads,
 * each next twice as many, up to as many as it reads at once — on a bucket more than its threads
 * ({@link S3BlockStore#blocksReadAtOnce}), on disk its threads. With one thread and a limit that the
 * newest four blocks meet, a search on a bucket reads 1 + 2 + 4 blocks, on disk 4, and the others are
 * left unread. Answers, with limits and without, are those of a full scan on disk, and EXPLAIN counts
 * every request the store saw for each block.
 */
class S3SearchWavesTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    /** More blocks than the first three waves on a bucket read. */
    private static final int BLOCKS = 12;
    /** A quarter of the spans, in every block. */
    private static final String COMMON_QUERY = "{ resource.service.name = \"payment\" }";

    @TempDir
    Path dir;

    @Test
    void searchWithALimit_wavesDoubleUpToThePool_answersAsAFullScanOnDisk() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(); FaultProxy proxy = FaultProxy.start(server.endpoint());
             RootAllocator allocator = new RootAllocator();
             S3BlockStore s3 = new S3BlockStore(S3Clients.builder(proxy.endpoint(), true)
                     .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                             AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))).build(),
                     server.createBucket("waves"), "p", dir.resolve("staging"), Clock.systemUTC(),
                     S3BlockStore.DEFAULT_SWEEP_GRACE)) {
            Corpus.write(s3, allocator, TENANT, 29, BLOCKS, 60);
            Corpus.writeIndex(s3, TENANT);
            FsBlockStore local = new FsBlockStore(dir.resolve("local"));
            Corpus onDiskCorpus = Corpus.write(local, allocator, TENANT, 29, BLOCKS, 60);
            assertTrue(s3.blocksReadAtOnce(1) >= 4, "a bucket reads more blocks at once than one thread");
            Expr common = QueryParser.parse(COMMON_QUERY, Signal.SPANS);

            try (QueryEngine onDisk = new QueryEngine(local, HeadSource.EMPTY, 1 << 20, 1)) {
                List<SpanRecord> all = onDisk.searchSpans(TENANT, common, TimeRange.ALL, 100_000, Mechanisms.NONE)
                        .records();
                List<BlockRef> newestFirst = onDiskCorpus.spanBlocks.stream()
                        .sorted(Comparator.comparingLong((BlockRef b) -> b.name().endUnixNano()).reversed()).toList();
                // One more match than the newest three blocks hold: the fourth block meets the limit.
                int fourth = (int) all.stream().filter(s -> newestFirst.subList(0, 3).stream()
                        .anyMatch(b -> b.name().mayOverlap(s.startTimeUnixNano(), s.startTimeUnixNano()))).count() + 1;
                assertEquals(4, read(onDisk.searchSpans(TENANT, common, TimeRange.ALL, fourth, Mechanisms.ALL).plan()),
                        "on disk, one thread: waves of one block");

                for (int limit : List.of(1, fourth, 100_000)) {
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
                    int expected = limit == 1 ? 1 : limit == fourth ? 1 + 2 + 4 : cold.plan().blocks().size();
                    assertEquals(expected, read(cold.plan()), "limit " + limit + ": " + cold.plan());
                }
            }
        }
    }

    /** Blocks a search read: every block holds a match here, so all but those the limit left unread. */
    private static long read(Explain plan) {
        return plan.blocks().stream().filter(d -> d.decidedBy() != Step.LIMIT).count();
    }
}
