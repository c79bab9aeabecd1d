package dev.needle.corpus.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.otlp.ScriptedServer.Reply;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.server.NeedleServer;
import java.io.IOException;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/** The sender against the real needle server over real sockets, and against a scripted one for replies needle gives only under load. */
class OtlpSenderTest {

    /** Nothing is cut by age or size during a test: the head is published when the server closes. */
    private static final IngestLimits NO_CUTS = new IngestLimits(300_000, 300_000, 256L << 20, Duration.ofHours(1),
            1L << 30, 256L << 20, 64L << 20);

    @TempDir
    Path dir;

    private static SendOptions options(URI base, OtlpEncoding encoding, boolean gzip, String tenant, int maxAttempts) {
        return new SendOptions(base, 4, 0, encoding, gzip, tenant, maxAttempts, false);
    }

    private static URI base(NeedleServer server) {
        return URI.create("http://127.0.0.1:" + server.otlpAddress().getPort());
    }

    @ParameterizedTest
    @CsvSource({"PROTOBUF,false,", "JSON,false,", "PROTOBUF,true,tenant-a", "JSON,true,tenant-b"})
    void send_spansAndLogsToTheRealServer_everyAcceptedRecordIsInItsBlocks(OtlpEncoding encoding, boolean gzip,
                                                                          String tenant) throws Exception {
        List<SpanRecord> spans = new ArrayList<>();
        for (int service = 0; service < 3; service++) {
            spans.addAll(Records.spans(1, service * 1000, 250, 4, service));
        }
        List<LogRecord> logs = Records.logs(1, 0, 2000, 5);
        AtomicLong spansDone = new AtomicLong();
        AtomicLong logsDone = new AtomicLong();
        SendReport spanReport;
        SendReport logReport;
        try (NeedleServer server = NeedleServer.start(NeedleServer.Config.DEFAULTS.withData(dir).withPorts(0, 0)
                .withLimits(NO_CUTS))) {
            OtlpSender sender = new OtlpSender(options(base(server), encoding, gzip, tenant, 3));
            spanReport = sender.sendSpans(Records.batches(spans, 97).iterator(), spansDone::addAndGet);
            logReport = sender.sendLogs(Records.batches(logs, 128).iterator(), logsDone::addAndGet);
            assertEquals(spans.size() + logs.size(), server.pipeline().head().rows(), "acknowledged means in the head");
        }

        assertClean(spanReport, spans.size(), 31);
        assertClean(logReport, logs.size(), 16);
        assertEquals(spans.size(), spansDone.get());
        assertEquals(logs.size(), logsDone.get());

        TenantId t = TenantId.fromHeader(tenant);
        List<SpanRecord> storedSpans = stored(Signal.SPANS, t, (root, row) -> new SpanColumns(root).read(row));
        List<LogRecord> storedLogs = stored(Signal.LOGS, t, (root, row) -> new LogColumns(root).read(row));
        assertEquals(spanReport.accepted(), storedSpans.size());
        assertEquals(logReport.accepted(), storedLogs.size());
        assertEquals(ids(spans, SpanRecord::traceId), ids(storedSpans, SpanRecord::traceId), "every sent trace id is stored");
        assertEquals(ids(spans, s -> s.traceId().hex() + "/" + s.spanId().hex()),
                ids(storedSpans, s -> s.traceId().hex() + "/" + s.spanId().hex()), "every span, once");
        assertEquals(ids(logs, LogRecord::traceId), ids(storedLogs, LogRecord::traceId));
        assertEquals(new HashSet<>(spans), new HashSet<>(storedSpans), "the stored spans are the sent ones, field for field");
    }

    private static void assertClean(SendReport report, long records, long requests) {
        assertEquals(requests, report.requests(), report.toText());
        assertEquals(records, report.recordsSent(), report.toText());
        assertEquals(records, report.accepted(), report.toText());
        assertEquals(0, report.rejected(), report.toText());
        assertEquals(0, report.failed(), report.toText());
        assertEquals(0, report.retried(), report.toText());
        assertEquals(Map.of("200", requests), report.statuses());
        assertNull(report.firstError());
        assertNull(report.stoppedBecause());
        assertTrue(report.bytesSent() > 0);
        assertTrue(report.latencyMaxMillis() >= report.latencyP99Millis() && report.latencyP99Millis() >= report.latencyP50Millis()
                && report.latencyP50Millis() > 0, report.toText());
        assertTrue(report.acceptedPerSecond() > 0);
    }

