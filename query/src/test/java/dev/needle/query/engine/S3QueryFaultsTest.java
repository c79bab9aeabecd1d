package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Clients;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.store.s3.S3Timeouts;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Fault;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * The engine over a bucket behind a {@link FaultProxy} whose GETs of one block's data.arrow hang:
 * once the client's timeouts and retries are spent, the answer is the other blocks' records,
 * PARTIAL, naming the block; healed, the whole answer. (500s and bodies cut short are tested
 * through the server's HTTP API, in the ingest module.)
 */
class S3QueryFaultsTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    /** Short, so that each hanging GET fails in a fraction of a second. */
    private static final S3Timeouts SHORT = new S3Timeouts(Duration.ofSeconds(2), Duration.ofMillis(200),
            Duration.ofSeconds(5));

    @TempDir
    Path dir;

    @Test
    void dataGetsOfOneBlockHanging_partialNamingIt_thenWholeOnceHealed() throws Exception {
        try (S3ProxyServer server = S3ProxyServer.start(); FaultProxy proxy = FaultProxy.start(server.endpoint());
             RootAllocator allocator = new RootAllocator();
             S3BlockStore store = new S3BlockStore(S3Clients.builder(proxy.endpoint(), true, SHORT)
                     .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                             AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))).build(),
                     server.createBucket("hangs"), "p", dir, Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE);
             QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2)) {
            Corpus c = Corpus.write(store, allocator, TENANT, 47, 3, 60);
            Expr everything = QueryParser.parse("{ span.code = \"200\" || span.code = \"404\" }", Signal.SPANS);
            SearchResult<SpanRecord> whole = engine.searchSpans(TENANT, everything, TimeRange.ALL, 100_000, Mechanisms.ALL);
            assertFalse(whole.partial());
            BlockRef hanging = c.spanBlocks.get(1);
            Bytes traceInIt = whole.records().stream()
                    .filter(s -> hanging.name().mayOverlap(s.startTimeUnixNano(), s.startTimeUnixNano()))
                    .findFirst().orElseThrow().traceId();

            FaultProxy.Injection injected = proxy.inject(Fault.hang().on("GET", "/" + hanging.name() + "/data\\.arrow"));
            SearchResult<SpanRecord> partial = engine.searchSpans(TENANT, everything, TimeRange.ALL, 100_000, Mechanisms.ALL);
            assertTrue(partial.partial());
            assertEquals(1, partial.problems().size(), partial.problems().toString());
            assertTrue(partial.problems().get(0).contains(hanging.name().toString()), partial.problems().toString());
            Set<SpanRecord> expected = new HashSet<>(whole.records());
            expected.removeIf(s -> hanging.name().mayOverlap(s.startTimeUnixNano(), s.startTimeUnixNano()));
            assertEquals(expected, new HashSet<>(partial.records()), "every other block's records, and only theirs");
            TraceResult trace = engine.trace(TENANT, traceInIt, TimeRange.ALL, Mechanisms.ALL, false);
            assertTrue(trace.partial());
            assertTrue(trace.problems().toString().contains(hanging.name().toString()), trace.problems().toString());
            assertTrue(injected.hits() >= 3, "the SDK retried the hanging GET");

            proxy.heal();
            assertEquals(new HashSet<>(whole.records()), new HashSet<>(
                    engine.searchSpans(TENANT, everything, TimeRange.ALL, 100_000, Mechanisms.ALL).records()));
            TraceResult healed = engine.trace(TENANT, traceInIt, TimeRange.ALL, Mechanisms.ALL, false);
            assertFalse(healed.partial());
            assertFalse(healed.spans().isEmpty());
        }
    }
}
