package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.head.Records;
import dev.needle.ingest.wal.WriteAheadLog;
import dev.needle.sidecar.BloomSidecar;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The server over real sockets: routing by port, /ready, /metrics, graceful close, reopening, retention. */
class NeedleServerTest {

    /** Nothing is cut by age during a test unless the test says so. */
    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 64L << 20);

    @TempDir
    Path dir;

    private NeedleServer start(Path data) throws IOException {
        return NeedleServer.start(ServerConfig.DEFAULTS.withData(data).withPorts(0, 0).withLimits(NO_AGE_CUTS));
    }

    @Test
    void ready_onceStarted_is200OnTheQueryPortOnly() throws Exception {
        try (NeedleServer server = start(dir)) {
            assertTrue(server.ready());
            HttpResponse<byte[]> ready = Http.get(server.queryAddress(), "/ready");
            assertEquals(200, ready.statusCode());
            assertEquals("ready\n", Http.text(ready));
            assertEquals(404, Http.get(server.otlpAddress(), "/ready").statusCode(), "the OTLP port serves OTLP only");
        }
    }

    @Test
    void ports_routeByConnector_eachPortServesOnlyItsOwnPaths() throws Exception {
        try (NeedleServer server = start(dir)) {
            List<SpanRecord> spans = Spans.of(Spans.traceHex(1, 1), 3);
            assertNotEquals(200, Http.postSpans(server.queryAddress(), spans), "the query port takes no OTLP");
            assertEquals(0, server.pipeline().head().rows());
            assertEquals(200, Http.postSpans(server.otlpAddress(), spans));
            assertEquals(200, Http.get(server.queryAddress(), "/api/echo").statusCode());
            assertNotEquals(200, Http.get(server.otlpAddress(), "/api/echo").statusCode(), "the OTLP port serves no queries");
            assertNotEquals(200, Http.get(server.otlpAddress(), "/metrics").statusCode());
        }
    }

    @Test
    void metrics_afterIngestAndQuery_countReceiverQueryAndIngest() throws Exception {
        try (NeedleServer server = start(dir)) {
            String trace = Spans.traceHex(2, 1);
            assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(trace, 7)));
            assertEquals(7, Http.trace(server.queryAddress(), trace).spans().size());

            HttpResponse<byte[]> response = Http.get(server.queryAddress(), "/metrics");
            assertEquals(200, response.statusCode());
            assertTrue(response.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
            String metrics = Http.text(response);
            assertEquals(7.0, sample(metrics, "needle_ingest_head_rows"));
            assertEquals(server.pipeline().head().heapBytes(), (long) sample(metrics, "needle_ingest_head_bytes"));
            assertEquals(walBytes(dir), (long) sample(metrics, "needle_ingest_wal_bytes"));
            assertEquals(0.0, sample(metrics, "needle_ingest_wal_pending_bytes"));
            assertEquals(1.0, sample(metrics, "needle_ingest_wal_fsync_seconds_count"), "one request, one group commit");
            assertEquals(0.0, sample(metrics, "needle_ingest_blocks_published_total"));
            assertEquals(7.0, sample(metrics, "needle_ingest_records_accepted_total{signal=\"spans\"}"));
            assertEquals(1.0, sample(metrics, "needle_query_lookups_total{kind=\"trace\",signal=\"spans\"}"));

            server.pipeline().cutAndPublish();
            String after = Http.text(Http.get(server.queryAddress(), "/metrics"));
            assertEquals(0.0, sample(after, "needle_ingest_head_rows"));
            assertEquals(1.0, sample(after, "needle_ingest_blocks_published_total"));
            List<BlockRef> published = server.store().list(TenantId.DEFAULT, Signal.SPANS);
            assertEquals(1, published.size());
            assertEquals(sidecarBytes(dir.resolve(published.get(0).toString())),
                    (long) sample(after, "needle_ingest_sidecar_bytes_published_total"));
        }
    }

    /** The bytes of the write-ahead log's segments in {@code data}. */
    private static long walBytes(Path data) throws IOException {
        try (Stream<Path> files = Files.list(data.resolve("wal"))) {
            long total = 0;
            for (Path f : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".wal"))::iterator) {
                total += Files.size(f);
            }
            return total;
        }
    }

    /** The bytes of a block's TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX. */
    private static long sidecarBytes(Path block) throws IOException {
        return Files.size(block.resolve(BloomSidecar.TRACE_IDX)) + Files.size(block.resolve(BloomSidecar.ATTR_IDX))
                + Files.size(block.resolve(BloomSidecar.BATCH_ATTR_IDX));
    }

    @Test
    void start_withADamagedLogSegment_reportsItInMetricsAndServesTheRest() throws Exception {
        // A log as a server left it after a crash: three segments of one trace each, never published.
        WriteAheadLog<Void> log = WriteAheadLog.<Void>open(dir.resolve("wal"), 1, 1 << 20, (e, a) -> { }, n -> { }).log();
        for (int t = 0; t < 3; t++) {
            byte[] payload = Records.of(SignalKind.SPANS, Spans.of(Spans.traceHex(5, t), 4)).encode();
            log.append(Signal.SPANS, TenantId.DEFAULT, payload, payload.length, null).get();
        }
        log.close();
        Path middle;
        try (Stream<Path> files = Files.list(dir.resolve("wal"))) {
            middle = files.filter(f -> f.toString().endsWith(".wal")).sorted().toList().get(1);
        }
        byte[] bytes = Files.readAllBytes(middle);
        bytes[bytes.length / 2] ^= 1;
        Files.write(middle, bytes);

        try (NeedleServer server = start(dir)) {
            String metrics = Http.text(Http.get(server.queryAddress(), "/metrics"));
            assertEquals(1.0, sample(metrics, "needle_ingest_wal_damaged_segments"));
            assertEquals(4, Http.trace(server.queryAddress(), Spans.traceHex(5, 0)).spans().size());
            assertEquals(0, Http.trace(server.queryAddress(), Spans.traceHex(5, 1)).spans().size(), "in the damage");
            assertEquals(4, Http.trace(server.queryAddress(), Spans.traceHex(5, 2)).spans().size());
        }
        assertTrue(Files.isRegularFile(dir.resolve("wal").resolve(WriteAheadLog.DAMAGED).resolve(middle.getFileName())));
    }

    /** The value of the sample whose name and labels are exactly {@code series}. */
    private static double sample(String metrics, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(metrics);
        assertTrue(m.find(), () -> series + " is not in\n" + metrics);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void close_publishesTheHead_andReopeningFindsEverySpanOnce() throws Exception {
        Set<String> traces = new HashSet<>();
        try (NeedleServer server = start(dir)) {
            for (int t = 0; t < 20; t++) {
                String trace = Spans.traceHex(3, t);
                traces.add(trace);
                assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(trace, 5)));
            }
            assertEquals(100, server.pipeline().head().rows());
            assertTrue(FsBlockStore.readOnly(dir).list(TenantId.DEFAULT, Signal.SPANS).isEmpty(), "nothing is cut before close");
        }
        List<BlockRef> blocks = FsBlockStore.readOnly(dir).list(TenantId.DEFAULT, Signal.SPANS);
        assertEquals(1, blocks.size(), "close published the head, 100 spans, in one block");
        assertTrue(Files.isRegularFile(dir.resolve("wal").resolve("checkpoint")));

        try (NeedleServer reopened = start(dir)) {
            assertEquals(0, reopened.pipeline().head().rows(), "nothing published is replayed");
            for (String trace : traces) {
                List<SpanRecord> spans = Http.trace(reopened.queryAddress(), trace).spans();
                assertEquals(5, spans.size(), trace);
                assertEquals(5, spans.stream().map(SpanRecord::spanId).distinct().count(), trace);
            }
        }
    }

    @Test
    void start_aSecondServerOnTheSameDirectory_isRefusedAndTheFirstKeepsItsData() throws Exception {
        try (NeedleServer first = start(dir)) {
            String trace = Spans.traceHex(4, 1);
            assertEquals(200, Http.postSpans(first.otlpAddress(), Spans.of(trace, 3)));
            IOException refused = assertThrows(IOException.class, () -> start(dir));
            assertTrue(refused.getMessage().contains("is in use by another needle process")
                    && refused.getMessage().contains("pid " + ProcessHandle.current().pid()), refused.getMessage());
            assertEquals(3, first.pipeline().head().rows(), "the refused server replayed and deleted nothing");
            assertEquals(3, Http.trace(first.queryAddress(), trace).spans().size());
        }
        try (NeedleServer next = start(dir)) {
            assertTrue(next.ready(), "a stopped server's lock is released");
        }
    }

    /**
     * A client that writes its whole body before it reads (Python's http.client, curl with
     * {@code -H 'Expect:'}, the OTel SDKs) must read the 413, or it retries the same request for ever.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void oversizeBody_sentWhole_theClientReadsThe413(boolean contentLength) throws Exception {
        ServerConfig config = ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0).withLimits(NO_AGE_CUTS).withMaxRequestBytes(1 << 20);
        try (NeedleServer server = NeedleServer.start(config);
             Socket socket = new Socket(server.otlpAddress().getAddress(), server.otlpAddress().getPort())) {
            socket.setSoTimeout(30_000);
            int bodyBytes = 70 << 20;
            OutputStream out = socket.getOutputStream();
            out.write(("POST /v1/traces HTTP/1.1\r\nHost: needle\r\nContent-Type: application/x-protobuf\r\n"
                    + (contentLength ? "Content-Length: " + bodyBytes : "Transfer-Encoding: chunked")
                    + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            byte[] chunk = new byte[1 << 16];
            for (int sent = 0; sent < bodyBytes; sent += chunk.length) {
                if (!contentLength) {
                    out.write((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
                }
                out.write(chunk);
                if (!contentLength) {
                    out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
                }
            }
            if (!contentLength) {
                out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            assertEquals("HTTP/1.1 413 Payload Too Large", in.readLine());
        }
    }

    @Test
    void close_withAnIdleKeepAliveConnection_doesNotWaitForIt() throws Exception {
        NeedleServer server = start(dir);
        // The shared client keeps its connections to both ports open after these.
        assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(Spans.traceHex(4, 1), 1)));
        assertEquals(200, Http.get(server.queryAddress(), "/ready").statusCode());
        long started = System.nanoTime();
        server.close();
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertTrue(millis < 5_000, "close took " + millis + " ms");
        InetSocketAddress query = server.queryAddress();
        assertThrows(IOException.class, () -> Http.get(query, "/ready"), "nothing listens any more");
    }

    @Test
    void retention_deletesBlocksOlderThanIt_atStart() throws Exception {
        try (NeedleServer server = start(dir)) {
            assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(Spans.traceHex(5, 1), 3)));
        }
        assertEquals(1, FsBlockStore.readOnly(dir).list(TenantId.DEFAULT, Signal.SPANS).size());
        // The test spans are from 2025-11-29: older than a day whenever this runs.
        ServerConfig config = ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0).withLimits(NO_AGE_CUTS)
                .withRetention(Duration.ofDays(1));
        try (NeedleServer server = NeedleServer.start(config)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!server.store().list(TenantId.DEFAULT, Signal.SPANS).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(List.of(), server.store().list(TenantId.DEFAULT, Signal.SPANS));
            assertEquals(404, Http.get(server.queryAddress(), "/api/v2/traces/" + Spans.traceHex(5, 1)).statusCode());
        }
    }
}
