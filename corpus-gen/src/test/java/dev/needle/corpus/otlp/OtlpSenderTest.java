package dev.needle.corpus.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.corpus.otlp.ScriptedServer.Reply;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The sender against a scripted server, for the replies a real needle gives only under load (ingest's {@code GeneratorLoadTest} sends to the real one). */
class OtlpSenderTest {

    private static SendOptions options(URI base, OtlpEncoding encoding, boolean gzip, String tenant, int maxAttempts) {
        return new SendOptions(base, 4, 0, encoding, gzip, tenant, maxAttempts, false);
    }

    @Test
    void sendLogs_429WithRetryAfterThen200_retriesOnceAfterTheAskedSecond() throws Exception {
        try (ScriptedServer server = new ScriptedServer(List.of(Reply.status(429, "1")), Reply.json(200, "{}"))) {
            SendOptions options = new SendOptions(server.baseUrl(), 1, 0, OtlpEncoding.JSON, true, "acme", 3, false);
            SendReport report = new OtlpSender(options).sendLogs(List.of(Records.logs(5, 0, 50, 0)).iterator(), n -> { });
            assertEquals(2, report.requests());
            assertEquals(1, report.retried());
            assertEquals(50, report.accepted());
            assertEquals(Map.of("200", 1L, "429", 1L), report.statuses());
            List<ScriptedServer.Received> received = server.received();
            long waited = received.get(1).nanoTime() - received.get(0).nanoTime();
            assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(950), "retried after " + waited / 1_000_000 + " ms");
            for (ScriptedServer.Received r : received) {
                assertEquals("/v1/logs", r.path());
                assertEquals("application/json", r.contentType());
                assertEquals("gzip", r.contentEncoding());
                assertEquals("acme", r.tenant());
            }
            assertEquals(2 * received.get(0).bodyBytes(), report.bytesSent(), "both attempts' bytes count");
        }
    }

    @Test
    void sendSpans_503sWithoutRetryAfter_retriedWithBackoffAndJsonPartialSuccessRead() throws Exception {
        // A number where OTLP/JSON writes a string, and snake_case: both are read.
        Reply partial = Reply.json(200, "{\"partial_success\":{\"rejected_spans\":4,\"error_message\":\"four bad\"}}");
        try (ScriptedServer server = new ScriptedServer(List.of(Reply.status(503, null), Reply.status(502, null), partial),
                Reply.json(200, "{}"))) {
            SendReport report = new OtlpSender(new SendOptions(URI.create(server.baseUrl() + "/"), 1, 0,
                    OtlpEncoding.PROTOBUF, false, null, 3, false))
                    .sendSpans(List.of(Records.spans(6, 0, 5, 2, 0)).iterator(), n -> { });
            assertEquals(3, report.requests());
            assertEquals(2, report.retried());
            assertEquals(6, report.accepted());
            assertEquals(4, report.rejected());
            assertEquals(Map.of("200", 1L, "502", 1L, "503", 1L), report.statuses());
            assertTrue(report.firstError().endsWith("four bad"), report.firstError());
            assertEquals("/v1/traces", server.received().get(0).path(), "a trailing slash on the base is not doubled");
            assertEquals("application/x-protobuf", server.received().get(0).contentType());
        }
    }

    @Test
    void send_requestsEncodedAhead_postedRetriedAndCountedAsWhenEncodedWhileSending() throws Exception {
        try (ScriptedServer server = new ScriptedServer(List.of(Reply.status(503, "0")), Reply.json(200, "{}"))) {
            OtlpSender sender = new OtlpSender(new SendOptions(server.baseUrl(), 1, 0, OtlpEncoding.JSON, true, "acme", 3,
                    false));
            EncodedRequests requests = sender.encodeLogs(Records.batches(Records.logs(6, 0, 30, 0), 10).iterator());
            assertEquals(Signal.LOGS, requests.signal());
            assertEquals(30, requests.records());
            assertEquals(List.of(10, 10, 10), requests.bodies().stream().map(EncodedRequests.Body::records).toList());
            AtomicLong done = new AtomicLong();

            SendReport report = sender.send(requests, done::addAndGet);

            assertEquals(4, report.requests());
            assertEquals(1, report.retried());
            assertEquals(30, report.recordsSent());
            assertEquals(30, report.accepted());
            assertEquals(30, done.get());
            assertEquals(Map.of("200", 3L, "503", 1L), report.statuses());
            List<ScriptedServer.Received> received = server.received();
            for (ScriptedServer.Received r : received) {
                assertEquals("/v1/logs", r.path());
                assertEquals("application/json", r.contentType());
                assertEquals("gzip", r.contentEncoding());
                assertEquals("acme", r.tenant());
            }
            assertEquals(requests.bytes() + requests.bodies().get(0).bytes().length, report.bytesSent(),
                    "the retried body's bytes count twice");
            assertEquals(report.bytesSent(), received.stream().mapToLong(ScriptedServer.Received::bodyBytes).sum());
        }
    }

    @Test
    void send_requestsEncodedOtherwise_refusedNamingBoth() throws Exception {
        EncodedRequests json = new OtlpSender(new SendOptions(URI.create("http://127.0.0.1:9"), 1, 0, OtlpEncoding.JSON,
                true, null, 1, true)).encodeSpans(List.of(Records.spans(7, 0, 2, 1, 0)).iterator());
        OtlpSender protobuf = new OtlpSender(new SendOptions(URI.create("http://127.0.0.1:9"), 1, 0,
                OtlpEncoding.PROTOBUF, true, null, 1, true));

        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> protobuf.send(json, n -> { }));

        assertTrue(e.getMessage().contains("encoded as json+gzip") && e.getMessage().contains("sends protobuf+gzip"),
                e.getMessage());
    }

    @Test
    void sendSpans_500_failedWithoutRetry() throws Exception {
        try (ScriptedServer server = new ScriptedServer(List.of(), Reply.status(500, null))) {
            SendReport report = new OtlpSender(options(server.baseUrl(), OtlpEncoding.PROTOBUF, false, null, 5))
                    .sendSpans(List.of(Records.spans(7, 0, 3, 1, 0)).iterator(), n -> { });
            assertEquals(1, report.requests());
            assertEquals(3, report.failed());
            assertTrue(report.firstError().contains("HTTP 500") && report.firstError().contains("scripted"),
                    report.firstError());
        }
    }

    @Test
    void sendSpans_nobodyListening_eachBatchFailsAfterMaxAttemptsAndTheRunStops() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        List<List<SpanRecord>> batches = Records.batches(Records.spans(8, 0, 100, 1, 0), 2);
        SendReport report = new OtlpSender(new SendOptions(URI.create("http://127.0.0.1:" + port), 2, 0,
                OtlpEncoding.PROTOBUF, false, null, 2, false)).sendSpans(batches.iterator(), n -> { });
        assertNotNull(report.stoppedBecause());
        assertTrue(report.stoppedBecause().startsWith(OtlpSender.STOP_AFTER_FAILED_BATCHES + " batches in a row failed"),
                report.stoppedBecause());
        long batchesTried = report.recordsSent() / 2;
        assertTrue(batchesTried >= OtlpSender.STOP_AFTER_FAILED_BATCHES && batchesTried < batches.size(), report.toText());
        assertEquals(report.recordsSent(), report.failed());
        assertEquals(2 * batchesTried, report.requests());
        assertEquals(batchesTried, report.retried());
        assertEquals(Map.of("ConnectException", 2 * batchesTried), report.statuses());
        assertTrue(report.firstError().contains("got no reply"), report.firstError());
    }

    @Test
    void dryRun_sendsNothingAndReportsTheEncodingRate() throws Exception {
        try (ScriptedServer server = new ScriptedServer(List.of(), Reply.json(200, "{}"))) {
            AtomicLong done = new AtomicLong();
            SendReport report = new OtlpSender(new SendOptions(server.baseUrl(), 4, 0, OtlpEncoding.JSON, true, null, 3, true))
                    .sendSpans(Records.batches(Records.spans(9, 0, 500, 4, 0), 100).iterator(), done::addAndGet);
            assertEquals(List.of(), server.received());
            assertTrue(report.dryRun());
            assertEquals(0, report.requests());
            assertEquals(2000, report.recordsSent());
            assertEquals(2000, done.get());
            assertEquals(0, report.accepted() + report.rejected() + report.failed());
            assertTrue(report.bytesSent() > 0);
            assertTrue(report.recordsPerSecond() > 0);
            assertTrue(report.toText().contains("dry run"), report.toText());
        }
    }

    @Test
    void targetRate_isNotExceeded() throws Exception {
        // Ten batches of 100 at 2,000 records/s: the tenth may start 0.45 s after the first, not before.
        SendReport report = new OtlpSender(new SendOptions(URI.create("http://127.0.0.1:9"), 4, 2_000,
                OtlpEncoding.PROTOBUF, false, null, 1, true))
                .sendSpans(Records.batches(Records.spans(10, 0, 1000, 1, 0), 100).iterator(), n -> { });
        assertEquals(1000, report.recordsSent());
        assertTrue(report.elapsedSeconds() >= 0.44, report.toText());
        assertTrue(report.elapsedSeconds() < 5, report.toText());
    }

    @Test
    void report_writesJson() throws Exception {
        SendReport report = new SendReport("spans", false, 3, 1, 20, 15, 3, 2, 4096, 2.0, 1.5, 9.0, 12.0,
                Map.of("200", 2L, "503", 1L), "HTTP 400: \"bad\"", null);
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            report.write(g);
        }
        assertEquals("{\"signal\":\"spans\",\"dryRun\":false,\"requests\":3,\"retried\":1,\"recordsSent\":20,"
                + "\"accepted\":15,\"rejected\":3,\"failed\":2,\"bytesSent\":4096,\"elapsedSeconds\":2.0,"
                + "\"recordsPerSecond\":10.0,\"acceptedPerSecond\":7.5,"
                + "\"latencyMillis\":{\"p50\":1.5,\"p99\":9.0,\"max\":12.0},\"statuses\":{\"200\":2,\"503\":1},"
                + "\"firstError\":\"HTTP 400: \\\"bad\\\"\",\"stoppedBecause\":null}", out.toString());
        assertTrue(report.toText().contains("accepted 15, rejected 3, failed 2; 4.0 KiB sent"), report.toText());
    }

    @Test
    void retryAfter_secondsOrHttpDate_elseBackoff() {
        assertEquals(TimeUnit.SECONDS.toNanos(3), OtlpSender.retryAfterNanos(" 3 "));
        assertEquals(0, OtlpSender.retryAfterNanos("0"));
        assertEquals(Long.MAX_VALUE, OtlpSender.retryAfterNanos("99999999999999999999999"));
        long date = OtlpSender.retryAfterNanos(DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now().plusSeconds(30)));
        assertTrue(date > TimeUnit.SECONDS.toNanos(28) && date <= TimeUnit.SECONDS.toNanos(30), Long.toString(date));
        assertEquals(-1, OtlpSender.retryAfterNanos(null));
        assertEquals(-1, OtlpSender.retryAfterNanos("soon"));
        assertEquals(-1, OtlpSender.retryAfterNanos("-1"));
        for (int attempt = 1; attempt < 100; attempt++) {
            long ceiling = Math.min(TimeUnit.SECONDS.toNanos(5), TimeUnit.MILLISECONDS.toNanos(100) << Math.min(attempt - 1, 20));
            long backoff = OtlpSender.backoffNanos(attempt);
            assertTrue(backoff >= ceiling / 2 && backoff <= ceiling, attempt + ": " + backoff);
        }
        assertTrue(OtlpSender.retryable(429) && OtlpSender.retryable(502) && OtlpSender.retryable(503)
                && OtlpSender.retryable(504));
        assertTrue(!OtlpSender.retryable(500) && !OtlpSender.retryable(400) && !OtlpSender.retryable(413));
    }
}
