package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.corpus.FullScan;
import dev.needle.corpus.Manifest;
import dev.needle.corpus.cli.GenCommand;
import dev.needle.corpus.otlp.EncodedRequests;
import dev.needle.corpus.otlp.OtlpEncoding;
import dev.needle.corpus.otlp.OtlpSender;
import dev.needle.corpus.otlp.Records;
import dev.needle.corpus.otlp.SendOptions;
import dev.needle.corpus.otlp.SendReport;
import dev.needle.ingest.IngestLimits;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

/** corpus-gen's sender and {@code needle gen --send} against the real server over real sockets: what they count is what is stored. */
class GeneratorLoadTest {

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
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0)
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

    @ParameterizedTest
    @CsvSource({"PROTOBUF,false", "JSON,true"})
    void send_requestsEncodedAhead_everyRecordIsInItsBlocksOnce(OtlpEncoding encoding, boolean gzip) throws Exception {
        List<SpanRecord> spans = Records.spans(5, 0, 400, 3, 1);
        List<LogRecord> logs = Records.logs(5, 0, 900, 2);
        OtlpSender sender = new OtlpSender(options(URI.create("http://127.0.0.1:9"), encoding, gzip, null, 3));
        EncodedRequests encodedSpans = sender.encodeSpans(Records.batches(spans, 113).iterator());
        EncodedRequests encodedLogs = sender.encodeLogs(Records.batches(logs, 100).iterator());
        assertEquals(spans.size(), encodedSpans.records());
        assertEquals(11, encodedSpans.bodies().size());
        assertEquals(9, encodedLogs.bodies().size());
        AtomicLong spansDone = new AtomicLong();
        SendReport spanReport;
        SendReport logReport;
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0)
                .withLimits(NO_CUTS))) {
            // The bodies were made before the server's port was known: they name no endpoint, the sender does.
            OtlpSender to = new OtlpSender(options(base(server), encoding, gzip, null, 3));
            spanReport = to.send(encodedSpans, spansDone::addAndGet);
            logReport = to.send(encodedLogs, n -> { });
        }

        assertClean(spanReport, spans.size(), 11);
        assertClean(logReport, logs.size(), 9);
        assertEquals(encodedSpans.bytes(), spanReport.bytesSent());
        assertEquals(spans.size(), spansDone.get());
        List<SpanRecord> storedSpans = stored(Signal.SPANS, TenantId.DEFAULT, (root, row) -> new SpanColumns(root).read(row));
        List<LogRecord> storedLogs = stored(Signal.LOGS, TenantId.DEFAULT, (root, row) -> new LogColumns(root).read(row));
        assertEquals(spans.size(), storedSpans.size());
        assertEquals(new HashSet<>(spans), new HashSet<>(storedSpans), "the stored spans are the sent ones, field for field");
        assertEquals(logs.size(), storedLogs.size());
        assertEquals(new HashSet<>(logs), new HashSet<>(storedLogs));
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

    private static <T, K> Set<K> ids(List<T> records, Function<T, K> id) {
        return records.stream().map(id).collect(Collectors.toSet());
    }

    @ParameterizedTest
    @EnumSource(OtlpEncoding.class)
    void sendSpans_fiveByteTraceIds_countedRejectedFromThePartialSuccess(OtlpEncoding encoding) throws Exception {
        List<SpanRecord> spans = new ArrayList<>(Records.spans(2, 0, 10, 1, 0));
        for (int i : new int[] {2, 5, 7}) {
            SpanRecord s = spans.get(i);
            spans.set(i, s.toBuilder().traceId(Bytes.fromHex("0102030405")).droppedAttributesCount(0)
                    .droppedEventsCount(0).droppedLinksCount(0).build());
        }
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0)
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
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0))) {
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
        IngestLimits full = new IngestLimits(300_000, 300_000, 256L << 20, Duration.ofHours(1), 1, Duration.ZERO,
                256L << 20, 64L << 20);
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0)
                .withLimits(full))) {
            SendReport report;
            // The publisher cuts under the pipeline's monitor (cutAndPublish is synchronized): held here, it
            // cannot make room, as when publishing falls behind, and the head stays at its bound.
            synchronized (server.pipeline()) {
                // An empty head takes one request whatever its size; from then on the head is at its bound.
                SendReport first = new OtlpSender(options(base(server), OtlpEncoding.JSON, false, null, 1))
                        .sendSpans(Records.batches(Records.spans(3, 0, 1, 1, 0), 1).iterator(), n -> { });
                assertEquals(Map.of("200", 1L), first.statuses());
                report = new OtlpSender(options(base(server), OtlpEncoding.JSON, false, null, 1))
                        .sendSpans(Records.batches(Records.spans(4, 0, 6, 1, 0), 2).iterator(), n -> { });
            }
            assertEquals(Map.of("429", 3L), report.statuses());
            assertEquals(6, report.failed());
            assertEquals(0, report.retried());
            assertTrue(report.firstError().contains("gave up after 1 attempt") && report.firstError().contains("head"),
                    report.firstError());
        }
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new GenCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int exit = cli.execute(args);
        return new Run(exit, out.toString(), err.toString());
    }

    @Test
    void sendToTheRealServer_everyManifestProbeIsInItsBlocks() throws Exception {
        Path data = dir.resolve("data");
        Path out = dir.resolve("out");
        Run run;
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(data).withPorts(0, 0))) {
            run = run("--spans", "20000", "--logs", "10000", "--probes", "5", "--users", "2000", "--batch", "500",
                    "--send", "http://127.0.0.1:" + server.otlpAddress().getPort(), "--concurrency", "3", "--gzip",
                    "--out", out.toString(), "--json");
        }
        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.contains("\"accepted\""), run.out);
        Manifest manifest = Manifest.readFrom(out);
        assertEquals(20_000, manifest.counts().spans());
        FullScan scan = FullScan.of(data, TenantId.DEFAULT);
        List<SpanRecord> stored = scan.spans;
        assertEquals(20_000, stored.size());
        assertEquals(10_000, scan.logs.size());
        Map<String, Long> byTrace = stored.stream().collect(Collectors.groupingBy(s -> s.traceId().hex(), Collectors.counting()));
        for (List<Manifest.PresentTrace> family : manifest.presentTraceIds().values()) {
            for (Manifest.PresentTrace trace : family) {
                assertEquals(trace.spans(), byTrace.getOrDefault(trace.id(), 0L), trace.id());
            }
        }
        for (List<String> family : manifest.absentTraceIds().values()) {
            family.forEach(id -> assertTrue(!byTrace.containsKey(id), id));
        }
    }
}
