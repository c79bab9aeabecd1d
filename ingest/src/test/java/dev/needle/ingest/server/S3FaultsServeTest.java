package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.RowsOnDisk;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.ql.QueryParser;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Fault;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The server on a bucket of S3Proxy behind a {@link FaultProxy}: a block whose GETs fail makes
 * answers PARTIAL naming it while the other blocks' records still come, and a listing that fails
 * makes them 503; PUTs failing keep every
 * acknowledged record in the head and the write-ahead log, ingest refuses at the head's bound, and
 * once the store heals each acknowledged span is published exactly once, also across a restart
 * after a crash between uploads; and {@code needle serve} stops at start with one line for a
 * missing bucket, refused or missing credentials and an unreachable endpoint.
 */
class S3FaultsServeTest {

    /** Cuts only when the test asks (or at close). */
    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 64L << 20);
    /** Cuts every 100 ms; a head bound that a few dozen small requests reach. */
    private static final IngestLimits SMALL_HEAD = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofMillis(100), 256L << 10, 256L << 20, 64L << 20);
    private static final long PREFIX = 0x51;
    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final S3ProxyServer s3 = S3ProxyServer.perClassAsDefaultCredentials();
    private static int buckets;

    @TempDir
    Path dir;
    private FaultProxy proxy;
    private String bucket;

    @BeforeEach
    void startProxy() throws IOException {
        proxy = FaultProxy.start(s3.endpoint());
        bucket = s3.createBucket("faults-" + ++buckets);
    }

    @AfterEach
    void stopProxy() throws IOException {
        proxy.close();
    }

    private NeedleServer.Config config(Path data, IngestLimits limits) {
        return NeedleServer.Config.DEFAULTS.withData(data).withPorts(0, 0).withLimits(limits)
                .withS3(S3Location.parse("s3://" + bucket + "/needle", proxy.endpoint(), true));
    }

    /** The bucket as another node sees it, not through the proxy. */
    private S3BlockStore directStore(Clock clock) throws IOException {
        return new S3BlockStore(s3.client(), bucket, "needle", dir.resolve("check-" + System.nanoTime()), clock,
                S3BlockStore.DEFAULT_SWEEP_GRACE);
    }

    @Test
    void dataGetsOfOneBlockFailing_answersPartialNamingIt_othersWhole_thenAllOnceHealed() throws Exception {
        try (NeedleServer server = NeedleServer.start(config(dir.resolve("data"), NO_AGE_CUTS))) {
            for (int t = 1; t <= 3; t++) {
                assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(Spans.traceHex(PREFIX, t), 3)));
                server.pipeline().cutAndPublish();
            }
            List<BlockRef> blocks = server.store().list(TenantId.DEFAULT, Signal.SPANS);
            assertEquals(3, blocks.size());
            // Cut ids grow with the write-ahead log's sequence: the second block holds the second trace.
            String failing = blocks.get(1).name().toString();
            String hex = Spans.traceHex(PREFIX, 2);
            String search = "/api/search?limit=100&q=" + URLEncoder.encode("{ span.i = 1 }", StandardCharsets.UTF_8);

            for (Fault fault : List.of(Fault.status(500), Fault.truncate())) {
                FaultProxy.Injection injected = proxy.inject(fault.on("GET", "/" + failing + "/data\\.arrow"));

                JsonNode trace = JSON.readTree(Http.get(server.queryAddress(), "/api/v2/traces/" + hex).body());
                assertEquals("PARTIAL", trace.path("status").asText(), fault + ": " + trace);
                assertTrue(trace.path("message").asText().contains(failing), trace.toString());
                assertEquals(3, Http.trace(server.queryAddress(), Spans.traceHex(PREFIX, 1)).spans().size(),
                        "a trace whose blocks can be read is whole and COMPLETE");

                HttpResponse<byte[]> found = Http.get(server.queryAddress(), search);
                assertEquals(200, found.statusCode());
                assertEquals("PARTIAL", found.headers().firstValue("X-Needle-Status").orElseThrow());
                assertTrue(found.headers().firstValue("X-Needle-Message").orElseThrow().contains(failing));
                assertEquals(Set.of(Spans.traceHex(PREFIX, 1), Spans.traceHex(PREFIX, 3)), traceIds(found),
                        "the other blocks' traces, and only theirs");
                assertTrue(injected.hits() > 0);

                proxy.heal();
                assertEquals(3, Http.trace(server.queryAddress(), hex).spans().size());
                HttpResponse<byte[]> whole = Http.get(server.queryAddress(), search);
                assertEquals("COMPLETE", whole.headers().firstValue("X-Needle-Status").orElseThrow());
                assertEquals(Set.of(Spans.traceHex(PREFIX, 1), hex, Spans.traceHex(PREFIX, 3)), traceIds(whole));
            }
        }
    }

    /** Without a listing there is no partial answer to give: 503 with Retry-After, saying why, until the store heals. */
    @Test
    void listingFailing_is503WithRetryAfter_thenAnswersOnceHealed() throws Exception {
        try (NeedleServer server = NeedleServer.start(config(dir.resolve("data"), NO_AGE_CUTS))) {
            assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(Spans.traceHex(PREFIX, 1), 3)));
            server.pipeline().cutAndPublish();
            proxy.inject(Fault.status(500).on("GET", "list-type=2"));
            HttpResponse<byte[]> refused = Http.get(server.queryAddress(), "/api/v2/traces/" + Spans.traceHex(PREFIX, 1));
            assertEquals(503, refused.statusCode(), Http.text(refused));
            assertEquals("5", refused.headers().firstValue("Retry-After").orElseThrow());
            assertTrue(Http.text(refused).startsWith("the store could not be read, try again later: list s3://"),
                    Http.text(refused));
            proxy.heal();
            assertEquals(3, Http.trace(server.queryAddress(), Spans.traceHex(PREFIX, 1)).spans().size());
        }
    }

    private static Set<String> traceIds(HttpResponse<byte[]> search) throws IOException {
        Set<String> ids = new HashSet<>();
        JSON.readTree(search.body()).path("traces").forEach(t -> ids.add(t.path("traceID").asText()));
        return ids;
    }

    @Test
    void putsFailing_headKeepsTheRecordsAndIngestRefusesAtItsBound_thenEachAcknowledgedSpanIsPublishedOnce()
            throws Exception {
        List<SpanRecord> acknowledged = new ArrayList<>();
        try (NeedleServer server = NeedleServer.start(config(dir.resolve("data"), SMALL_HEAD))) {
            FaultProxy.Injection failing = proxy.inject(Fault.status(500).on("PUT", "/"));
            HttpResponse<byte[]> refused = null;
            for (int t = 1; t <= 500 && refused == null; t++) {
                List<SpanRecord> spans = Spans.of(Spans.traceHex(PREFIX, t), 20);
                HttpResponse<byte[]> answer = post(server, spans);
                if (answer.statusCode() == 200) {
                    acknowledged.addAll(spans);
                } else {
                    refused = answer;
                }
            }
            assertTrue(refused != null, "the head reached its bound");
            assertEquals(429, refused.statusCode(), Http.text(refused));
            assertTrue(refused.headers().firstValue("Retry-After").isPresent());
            waitFor(() -> server.pipeline().failedPublishes() >= 2, "two publish attempts failed");
            String metrics = Http.text(Http.get(server.queryAddress(), "/metrics"));
            assertTrue(metrics.lines().anyMatch(l -> l.matches("needle_ingest_publish_failures_total [1-9].*")), metrics);
            assertTrue(metrics.lines().anyMatch(l -> l.matches("needle_ingest_publish_backoff_seconds [1-9].*")), metrics);
            assertTrue(failing.hits() > 0);
            try (S3BlockStore direct = directStore(Clock.systemUTC())) {
                assertEquals(List.of(), direct.list(TenantId.DEFAULT, Signal.SPANS), "nothing half-published is visible");
            }
            assertEquals(acknowledged.size(), server.pipeline().head().rows(), "the head keeps every acknowledged span");

            proxy.heal();
            waitFor(() -> server.pipeline().head().rows() == 0, "the head is published once the store heals");
            waitFor(() -> server.pipeline().publishBackoff().isZero(), "publishing succeeds again: no wait");
            assertEquals(200, post(server, Spans.of(Spans.traceHex(PREFIX, 1000), 20)).statusCode());
            acknowledged.addAll(Spans.of(Spans.traceHex(PREFIX, 1000), 20));
        }
        assertPublishedOnce(acknowledged);
    }

    /**
     * meta.json PUTs fail, so each publish uploads data.arrow and the sidecars and stops: the block
     * is invisible; the server stops without publishing (as a crash would leave it), starts again on
     * the healed store, and publishes from its write-ahead log; a sweep past the grace period leaves
     * no object of an unpublished block.
     */
    @Test
    void crashBetweenUploads_invisible_republishedFromTheLogAfterRestart_leftoversSwept() throws Exception {
        List<SpanRecord> sent = new ArrayList<>(Spans.of(Spans.traceHex(PREFIX, 7), 5));
        FaultProxy.Injection failing = proxy.inject(Fault.status(500).on("PUT", "/meta\\.json$"));
        NeedleServer first = NeedleServer.start(config(dir.resolve("data"), NO_AGE_CUTS));
        try {
            assertEquals(200, Http.postSpans(first.otlpAddress(), sent));
            assertThrows(IOException.class, () -> first.pipeline().cutAndPublish());
            assertTrue(failing.hits() > 0);
            assertEquals(Set.of(), publishedBlockDirs(), "the block is invisible");
            assertEquals(1, blockDirs().size(), "though its data.arrow and sidecars were uploaded");
            assertEquals(5, Http.trace(first.queryAddress(), Spans.traceHex(PREFIX, 7)).spans().size(),
                    "acknowledged spans are answered from the head meanwhile");
        } finally {
            assertThrows(IOException.class, first::close, "stopping cannot publish either");
        }
        Set<String> leftover = blockDirs();

        proxy.heal();
        try (NeedleServer second = NeedleServer.start(config(dir.resolve("data"), NO_AGE_CUTS))) {
            assertEquals(5, Http.trace(second.queryAddress(), Spans.traceHex(PREFIX, 7)).spans().size());
            // More records in the cut than the first server's: another block name, so the leftover stays.
            List<SpanRecord> more = Spans.of(Spans.traceHex(PREFIX, 8), 5);
            assertEquals(200, Http.postSpans(second.otlpAddress(), more));
            sent.addAll(more);
        }
        assertPublishedOnce(sent);
        assertTrue(blockDirs().containsAll(leftover), "the leftover is kept for the grace period");
        assertFalse(publishedBlockDirs().containsAll(leftover));
        // A store opened two hours later sweeps as it opens.
        try (S3BlockStore later = directStore(Clock.offset(Clock.systemUTC(), Duration.ofHours(2)))) {
            assertEquals(later.list(TenantId.DEFAULT, Signal.SPANS).stream().map(r -> "needle/" + r)
                    .collect(Collectors.toSet()), blockDirs(), "swept: every object left is a published block's");
        }
    }

    /** The block directories of the bucket's objects, published or not: {@code needle/tenant/signal/block}; the index is no block's. */
    private Set<String> blockDirs() {
        try (S3Client raw = s3.client()) {
            return raw.listObjectsV2(b -> b.bucket(bucket)).contents().stream().map(S3Object::key)
                    .filter(k -> !k.endsWith("/" + BlockStore.INDEX_OBJECT))
                    .map(k -> k.substring(0, k.lastIndexOf('/'))).collect(Collectors.toSet());
        }
    }

    /** The block directories the store lists: those with a meta.json. */
    private Set<String> publishedBlockDirs() throws IOException {
        try (S3BlockStore direct = directStore(Clock.systemUTC())) {
            return direct.list(TenantId.DEFAULT, Signal.SPANS).stream().map(r -> "needle/" + r).collect(Collectors.toSet());
        }
    }

    @Test
    void serve_missingBucket_exits1SayingSo() {
        String err = serve(proxy.endpoint().toString(), "s3://no-such-bucket/needle");
        assertTrue(err.startsWith("needle serve: bucket 'no-such-bucket' does not exist at " + proxy.endpoint()), err);
    }

    @Test
    void serve_refusedCredentials_exits1SayingSo() {
        System.setProperty("aws.secretAccessKey", "wrong");
        try {
            String err = serve(proxy.endpoint().toString(), "s3://" + bucket + "/needle");
            assertTrue(err.startsWith("needle serve: the credentials were refused for bucket '" + bucket + "'"), err);
        } finally {
            System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
        }
    }

    /** Without the test's system properties, and with EC2's instance metadata off, the SDK's chain finds nothing. */
    @Test
    void serve_noCredentials_exits1SayingSo() {
        assumeTrue(System.getenv("AWS_ACCESS_KEY_ID") == null && System.getenv("AWS_PROFILE") == null
                && !Files.exists(Path.of(System.getProperty("user.home"), ".aws")), "this machine has AWS credentials");
        System.clearProperty("aws.accessKeyId");
        System.clearProperty("aws.secretAccessKey");
        System.setProperty("aws.disableEc2Metadata", "true");
        try {
            String err = serve(proxy.endpoint().toString(), "s3://" + bucket + "/needle");
            assertTrue(err.startsWith("needle serve: no credentials for bucket '" + bucket + "' at " + proxy.endpoint()
                    + ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE"), err);
        } finally {
            System.clearProperty("aws.disableEc2Metadata");
            System.setProperty("aws.accessKeyId", S3ProxyServer.ACCESS_KEY);
            System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
        }
    }

    @Test
    void serve_unreachableEndpoint_exits1SayingSo() throws IOException {
        String closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = "http://127.0.0.1:" + socket.getLocalPort();
        }
        String err = serve(closed, "s3://" + bucket + "/needle");
        assertTrue(err.startsWith("needle serve: cannot reach the S3 endpoint " + closed), err);
    }

    /** Runs {@code needle serve} on the bucket, expecting it to exit 1 with one line on standard error; returns the line. */
    private String serve(String endpoint, String store) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = ServeCommand.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int status = cli.execute("--data", dir.resolve("data").toString(), "--otlp-port", "0", "--query-port", "0",
                "--store", store, "--s3-endpoint", endpoint, "--s3-path-style");
        assertEquals(1, status, err::toString);
        assertEquals(1, err.toString().strip().lines().count(), err::toString);
        assertFalse(out.toString().contains("ready"), out::toString);
        return err.toString().strip();
    }

    private static HttpResponse<byte[]> post(NeedleServer server, List<SpanRecord> spans) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        OtlpJson.encodeSpans(spans, body);
        return Http.post(server.otlpAddress(), "/v1/traces", "application/json", body.toByteArray());
    }

    /** Every span of {@code expected} is in the bucket's blocks, and no row more: none lost, none twice. */
    private void assertPublishedOnce(List<SpanRecord> expected) throws Exception {
        try (S3BlockStore direct = directStore(Clock.systemUTC());
             QueryEngine engine = new QueryEngine(direct, HeadSource.EMPTY, 1 << 20, 2)) {
            assertEquals(expected.size(), RowsOnDisk.spans(direct, TenantId.DEFAULT), "rows on the bucket");
            List<SpanRecord> found = engine.searchSpans(TenantId.DEFAULT, QueryParser.parse("{ }", Signal.SPANS),
                    TimeRange.ALL, 1_000_000, Mechanisms.ALL).records();
            assertEquals(new HashSet<>(expected), new HashSet<>(found));
        }
    }

    /** Polls {@code condition} for up to a minute: how long the store takes to heal is not what is tested. */
    private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(20);
        }
    }
}
