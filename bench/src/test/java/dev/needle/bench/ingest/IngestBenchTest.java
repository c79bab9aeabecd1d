package dev.needle.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.bench.ingest.IngestBench.Options;
import dev.needle.bench.ingest.IngestBench.Result;
import dev.needle.bench.ingest.IngestBench.Workload;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.corpus.otlp.EncodedRequests;
import dev.needle.corpus.otlp.OtlpEncoding;
import dev.needle.corpus.otlp.SendReport;
import dev.needle.ingest.server.ServeCommand;
import java.io.File;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ingest benchmark end to end at a tiny size, against real {@code needle serve} child processes; invariants only, never timings. */
class IngestBenchTest {

    private static final long SPANS = 20_000;
    private static final long LOGS = 10_000;

    @Test
    void run_tinyCorpus_acknowledgesStoresAndStopsEverything(@TempDir Path root) throws Exception {
        String classPath = System.getProperty("java.class.path");
        assertServerOnClassPath(classPath);
        List<String> progress = Collections.synchronizedList(new ArrayList<>());
        List<Workload> workloads = List.of(new Workload(Signal.SPANS, OtlpEncoding.PROTOBUF, true),
                new Workload(Signal.LOGS, OtlpEncoding.JSON, false));
        Options options = Options.defaults()
                .withRecords(SPANS, LOGS)
                .withWorkloads(workloads)
                .withWarmUp(Duration.ofSeconds(1))
                .withClassPath(classPath)
                .withDataRoot(root)
                .withProgress(progress::add);

        List<Result> results = IngestBench.run(options);

        assertEquals(0, ProcessHandle.current().descendants().count(), "no server process is left behind");
        assertEquals(workloads, results.stream().map(Result::workload).toList());
        for (Result r : results) {
            Signal signal = r.workload().signal();
            long expected = signal == Signal.SPANS ? SPANS : LOGS;
            SendReport send = r.send();
            String label = r.workload().label() + ": " + send.toText() + progress;
            assertEquals(expected, send.recordsSent(), label);
            assertEquals(expected, send.accepted(), label);
            assertEquals(0, send.rejected(), label);
            assertEquals(0, send.failed(), label);
            assertEquals(expected, r.storedRecords(), label);
            assertTrue(r.ceiling().dryRun(), label);
            assertEquals(expected, r.ceiling().recordsSent(), label);
            assertTrue(r.warmUpRecords() > 0, label);
            // The server's own metrics: it worked for the records, and the paced run was sent and taken.
            assertTrue(r.cpuSecondsPerMillion() > 0, label);
            // This process made, encoded and sent them: its own CPU over the send is counted too.
            assertTrue(r.senderCpuSeconds() > 0 && r.senderCpuSecondsPerMillion() > 0, label);
            assertTrue(r.gcSecondsPerMillion() >= 0, label);
            // HotSpot counts its compilers' time, so the column has a figure.
            assertTrue(r.jitSecondsPerMillion() >= 0, label);
            assertTrue(r.headMaxRows() > 0 && r.headMaxRows() <= expected + r.warmUpRecords(), label);
            assertEquals(expected, r.pacedOrNull().accepted(), label);

            // Counted again from the blocks' data, not their meta.json as the benchmark counts.
            Path data = root.resolve(r.workload().directoryName()).resolve("data");
            Signal other = signal == Signal.SPANS ? Signal.LOGS : Signal.SPANS;
            assertEquals(expected, rowsInBlocks(data, TenantId.DEFAULT, signal), label);
            assertEquals(r.warmUpRecords(), rowsInBlocks(data, TenantId.of(IngestBench.WARM_UP_TENANT), signal), label);
            assertEquals(0, rowsInBlocks(data, TenantId.DEFAULT, other), label);
        }

        String table = IngestBench.markdown(results);
        assertTrue(table.startsWith("Measured send: records made and encoded by the sender as it sent them."), table);
        assertTrue(table.contains("| spans | protobuf+gzip | 20,000 |"), table);
        assertTrue(table.contains("| logs | json | 10,000 |"), table);
        assertTrue(table.contains("| spans | protobuf+gzip | 250,000 |"), table);
        assertTrue(table.contains("| CPU s per M records | sender CPU s per M records |"), table);
        for (Result r : results) {
            assertTrue(table.contains(String.format(Locale.ROOT, "%.2f | %.2f |", r.cpuSecondsPerMillion(),
                    r.senderCpuSecondsPerMillion())), table);
        }
        assertJsonArrayOf(results);
    }

