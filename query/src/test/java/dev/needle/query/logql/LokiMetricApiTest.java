package dev.needle.query.logql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Metric queries through the real query path: log records written as blocks, the engine over them and
 * Loki's HTTP API in front (through Jetty, without a socket); the matrix, vector and scalar Loki would
 * answer, worked out by hand: with start T0, end T0 + 2m and a 1m step, the points are T0, T0 + 1m and
 * T0 + 2m, each counting the entries in the minute up to it.
 */
class LokiMetricApiTest {

    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final long T0_SECONDS = 1_764_446_100L;
    private static final long SECOND = 1_000_000_000L;
    private static final int INFO = 9;
    private static final int ERROR = 17;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private QueryEngine engine;
    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);

    @BeforeEach
    void setUp() throws Exception {
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(dir);
        List<LogRecord> logs = new ArrayList<>(List.of(
                log("cart", 1, INFO, "GET /cart 200", List.of()),
                log("cart", 2, ERROR, "GET /cart 500", List.of()),
                log("cart", 3, INFO, "GET /cart 200", List.of()),
                log("cart", 65, INFO, "GET /cart 200", List.of()),
                log("api", 10, INFO, "GET /api 200", List.of())));
        // Far from the others: one more series than a metric query may answer, each entry its own.
        for (int i = 0; i <= 500; i++) {
            logs.add(log("many", 1000, INFO, "x", List.of(KeyValue.of("i", Integer.toString(i)))));
        }
        new BlockWriter(store, allocator, 2).writeLogs(TenantId.DEFAULT, logs);
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
        server.addConnector(connector);
        server.setHandler(new QueryApi(engine, new QueryMetrics(new PrometheusRegistry(), engine)));
        server.start();
    }

    @AfterEach
    void tearDown() throws Exception {
        server.stop();
        engine.close();
        allocator.close();
    }

    private static LogRecord log(String service, int second, int severity, String body, List<KeyValue> attributes) {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", service)), 0, "");
        return new LogRecord(resource, new Scope("", "", List.of(), 0, ""), T0 + second * SECOND, 0, severity, "",
                AnyValue.of(body), attributes, 0, 0, Bytes.EMPTY, Bytes.EMPTY, "");
    }

    private HttpTester.Response get(String endpoint, String query, String params) throws Exception {
        String request = "GET /loki/api/v1/" + endpoint + "?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8)
                + params + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
        return HttpTester.parseResponse(connector.getResponse(ByteBuffer.wrap(
                request.getBytes(StandardCharsets.ISO_8859_1))));
    }

    private JsonNode range(String query) throws Exception {
        HttpTester.Response r = get("query_range", query, "&start=" + T0 + "&end=" + (T0 + 120 * SECOND) + "&step=60");
        assertEquals(200, r.getStatus(), r.getContent());
        JsonNode data = JSON.readTree(r.getContent()).path("data");
        assertEquals("matrix", data.path("resultType").asText());
        assertTrue(data.path("stats").path("summary").has("execTime"), r.getContent());
        return data.path("result");
    }

    @Test
    void exploresLogVolume_countsPerDetectedLevel() throws Exception {
        JsonNode result = range("sum by (level, detected_level) (count_over_time({service_name=\"cart\"}"
                + " | drop __error__ [1m]))");
        assertEquals(JSON.readTree("[{\"metric\":{\"detected_level\":\"error\"},\"values\":[[" + (T0_SECONDS + 60)
                + ",\"1\"]]},{\"metric\":{\"detected_level\":\"info\"},\"values\":[[" + (T0_SECONDS + 60) + ",\"2\"],["
                + (T0_SECONDS + 120) + ",\"1\"]]}]"), result);
    }

    @Test
    void ratePerService_perSecondOverTheMinute() throws Exception {
        JsonNode result = range("sum by (service_name) (rate({service_name=~\".+\"}[1m]))");
        assertEquals(JSON.readTree("[{\"metric\":{\"service_name\":\"api\"},\"values\":[[" + (T0_SECONDS + 60)
                + ",\"0.016666666666666666\"]]},{\"metric\":{\"service_name\":\"cart\"},\"values\":[[" + (T0_SECONDS + 60)
                + ",\"0.05\"],[" + (T0_SECONDS + 120) + ",\"0.016666666666666666\"]]}]"), result);
    }

    @Test
    void seriesWithoutGrouping_haveEveryLabelAndStructuredMetadata() throws Exception {
        JsonNode result = range("count_over_time({service_name=\"api\"}[1m])");
        assertEquals(JSON.readTree("[{\"metric\":{\"detected_level\":\"info\",\"service_name\":\"api\","
                + "\"severity_number\":\"9\"},\"values\":[[" + (T0_SECONDS + 60) + ",\"1\"]]}]"), result);
    }

    @Test
    void instantQuery_vectorAtTime_andScalar() throws Exception {
        HttpTester.Response r = get("query", "sum by (service_name) (count_over_time({service_name=~\".+\"}[1m]))",
                "&time=" + (T0 + 60 * SECOND));
        assertEquals(200, r.getStatus(), r.getContent());
        JsonNode data = JSON.readTree(r.getContent()).path("data");
        assertEquals("vector", data.path("resultType").asText());
        assertEquals(JSON.readTree("[{\"metric\":{\"service_name\":\"api\"},\"value\":[" + (T0_SECONDS + 60)
                + ",\"1\"]},{\"metric\":{\"service_name\":\"cart\"},\"value\":[" + (T0_SECONDS + 60) + ",\"3\"]}]"),
                data.path("result"));
        HttpTester.Response scalar = get("query", "2 > bool 1", "&time=" + (T0 + 60 * SECOND));
        JsonNode s = JSON.readTree(scalar.getContent()).path("data");
        assertEquals("scalar", s.path("resultType").asText());
        assertEquals(JSON.readTree("[" + (T0_SECONDS + 60) + ",\"1\"]"), s.path("result"));
    }

    @Test
    void moreSeriesThanLokisLimit_is400_andGroupedTheyAreAnswered() throws Exception {
        String params = "&start=" + (T0 + 900 * SECOND) + "&end=" + (T0 + 1100 * SECOND) + "&step=60";
        HttpTester.Response r = get("query_range", "count_over_time({service_name=\"many\"}[5m])", params);
        assertEquals(400, r.getStatus(), r.getContent());
        assertTrue(r.getContent().startsWith("maximum number of series (500) reached for a single query"), r.getContent());
        HttpTester.Response grouped = get("query_range", "count(count_over_time({service_name=\"many\"}[5m]))", params);
        assertEquals(200, grouped.getStatus(), grouped.getContent());
        // 501 series at T0 + 1020s and 1080s, whose 5m windows hold the entries at 1000s; none at 900s and 960s.
        assertEquals(JSON.readTree("[{\"metric\":{},\"values\":[[" + (T0_SECONDS + 1020) + ",\"501\"],["
                + (T0_SECONDS + 1080) + ",\"501\"]]}]"),
                JSON.readTree(grouped.getContent()).path("data").path("result"));
    }

    @Test
    void pipelineError_is400InLokisWords() throws Exception {
        HttpTester.Response r = get("query_range", "count_over_time({service_name=\"cart\"} | json [1m])",
                "&start=" + T0 + "&end=" + (T0 + 120 * SECOND) + "&step=60");
        assertEquals(400, r.getStatus(), r.getContent());
        assertTrue(r.getContent().startsWith("pipeline error: 'JSONParserErr' for series: '{__error__=\"JSONParserErr\""),
                r.getContent());
    }
}
