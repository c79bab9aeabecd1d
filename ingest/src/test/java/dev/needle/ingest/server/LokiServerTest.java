package dev.needle.ingest.server;

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
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.ingest.IngestLimits;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Grafana's Loki datasource against a real server: logs sent over OTLP/HTTP come back from
 * {@code /loki/api/v1/…} over a socket, from the head and then from a published block, in the shapes
 * of Loki's API docs; trace-to-logs, the health check, labels, a POST form and Loki's errors.
 */
class LokiServerTest {

    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 64L << 20);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String CATEGORIZE = "X-Loki-Response-Encoding-Flags";

    @TempDir
    Path dir;

    /** What one sent record must come back as: its time, line, service and trace. */
    private record Sent(long time, String line, String service, String trace) {
    }

    @Test
    void lokiApi_logsSentOverOtlp_comeBackFromHeadAndBlockInLokisShape() throws Exception {
        long now = System.currentTimeMillis() * 1_000_000L;
        Scope scope = new Scope("io.shop", "1.2", List.of(), 0, "");
        List<LogRecord> logs = new ArrayList<>();
        List<Sent> sent = new ArrayList<>();
        String[] services = {"checkout", "cart"};
        for (int i = 0; i < 40; i++) {
            String service = services[i % 2];
            Resource resource = new Resource(List.of(KeyValue.of("service.name", service),
                    KeyValue.of("k8s.pod.name", service + "-" + (i % 3))), 0, "");
            long time = now - Duration.ofMinutes(20).toNanos() + i * 1_000_000_000L;
            String trace = String.format("%032x", 0x5eed0000L + i / 4);
            AnyValue body = i % 10 == 9 ? AnyValue.of(i) : AnyValue.of("request " + i + (i % 5 == 0 ? " failed: timeout" : " ok"));
            logs.add(LogRecord.builder().resource(resource).scope(scope).timeUnixNano(time)
                    .observedTimeUnixNano(time + 7).severityNumber(i % 5 == 0 ? 17 : 9)
                    .severityText(i % 5 == 0 ? "ERROR" : "INFO").body(body)
                    .attributes(List.of(KeyValue.of("http.route", "/api/" + i % 4))).traceId(Bytes.fromHex(trace))
                    .spanId(Bytes.fromHex(String.format("%016x", i + 1))).build());
            sent.add(new Sent(time, body.scalarText(), service, trace));
        }
        try (NeedleServer server = NeedleServer.start(ServerConfig.DEFAULTS.withData(dir).withPorts(0, 0)
                .withLimits(NO_AGE_CUTS))) {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            OtlpJson.encodeLogs(logs, body);
            assertEquals(200, Http.post(server.otlpAddress(), "/v1/logs", "application/json", body.toByteArray()).statusCode());

            InetSocketAddress query = server.queryAddress();
            checkCheckout(query, sent);
            server.pipeline().cutAndPublish();
            HttpResponse<byte[]> fromBlock = checkCheckout(query, sent);
            assertEquals("1", fromBlock.headers().firstValue("X-Needle-Inspected-Blocks").orElseThrow());

            // Grafana's trace-to-logs: every log of one trace, and nothing else.
            String trace = sent.get(9).trace();
            JsonNode traced = ok(get(query, "query_range", "{service_name=~\".+\"} | trace_id=\"" + trace + "\"", "",
                    CATEGORIZE, "categorize-labels"));
            Set<String> lines = new TreeSet<>();
            for (JsonNode stream : traced.at("/data/result")) {
                for (JsonNode value : stream.get("values")) {
                    assertEquals(trace, value.at("/2/structuredMetadata/trace_id").asText());
                    lines.add(value.get(1).asText());
                }
            }
            assertEquals(sent.stream().filter(s -> s.trace().equals(trace)).map(Sent::line).collect(TreeSet::new, Set::add, Set::addAll),
                    lines);

            // What Grafana's trace-to-logs sends with "Filter by trace ID": the same logs, with the label it makes.
            String grafanas = "{service_name=\"" + sent.get(9).service() + "\"} | label_format log_line_contains_trace_id="
                    + "`{{ contains \"" + trace + "\" __line__  }}` | log_line_contains_trace_id=\"true\" OR trace_id=\""
                    + trace + "\"";
            JsonNode byGrafana = ok(get(query, "query_range", grafanas, "", CATEGORIZE, "categorize-labels"));
            Set<String> grafanaLines = new TreeSet<>();
            for (JsonNode stream : byGrafana.at("/data/result")) {
                for (JsonNode value : stream.get("values")) {
                    assertEquals("false", value.at("/2/parsed/log_line_contains_trace_id").asText());
                    grafanaLines.add(value.get(1).asText());
                }
            }
            assertEquals(sent.stream().filter(s -> s.trace().equals(trace) && s.service().equals(sent.get(9).service()))
                    .map(Sent::line).collect(TreeSet::new, Set::add, Set::addAll), grafanaLines);

            // Line filters and a label filter, oldest first.
            JsonNode failed = ok(get(query, "query_range", "{k8s_pod_name=\"checkout-0\"} |= \"timeout\" | severity_text=\"ERROR\"",
                    "&direction=forward", CATEGORIZE, "categorize-labels"));
            List<String> failedLines = new ArrayList<>();
            failed.at("/data/result").forEach(s -> s.get("values").forEach(v -> failedLines.add(v.get(1).asText())));
            assertEquals(List.of("request 0 failed: timeout", "request 30 failed: timeout"), failedLines);

            // Grafana's health check.
            JsonNode health = ok(get(query, "query", "vector(1)+vector(1)", ""));
            assertEquals("vector", health.at("/data/resultType").asText());
            assertEquals("2", health.at("/data/result/0/value/1").asText());

            // Labels and values, from the block's TAGS.
            assertEquals(List.of("k8s_pod_name", "service_name"), strings(ok(get(query, "labels", null, ""))));
            assertEquals(List.of("cart", "checkout"), strings(ok(get(query, "label/service_name/values", null, ""))));

            // A POST form answers as the GET does; a bad query is Loki's 400 in plain text.
            String form = "query=" + URLEncoder.encode("{service_name=\"cart\"}", StandardCharsets.UTF_8) + "&limit=3";
            JsonNode posted = ok(Http.post(query, "/loki/api/v1/query_range", "application/x-www-form-urlencoded",
                    form.getBytes(StandardCharsets.UTF_8)));
            assertEquals(ok(get(query, "query_range", "{service_name=\"cart\"}", "&limit=3")).at("/data/result"),
                    posted.at("/data/result"));
            HttpResponse<byte[]> bad = get(query, "query_range", "{service_name=\"cart\"} | line_format \"{{ fromJson .x }}\"", "");
            assertEquals(400, bad.statusCode());
            assertTrue(Http.text(bad).startsWith("parse error at line 1, col 37: invalid line template: template: line:1:"
                    + " function \"fromJson\" is not supported by needle's templates"), Http.text(bad));
        }
    }

    /**
     * {@code {service_name="checkout"}} with Loki's defaults (the last hour, backward, 100), plain and
     * categorized: each in the documented shape, with the checkout records sent, newest first.
     */
    private static HttpResponse<byte[]> checkCheckout(InetSocketAddress query, List<Sent> sent) throws Exception {
        List<Sent> expected = new ArrayList<>(sent.stream().filter(s -> s.service().equals("checkout")).toList());
        expected.sort((a, b) -> Long.compare(b.time(), a.time()));
        HttpResponse<byte[]> response = get(query, "query_range", "{service_name=\"checkout\"}", "", CATEGORIZE,
                "categorize-labels");
        JsonNode categorized = ok(response);
        assertEquals(List.of("status", "data"), fields(categorized));
        assertEquals(List.of("resultType", "encodingFlags", "result", "stats"), fields(categorized.get("data")));
        assertEquals(List.of("ingester", "store", "summary"), fields(categorized.at("/data/stats")));
        List<Sent> got = new ArrayList<>();
        for (JsonNode stream : categorized.at("/data/result")) {
            assertEquals(List.of("stream", "values"), fields(stream));
            assertEquals(List.of("k8s_pod_name", "service_name"), fields(stream.get("stream")));
            for (JsonNode value : stream.get("values")) {
                assertEquals(3, value.size());
                assertTrue(value.get(0).isTextual() && value.get(1).isTextual());
                got.add(new Sent(Long.parseLong(value.get(0).asText()), value.get(1).asText(),
                        stream.at("/stream/service_name").asText(), value.at("/2/structuredMetadata/trace_id").asText()));
                assertEquals(Set.of("scope_name", "scope_version", "http_route", "observed_timestamp", "severity_number",
                        "severity_text", "trace_id", "span_id", "detected_level"),
                        Set.copyOf(fields(value.at("/2/structuredMetadata"))));
            }
        }
        got.sort((a, b) -> Long.compare(b.time(), a.time()));
        assertEquals(expected, got);

        JsonNode plain = ok(get(query, "query_range", "{service_name=\"checkout\"}", ""));
        assertEquals(List.of("resultType", "result", "stats"), fields(plain.get("data")));
        int values = 0;
        for (JsonNode stream : plain.at("/data/result")) {
            assertTrue(stream.at("/stream/trace_id").isTextual(), "structured metadata joins the stream's labels");
            for (JsonNode value : stream.get("values")) {
                assertEquals(2, value.size());
                values++;
            }
        }
        assertEquals(expected.size(), values);
        return response;
    }

    private static HttpResponse<byte[]> get(InetSocketAddress query, String endpoint, String logql, String params,
                                            String... headers) throws Exception {
        String q = logql == null ? "?" : "?query=" + URLEncoder.encode(logql, StandardCharsets.UTF_8);
        return Http.get(query, "/loki/api/v1/" + endpoint + q + params, headers);
    }

    private static JsonNode ok(HttpResponse<byte[]> response) throws Exception {
        assertEquals(200, response.statusCode(), Http.text(response));
        JsonNode doc = JSON.readTree(response.body());
        assertEquals("success", doc.get("status").asText());
        return doc;
    }

    private static List<String> fields(JsonNode object) {
        List<String> out = new ArrayList<>();
        object.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static List<String> strings(JsonNode doc) {
        List<String> out = new ArrayList<>();
        for (Iterator<JsonNode> it = doc.get("data").elements(); it.hasNext(); ) {
            out.add(it.next().asText());
        }
        return out;
    }
}
