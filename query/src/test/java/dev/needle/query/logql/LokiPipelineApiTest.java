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
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.TenantId;
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
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.memory.RootAllocator;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pipeline queries through the real query path: log records with JSON and logfmt bodies written as
 * blocks, the engine over them and Loki's HTTP API in front (through Jetty, without a socket), and
 * the streams Loki would answer: labels the parsers made in the stream, lines as formatted, errors as
 * labels, and a template needle does not run refused with a 400 that names it.
 */
class LokiPipelineApiTest {

    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
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
        List<LogRecord> logs = new ArrayList<>();
        logs.add(log("api", 1, "{\"level\":\"info\",\"status\":200,\"latency\":\"35ms\",\"user\":{\"id\":\"u1\"},\"msg\":\"ok\"}"));
        logs.add(log("api", 2, "{\"level\":\"error\",\"status\":503,\"latency\":\"1.2s\",\"user\":{\"id\":\"u2\"},\"msg\":\"upstream down\"}"));
        logs.add(log("api", 3, "{\"level\":\"error\",\"status\":500,\"latency\":\"80ms\",\"user\":{\"id\":\"u3\"},\"msg\":\"boom\"}"));
        logs.add(log("worker", 4, "level=info job=sync duration=1.5s size=20MB"));
        logs.add(log("worker", 5, "level=warn job=compact duration=300ms size=1.5KiB"));
        logs.add(log("worker", 6, "level=info job=sync duration=4s size=3GB"));
        new BlockWriter(store, allocator, 4).writeLogs(TenantId.DEFAULT, logs);
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

    private static LogRecord log(String service, int second, String body) {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", service)), 0, "");
        long time = T0 + second * SECOND;
        // No severity, observed time or attributes: the records have no structured metadata, so a stream is its labels.
        return new LogRecord(resource, new Scope("", "", List.of(), 0, ""), time, 0, 0, "", AnyValue.of(body),
                List.of(), 0, 0, Bytes.EMPTY, Bytes.EMPTY, "");
    }

    private HttpTester.Response get(String query, String... headers) throws Exception {
        StringBuilder request = new StringBuilder("GET /loki/api/v1/query_range?query=")
                .append(URLEncoder.encode(query, StandardCharsets.UTF_8)).append("&start=").append(T0)
                .append("&end=").append(T0 + 60 * SECOND).append("&direction=forward HTTP/1.1\r\n")
                .append("Host: localhost\r\nConnection: close\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        ByteBuffer response = connector.getResponse(ByteBuffer.wrap(request.append("\r\n").toString()
                .getBytes(StandardCharsets.ISO_8859_1)));
        return HttpTester.parseResponse(response);
    }

    /** The answer's streams: each stream's labels and its lines, in order. */
    private List<Map.Entry<Map<String, String>, List<String>>> streams(String query) throws Exception {
        HttpTester.Response r = get(query);
        assertEquals(200, r.getStatus(), r.getContent());
        List<Map.Entry<Map<String, String>, List<String>>> out = new ArrayList<>();
        for (JsonNode stream : JSON.readTree(r.getContent()).path("data").path("result")) {
            List<String> lines = new ArrayList<>();
            stream.path("values").forEach(v -> lines.add(v.get(1).asText()));
            out.add(Map.entry(labels(stream.path("stream")), lines));
        }
        return out;
    }

    private static Map<String, String> labels(JsonNode object) {
        Map<String, String> labels = new TreeMap<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> f = it.next();
            labels.put(f.getKey(), f.getValue().asText());
        }
        return labels;
    }

    private static Map<String, String> map(String... pairs) {
        Map<String, String> out = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            out.put(pairs[i], pairs[i + 1]);
        }
        return out;
    }

    @Test
    void json_numberFilter_streamsCarryTheParsedLabels() throws Exception {
        var streams = streams("{service_name=\"api\"} | json | status >= 500 | latency > 100ms");
        assertEquals(1, streams.size());
        assertEquals(map("service_name", "api", "level", "error", "status", "503", "latency", "1.2s", "user_id", "u2",
                "msg", "upstream down"), streams.get(0).getKey());
        assertEquals(List.of("{\"level\":\"error\",\"status\":503,\"latency\":\"1.2s\",\"user\":{\"id\":\"u2\"},"
                + "\"msg\":\"upstream down\"}"), streams.get(0).getValue());
    }

    @Test
    void json_lineFormat_rewritesLines_keepDropsTheRest() throws Exception {
        var streams = streams("{service_name=\"api\"} | json | level=\"error\" | line_format `{{.level | ToUpper}} {{.msg}}`"
                + " | keep service_name");
        assertEquals(List.of(Map.entry(map("service_name", "api"), List.of("ERROR upstream down", "ERROR boom"))), streams);
    }

    @Test
    void logfmt_durationAndSizeFilters_labelFormat() throws Exception {
        var streams = streams("{service_name=\"worker\"} | logfmt | duration > 1s and size > 10MB"
                + " | label_format task=job | drop level, size");
        assertEquals(List.of(Map.entry(map("service_name", "worker", "task", "sync", "duration", "1.5s"),
                        List.of("level=info job=sync duration=1.5s size=20MB")),
                Map.entry(map("service_name", "worker", "task", "sync", "duration", "4s"),
                        List.of("level=info job=sync duration=4s size=3GB"))), streams);
    }

    @Test
    void parserErrors_areLabels_andCanBeFilteredOut() throws Exception {
        var streams = streams("{service_name=\"worker\"} |= \"compact\" | json");
        assertEquals(List.of(Map.entry(map("service_name", "worker", "__error__", "JSONParserErr",
                "__error_details__", "Value looks like object, but can't find closing '}' symbol"),
                List.of("level=warn job=compact duration=300ms size=1.5KiB"))), streams);
        assertEquals(List.of(), streams("{service_name=\"worker\"} | json | __error__=\"\""));
    }

    @Test
    void categorizedLabels_putParsedLabelsApart() throws Exception {
        HttpTester.Response r = get("{service_name=\"worker\"} | pattern `level=<level> job=<job> <_>` | job=\"compact\"",
                "X-Loki-Response-Encoding-Flags", "categorize-labels");
        assertEquals(200, r.getStatus(), r.getContent());
        JsonNode result = JSON.readTree(r.getContent()).path("data").path("result");
        assertEquals(1, result.size());
        assertEquals(map("service_name", "worker"), labels(result.get(0).path("stream")));
        JsonNode value = result.get(0).path("values").get(0);
        assertEquals(Long.toString(T0 + 5 * SECOND), value.get(0).asText());
        assertEquals(map("level", "warn", "job", "compact"), labels(value.get(2).path("parsed")));
    }

    @Test
    void unsupportedTemplateFunction_isA400NamingIt() throws Exception {
        HttpTester.Response r = get("{service_name=\"api\"} | line_format `{{ fromJson .msg }}`");
        assertEquals(400, r.getStatus());
        assertTrue(r.getContent().contains("function \"fromJson\" is not supported by needle's templates"), r.getContent());
    }
}