    private interface RowReader<T> {
        T read(VectorSchemaRoot root, int row) throws IOException;
    }

    /** Every record of {@code signal} in the published blocks of {@code tenant}. */
    private <T> List<T> stored(Signal signal, TenantId tenant, RowReader<T> reader) throws IOException {
        FsBlockStore store = FsBlockStore.readOnly(dir);
        List<T> out = new ArrayList<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            for (BlockRef block : store.list(tenant, signal)) {
                try (BlockReader blocks = BlockReader.open(store, block, allocator)) {
                    for (int batch = 0; batch < blocks.batchCount(); batch++) {
                        try (VectorSchemaRoot root = blocks.readAll(batch)) {
                            for (int row = 0; row < root.getRowCount(); row++) {
                                out.add(reader.read(root, row));
                            }
                        }
                    }
                }
            }
        }
        return out;
    }

    private static <T, K> Set<K> ids(List<T> records, java.util.function.Function<T, K> id) {
        return records.stream().map(id).collect(Collectors.toSet());
    }

    @ParameterizedTest
    @EnumSource(OtlpEncoding.class)
    void sendSpans_fiveByteTraceIds_countedRejectedFromThePartialSuccess(OtlpEncoding encoding) throws Exception {
        List<SpanRecord> spans = new ArrayList<>(Records.spans(2, 0, 10, 1, 0));
        for (int i : new int[] {2, 5, 7}) {
            SpanRecord s = spans.get(i);
            spans.set(i, new SpanRecord(s.resource(), s.scope(), Bytes.fromHex("0102030405"), s.spanId(), s.traceState(),
                    s.parentSpanId(), s.flags(), s.name(), s.kind(), s.startTimeUnixNano(), s.endTimeUnixNano(),
                    s.attributes(), 0, s.events(), 0, s.links(), 0, s.statusCode(), s.statusMessage()));
        }
        try (NeedleServer server = NeedleServer.start(NeedleServer.Config.DEFAULTS.withData(dir).withPorts(0, 0)
                .withLimits(NO_CUTS))) {
            SendReport report = new OtlpSender(options(base(server), encoding, false, null, 3))
                    .sendSpans(List.of(spans).iterator(), n -> { });
            assertEquals(7, server.pipeline().head().rows());
            assertEquals(10, report.recordsSent());
            assertEquals(7, report.accepted());
            assertEquals(3, report.rejected());
            assertEquals(0, report.failed());
            assertEquals(Map.of("200", 1L), report.statuses());
            assertNotNull(report.firstError());
            assertTrue(report.firstError().contains("trace_id has 5 bytes"), report.firstError());
        }
    }

    @Test
    void sendSpans_invalidTenant_the400RejectsTheBatchWithTheServersMessage() throws Exception {
        try (NeedleServer server = NeedleServer.start(NeedleServer.Config.DEFAULTS.withData(dir).withPorts(0, 0))) {
            SendReport report = new OtlpSender(options(base(server), OtlpEncoding.PROTOBUF, false, "no/slashes", 3))
                    .sendSpans(Records.batches(Records.spans(3, 0, 10, 2, 0), 5).iterator(), n -> { });
            assertEquals(20, report.rejected());
            assertEquals(0, report.accepted() + report.failed());
            assertEquals(4, report.requests(), "a 400 is not retried");
            assertEquals(Map.of("400", 4L), report.statuses());
            assertTrue(report.firstError().startsWith("HTTP 400 from ") && report.firstError().contains("X-Scope-OrgID"),
                    report.firstError());
            assertEquals(0, server.pipeline().head().rows());
        }
    }

    @Test
    void sendSpans_serverAtItsHeadBound_its429CountsFailedOnceNoAttemptIsLeft() throws Exception {
        IngestLimits full = new IngestLimits(300_000, 300_000, 256L << 20, Duration.ofHours(1), 1, 256L << 20, 64L << 20);
        try (NeedleServer server = NeedleServer.start(NeedleServer.Config.DEFAULTS.withData(dir).withPorts(0, 0)
                .withLimits(full))) {
            SendReport report = new OtlpSender(options(base(server), OtlpEncoding.JSON, false, null, 1))
                    .sendSpans(Records.batches(Records.spans(4, 0, 6, 1, 0), 2).iterator(), n -> { });
            assertEquals(Map.of("429", 3L), report.statuses());
            assertEquals(6, report.failed());
            assertEquals(0, report.retried());
            assertTrue(report.firstError().contains("gave up after 1 attempt") && report.firstError().contains("head"),
                    report.firstError());
        }
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