    @Test
    void run_preEncode_sendsRequestsEncodedAheadAndSaysSo(@TempDir Path root) throws Exception {
        Options options = Options.defaults()
                .withWorkloads(List.of(new Workload(Signal.SPANS, OtlpEncoding.JSON, false)))
                .withRecords(5_000, 0)
                .withWarmUp(Duration.ofSeconds(1))
                .withPaced(Duration.ofSeconds(1))
                .withPreEncode(true)
                .withClassPath(System.getProperty("java.class.path"))
                .withDataRoot(root)
                .withProgress(line -> { });

        Result r = IngestBench.run(options).get(0);

        String label = r.send().toText();
        assertTrue(r.preEncoded(), label);
        assertEquals(5_000, r.send().accepted(), label);
        assertEquals(5_000, r.storedRecords(), label);
        assertEquals(5_000, rowsInBlocks(root.resolve(r.workload().directoryName()).resolve("data"), TenantId.DEFAULT,
                Signal.SPANS), label);
        assertTrue(r.senderCpuSecondsPerMillion() > 0, label);
        Path data = root.resolve(r.workload().directoryName()).resolve("data");
        assertTrue(r.warmUpRecords() >= 5_000, "the warm-up's encoded requests sent whole at least once: " + label);
        assertEquals(r.warmUpRecords(), rowsInBlocks(data, TenantId.of(IngestBench.WARM_UP_TENANT), Signal.SPANS), label);
        // 1 s at 80% of 150,000 JSON spans a second holds the whole 5,000.
        assertEquals(5_000, r.pacedOrNull().accepted(), r.pacedOrNull().toText());
        assertEquals(5_000, rowsInBlocks(data, TenantId.of(IngestBench.PACED_TENANT), Signal.SPANS), label);
        assertTrue(IngestBench.markdown(List.of(r)).startsWith("Measured send: requests made and encoded before"));
        StringWriter out = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            IngestBench.writeJson(g, List.of(r));
        }
        assertTrue(out.toString().contains("\"preEncoded\":true"), out.toString());
    }

    @Test
    void within_takesTheRequestsThatFitTheTimeAtTheRate() {
        List<EncodedRequests.Body> bodies = List.of(body(1_000), body(1_000), body(500), body(1_000));
        EncodedRequests all = new EncodedRequests(Signal.LOGS, OtlpEncoding.PROTOBUF, true, bodies);

        assertEquals(bodies.subList(0, 2), IngestBench.within(all, Duration.ofSeconds(1), 2_000).bodies());
        assertEquals(bodies.subList(0, 3), IngestBench.within(all, Duration.ofMillis(1_500), 2_000).bodies());
        assertEquals(bodies, IngestBench.within(all, Duration.ofSeconds(10), 2_000).bodies());
        assertEquals(bodies.subList(0, 1), IngestBench.within(all, Duration.ofMillis(1), 2_000).bodies(),
                "at least one request");
        assertEquals(Signal.LOGS, IngestBench.within(all, Duration.ofSeconds(1), 2_000).signal());
        assertTrue(IngestBench.within(all, Duration.ofSeconds(1), 2_000).gzip());
    }

    private static EncodedRequests.Body body(int records) {
        return new EncodedRequests.Body(new byte[] {1}, records);
    }

    @Test
    void run_serverCannotStart_failsWithItsOutputAndLeavesNoProcess(@TempDir Path root) {
        Options options = Options.defaults()
                .withWorkloads(List.of(new Workload(Signal.SPANS, OtlpEncoding.PROTOBUF, false)))
                .withRecords(1_000, 0)
                .withWarmUp(Duration.ZERO)
                .withClassPath(root.toString())
                .withDataRoot(root)
                .withProgress(line -> { });

        IOException e = assertThrows(IOException.class, () -> IngestBench.run(options));

        assertTrue(e.getMessage().contains("before it was ready"), e.getMessage());
        assertTrue(e.getMessage().contains(ServeCommand.class.getName()), "the server's own output: " + e.getMessage());
        assertEquals(0, ProcessHandle.current().descendants().count(), "no server process is left behind");
    }

    /**
     * The server's JVM gets this JVM's {@code java.class.path}. Surefire starts tests through a
     * manifest-only jar but sets that property to the real test class path; if it ever stopped
     * doing so, this says why the server would not start.
     */
    private static void assertServerOnClassPath(String classPath) throws Exception {
        Path serverCode = Path.of(ServeCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toAbsolutePath().normalize();
        List<Path> entries = Arrays.stream(classPath.split(File.pathSeparator))
                .map(e -> Path.of(e).toAbsolutePath().normalize()).toList();
        assertTrue(entries.contains(serverCode),
                "java.class.path does not hold " + serverCode + ": " + classPath);
    }

    private static long rowsInBlocks(Path data, TenantId tenant, Signal signal) throws Exception {
        FsBlockStore store = FsBlockStore.readOnly(data);
        long rows = 0;
        try (BufferAllocator allocator = new RootAllocator()) {
            for (BlockRef block : store.list(tenant, signal)) {
                try (BlockReader reader = BlockReader.open(store, block, allocator)) {
                    String column = reader.schema().getFields().get(0).getName();
                    for (int batch = 0; batch < reader.batchCount(); batch++) {
                        try (VectorSchemaRoot batchRoot = reader.read(batch, List.of(column))) {
                            rows += batchRoot.getRowCount();
                        }
                    }
                }
            }
        }
        return rows;
    }

    private static void assertJsonArrayOf(List<Result> results) throws Exception {
        StringWriter out = new StringWriter();
        JsonFactory json = new JsonFactory();
        try (JsonGenerator g = json.createGenerator(out)) {
            IngestBench.writeJson(g, results);
        }
        int objects = 0;
        try (JsonParser p = json.createParser(out.toString())) {
            assertEquals(JsonToken.START_ARRAY, p.nextToken());
            while (p.nextToken() == JsonToken.START_OBJECT) {
                p.skipChildren();
                objects++;
            }
            assertEquals(JsonToken.END_ARRAY, p.currentToken());
            assertNull(p.nextToken());
        }
        assertEquals(results.size(), objects, out.toString());
        assertTrue(out.toString().contains("\"accepted\":20000"), out.toString());
        for (Result r : results) {
            assertTrue(out.toString().contains("\"senderCpuSecondsPerMillion\":" + r.senderCpuSecondsPerMillion()),
                    out.toString());
        }
    }
}
