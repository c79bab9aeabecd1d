package dev.needle.query.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metrics queries answered from COUNTS rows give what reading the records gives: random spans and logs in
 * several blocks (one block's COUNTS damaged, one block's logs with a {@code level} attribute and bodies that
 * are not strings, records at whole seconds and between them, some in the head), every query asked through
 * Tempo's and Loki's HTTP APIs with COUNTS on and off ({@code disable=counts}) and with the sidecars off too,
 * the answers compared; and the counted answers shown to open no block where every block's COUNTS could say.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CountedMetricsTest {

    private static final long SECOND = 1_000_000_000L;
    private static final long T0_SECONDS = 1_764_446_100L;
    private static final long T0 = T0_SECONDS * SECOND;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] SERVICES = {"cart", "checkout", "api"};

    @TempDir
    static Path dir;
    private RootAllocator allocator;
    private QueryEngine engine;
    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);
    private final List<SpanRecord> headSpans = new ArrayList<>();
    private final List<LogRecord> headLogs = new ArrayList<>();

    @BeforeAll
    void setUp() throws Exception {
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(dir);
        BlockWriter writer = new BlockWriter(store, allocator, 64);
        Random random = new Random(11);
        for (int block = 0; block < 4; block++) {
            List<SpanRecord> spans = new ArrayList<>();
            List<LogRecord> logs = new ArrayList<>();
            for (int i = 0; i < 700; i++) {
                spans.add(span(random, block * 700 + i));
                logs.add(log(random, block == 3));
            }
            List<WrittenBlock> written = List.of(writer.writeSpans(TenantId.DEFAULT, spans),
                    writer.writeLogs(TenantId.DEFAULT, logs));
            if (block == 0) {
                // The first block of each signal has a COUNTS that cannot be trusted: its records are read instead.
                for (WrittenBlock w : written) {
                    Path counts = store.blockDir(w.ref()).resolve(BlockCounts.FILE);
                    byte[] bytes = Files.readAllBytes(counts);
                    bytes[bytes.length - 1] ^= 1;
                    Files.write(counts, bytes);
                }
            }
        }
        for (int i = 0; i < 50; i++) {
            headSpans.add(span(random, 10_000 + i));
            headLogs.add(log(random, false));
        }
        HeadSource head = new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                return List.of(new Part<>(null, headSpans));
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of(new Part<>(null, headLogs));
            }
        };
        engine = new QueryEngine(store, head, 1 << 20, 2);
        server.addConnector(connector);
        server.setHandler(new QueryApi(engine, new QueryMetrics(new PrometheusRegistry(), engine)));
        server.start();
    }

    @AfterAll
    void tearDown() throws Exception {
        server.stop();
        engine.close();
        allocator.close();
    }

    /** A time within five minutes of T0: on a whole second one time in four, so that buckets' ends are tested. */
    private static long time(Random random) {
        long second = random.nextInt(300);
        return T0 + second * SECOND + (random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(999_999_999));
    }

    private static Resource resource(Random random) {
        String service = SERVICES[random.nextInt(SERVICES.length)];
        return new Resource(List.of(KeyValue.of("service.name", service),
                KeyValue.of("k8s.pod.name", service + "-" + random.nextInt(2))), 0, "");
    }

    private static SpanRecord span(Random random, int id) {
        long start = time(random);
        long duration = random.nextInt(5) == 0 ? random.nextInt(3) : (1L << random.nextInt(34)) + random.nextInt(3) - 1;
        return SpanRecord.builder().resource(resource(random)).traceId(Bytes.fromHex(String.format("%032x", id / 3 + 1)))
                .spanId(Bytes.fromHex(String.format("%016x", id + 1))).name("op" + random.nextInt(3))
                .kind(random.nextInt(4)).statusCode(random.nextInt(3)).startTimeUnixNano(start)
                .endTimeUnixNano(start + duration).attributes(List.of(KeyValue.of("route", "/r" + random.nextInt(2))))
                .build();
    }

    private static LogRecord log(Random random, boolean odd) {
        int severity = new int[] {0, 9, 13, 17}[random.nextInt(4)];
        List<KeyValue> attributes = odd && random.nextBoolean() ? List.of(KeyValue.of("level", "warn")) : List.of();
        AnyValue body = odd && random.nextInt(5) == 0 ? new AnyValue.Int(random.nextInt(100))
                : AnyValue.of("line é " + "x".repeat(random.nextInt(20)));
        return LogRecord.builder().resource(resource(random)).scope(Scope.EMPTY).timeUnixNano(time(random))
                .severityNumber(severity).severityText(severity == 0 ? "" : "S" + severity).body(body)
                .attributes(attributes).build();
    }

    private HttpTester.Response get(String path) throws Exception {
        String request = "GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        return HttpTester.parseResponse(connector.getResponse(ByteBuffer.wrap(request.getBytes(StandardCharsets.ISO_8859_1))));
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Queries COUNTS can answer, and beside them some it cannot, which must be read as before. */
    private static final List<String> TRACEQL = List.of(
            "{ } | rate() by (resource.service.name)",
            "{ status = error } | rate() by (resource.service.name)",
            "{ } | histogram_over_time(duration)",
            "{ } | quantile_over_time(duration, .5, .99) by (resource.service.name)",
            "{ resource.service.name = \"cart\" && kind = server } | count_over_time() by (status)",
            "{ name = \"op1\" } | count_over_time()",
            "{ span.route = \"/r1\" } | rate() by (resource.service.name)");

    private static final List<String> LOGQL = List.of(
            "sum by (level, detected_level) (count_over_time({service_name=\"cart\"} | drop __error__ [1m]))",
            "sum by (service_name) (rate({service_name=~\".+\"}[1m]))",
            "sum(bytes_over_time({service_name=\"checkout\"}[30s]))",
            "sum by (k8s_pod_name) (bytes_rate({service_name=~\"c.*\"} | detected_level != \"info\" [1m]))",
            "sum by (detected_level) (count_over_time({service_name=\"api\"} | severity_text=\"S9\" [10s] offset 5s))",
            "sum by (service_name) (count_over_time({service_name=~\".+\"} |= \"xx\" [1m]))",
            "sum by (route) (count_over_time({service_name=~\".+\"}[1m]))");

    @Test
    void tempoMetrics_withAndWithoutCounts_agree() throws Exception {
        for (String q : TRACEQL) {
            for (String step : List.of("10s", "1500ms")) {
                String path = "/api/metrics/query_range?q=" + enc(q) + "&start=" + (T0_SECONDS - 5) + "&end="
                        + (T0_SECONDS + 301) + "&step=" + step;
                JsonNode counted = series(get(path), path);
                assertEquals(series(get(path + "&disable=counts"), path), counted, path);
                if (step.equals("10s")) {
                    assertEquals(series(get(path + "&disable=counts,time,attr_idx,zone_maps,index"), path), counted, path);
                }
            }
        }
    }

    private static JsonNode series(HttpTester.Response r, String path) throws Exception {
        assertEquals(200, r.getStatus(), path + ": " + r.getContent());
        return JSON.readTree(r.getContent()).path("series");
    }

    @Test
    void lokiMetrics_withAndWithoutCounts_agree() throws Exception {
        for (String q : LOGQL) {
            for (String step : List.of("10", "1.5")) {
                String path = "/loki/api/v1/query_range?query=" + enc(q) + "&start=" + (T0 - 5 * SECOND) + "&end="
                        + (T0 + 301 * SECOND) + "&step=" + step;
                JsonNode counted = result(get(path), path);
                assertClose(result(get(path + "&disable=counts"), path), counted, path);
                if (step.equals("10")) {
                    assertClose(result(get(path + "&disable=counts,time,attr_idx,zone_maps,index"), path), counted, path);
                }
            }
            String instant = "/loki/api/v1/query?query=" + enc(q) + "&time=" + (T0 + 120 * SECOND);
            assertClose(result(get(instant + "&disable=counts"), instant), result(get(instant), instant), instant);
        }
    }

    @Test
    void countedQueries_openNoBlockWhoseCountsCanSay() throws Exception {
        String volume = "/loki/api/v1/query_range?query=" + enc(LOGQL.get(1)) + "&start=" + T0 + "&end="
                + (T0 + 300 * SECOND) + "&step=60";
        // Four log blocks: the one with a damaged COUNTS is read, the others are not opened.
        assertEquals("1", get(volume).get(QueryApi.INSPECTED_HEADER));
        assertEquals("4", get(volume + "&disable=counts").get(QueryApi.INSPECTED_HEADER));
        // The level attribute of the last block makes its rows unable to say "by (level)".
        String byLevel = "/loki/api/v1/query_range?query=" + enc(LOGQL.get(0)) + "&start=" + T0 + "&end="
                + (T0 + 300 * SECOND) + "&step=60";
        assertEquals("2", get(byLevel).get(QueryApi.INSPECTED_HEADER));
        String rate = "/api/metrics/query_range?q=" + enc(TRACEQL.get(0)) + "&start=" + T0_SECONDS + "&end="
                + (T0_SECONDS + 300) + "&step=60s";
        long countedBytes = JSON.readTree(get(rate).getContent()).path("metrics").path("inspectedBytes").asLong();
        long readBytes = JSON.readTree(get(rate + "&disable=counts").getContent()).path("metrics")
                .path("inspectedBytes").asLong();
        // Three blocks of four give their COUNTS, a fraction of their records' bytes; the damaged one is read.
        assertTrue(countedBytes * 2 < readBytes, countedBytes + " bytes counted, " + readBytes + " read");
    }

    private static JsonNode result(HttpTester.Response r, String path) throws Exception {
        assertEquals(200, r.getStatus(), path + ": " + r.getContent());
        return JSON.readTree(r.getContent()).path("data").path("result");
    }

    /** Equal series and times; values equal to 12 digits (a sum of rates may round differently from a rate of a sum). */
    private static void assertClose(JsonNode expected, JsonNode actual, String what) {
        assertEquals(expected.size(), actual.size(), what + "\n" + expected + "\n" + actual);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).path("metric"), actual.get(i).path("metric"), what);
            JsonNode e = expected.get(i).has("values") ? expected.get(i).path("values") : expected.get(i).path("value");
            JsonNode a = actual.get(i).has("values") ? actual.get(i).path("values") : actual.get(i).path("value");
            if (!e.get(0).isArray()) {
                e = JSON.createArrayNode().add(e);
                a = JSON.createArrayNode().add(a);
            }
            assertEquals(e.size(), a.size(), what + "\n" + expected + "\n" + actual);
            for (int j = 0; j < e.size(); j++) {
                assertEquals(e.get(j).get(0), a.get(j).get(0), what);
                double x = Double.parseDouble(e.get(j).get(1).asText());
                double y = Double.parseDouble(a.get(j).get(1).asText());
                assertEquals(x, y, Math.abs(x) * 1e-12, what + " at " + e.get(j).get(0));
            }
        }
    }
}
