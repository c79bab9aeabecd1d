package dev.needle.query.loki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.LogRecord;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.http.JsonTree;
import dev.needle.query.http.QueryApi;
import dev.needle.query.logql.LokiEntry;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loki's endpoints through the query API: the shapes of Loki's HTTP API docs key for key (the stream
 * and categorized forms, vectors, labels, series), Loki's defaults and errors, tenants kept apart.
 */
class LokiApiTest {

    private static final String RANGE = "&start=" + ApiFixture.T0 + "&end=" + (ApiFixture.T0 + 600 * ApiFixture.SECOND);
    private static final Set<String> STATS = Set.of("ingester", "store", "summary");

    @TempDir
    java.nio.file.Path dir;
    private ApiFixture api;

    @BeforeEach
    void setUp() throws Exception {
        api = new ApiFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        api.close();
    }

    private Object json(HttpTester.Response r) throws Exception {
        assertEquals(200, r.getStatus(), r.getContent());
        assertEquals("application/json", r.get("Content-Type"));
        return JsonTree.parse(r.getContent());
    }

    private HttpTester.Response get(String path, String query, String params, String... headers) throws Exception {
        return api.get("/loki/api/v1/" + path + "?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + params,
                withTenant(headers));
    }

    private static String[] withTenant(String... headers) {
        List<String> all = new ArrayList<>(List.of("X-Scope-OrgID", ApiFixture.A.value()));
        all.addAll(List.of(headers));
        return all.toArray(String[]::new);
    }

    /** A's log records of {@code service} as Loki entries, newest first. */
    private List<LokiEntry> entriesOf(String service) {
        return api.logsA.stream().map(LokiEntry::of).filter(e -> e.labels().get("service_name").equals(service))
                .sorted(Comparator.comparingLong(LokiEntry::timeUnixNano).reversed()).toList();
    }

    @Test
    void queryRange_plain_streamsOfLabelsAndMetadataWithTwoElementValues() throws Exception {
        HttpTester.Response r = get("query_range", "{service_name=\"cart\"}", RANGE + "&limit=1000");
        Object doc = json(r);
        assertEquals(Set.of("status", "data"), JsonTree.object(doc).keySet());
        assertEquals("success", JsonTree.at(doc, "status"));
        assertEquals(Set.of("resultType", "result", "stats"), JsonTree.object(doc, "data").keySet());
        assertEquals("streams", JsonTree.at(doc, "data", "resultType"));
        assertEquals(STATS, JsonTree.object(doc, "data", "stats").keySet());
        List<String> times = new ArrayList<>();
        for (Object stream : JsonTree.array(doc, "data", "result")) {
            assertEquals(Set.of("stream", "values"), JsonTree.object(stream).keySet());
            Map<String, Object> labels = JsonTree.object(stream, "stream");
            assertEquals("cart", labels.get("service_name"));
            assertTrue(((String) labels.get("trace_id")).matches("[0-9a-f]{32}"), labels::toString);
            assertEquals("app", labels.get("log_source"));
            for (Object value : JsonTree.array(stream, "values")) {
                List<Object> pair = JsonTree.array(value);
                assertEquals(2, pair.size());
                times.add((String) pair.get(0));
                assertEquals("handled add-to-cart", pair.get(1));
            }
        }
        List<LokiEntry> expected = entriesOf("cart");
        assertEquals(expected.stream().map(e -> Long.toString(e.timeUnixNano())).toList(), times);
        assertEquals("COMPLETE", r.get(QueryApi.STATUS_HEADER));
        // Every log block holds cart's records: each is opened, none skipped.
        assertEquals(api.logBlocksA.size(), Integer.parseInt(r.get(QueryApi.INSPECTED_HEADER)));
        assertEquals(0, Integer.parseInt(r.get(QueryApi.SKIPPED_HEADER)));
    }

    @Test
    void queryRange_categorized_labelsOnlyAndMetadataInTheThirdElement() throws Exception {
        Object doc = json(get("query_range", "{service_name=\"payment\"} | detected_level=\"error\"", RANGE + "&direction=forward",
                "X-Loki-Response-Encoding-Flags", "categorize-labels"));
        assertEquals(Set.of("resultType", "encodingFlags", "result", "stats"), JsonTree.object(doc, "data").keySet());
        assertEquals(List.of("categorize-labels"), JsonTree.array(doc, "data", "encodingFlags"));
        List<Object> result = JsonTree.array(doc, "data", "result");
        assertEquals(1, result.size());
        assertEquals(Map.of("service_name", "payment"), JsonTree.object(result.get(0), "stream"));
        List<Object> values = JsonTree.array(result.get(0), "values");
        List<LokiEntry> expected = new ArrayList<>(entriesOf("payment").stream()
                .filter(e -> e.metadata().get("detected_level").equals("error")).toList());
        java.util.Collections.reverse(expected);
        assertEquals(expected.size(), values.size());
        assertTrue(!values.isEmpty());
        for (int i = 0; i < values.size(); i++) {
            List<Object> v = JsonTree.array(values.get(i));
            assertEquals(3, v.size());
            assertEquals(Long.toString(expected.get(i).timeUnixNano()), v.get(0));
            assertEquals(Set.of("structuredMetadata"), JsonTree.object(v.get(2)).keySet());
            assertEquals(expected.get(i).shown(), JsonTree.object(v.get(2), "structuredMetadata"));
            assertEquals("17", JsonTree.at(v.get(2), "structuredMetadata", "severity_number"));
        }
    }

    @Test
    void queryRange_traceIdFilter_findsTheTracesLogs() throws Exception {
        String trace = api.failedTraces.get(1).hex();
        Object doc = json(get("query_range", "{service_name=~\".+\"} | trace_id=\"" + trace + "\"", RANGE));
        Set<Object> traces = new HashSet<>();
        int n = 0;
        for (Object stream : JsonTree.array(doc, "data", "result")) {
            traces.add(JsonTree.at(stream, "stream", "trace_id"));
            n += JsonTree.array(stream, "values").size();
        }
        assertEquals(Set.of(trace), traces);
        assertEquals(api.logsA.stream().filter(l -> l.traceId().hex().equals(trace)).count(), n);
    }

    @Test
    void queryRange_limitAndDefaults_asLoki() throws Exception {
        Object two = json(get("query_range", "{service_name=\"frontend\"}", RANGE + "&limit=2"));
        assertEquals(2, JsonTree.array(two, "data", "result").size());
        // Loki's default range is the last hour: the fixture's records are older.
        assertEquals(List.of(), JsonTree.array(json(get("query_range", "{service_name=\"frontend\"}", "")), "data", "result"));
        // Seconds, and RFC 3339.
        Object seconds = json(get("query_range", "{service_name=\"frontend\"}",
                "&start=" + ApiFixture.T0_SECONDS + "&end=2025-11-29T20:00:00Z"));
        assertEquals(entriesOf("frontend").size(), JsonTree.array(seconds, "data", "result").size());
    }

    @Test
    void queryRange_postForm_answersAsGet() throws Exception {
        String body = "query=" + URLEncoder.encode("{service_name=\"cart\"}", StandardCharsets.UTF_8) + RANGE;
        HttpTester.Request request = HttpTester.newRequest();
        request.setMethod("POST");
        request.setURI("/loki/api/v1/query_range");
        request.setHeader("Host", "localhost");
        request.setHeader("X-Scope-OrgID", ApiFixture.A.value());
        request.setHeader("Content-Type", "application/x-www-form-urlencoded");
        request.setContent(body);
        HttpTester.Response r = HttpTester.parseResponse(api.connector.getResponse(request.generate()));
        assertEquals(JsonTree.array(json(get("query_range", "{service_name=\"cart\"}", RANGE)), "data", "result"),
                JsonTree.array(json(r), "data", "result"));
    }

    @Test
    void query_grafanasHealthCheck_isTheVectorTwo() throws Exception {
        Object doc = json(get("query", "vector(1)+vector(1)", "&time=1764446100500000000"));
        assertEquals(Set.of("resultType", "result", "stats"), JsonTree.object(doc, "data").keySet());
        assertEquals("vector", JsonTree.at(doc, "data", "resultType"));
        List<Object> result = JsonTree.array(doc, "data", "result");
        assertEquals(1, result.size());
        assertEquals(Set.of("metric", "value"), JsonTree.object(result.get(0)).keySet());
        assertEquals(Map.of(), JsonTree.object(result.get(0), "metric"));
        assertEquals(List.of(1764446100.5, "2"), JsonTree.array(result.get(0), "value"));
        Object scalar = json(get("query", "1+1", "&time=1764446100"));
        assertEquals("scalar", JsonTree.at(scalar, "data", "resultType"));
        assertEquals(List.of(1764446100L, "2"), JsonTree.array(scalar, "data", "result"));
    }

    @Test
    void errors_are400PlainText_inLokisWords() throws Exception {
        assertError(get("query", "{service_name=\"cart\"}", ""), "log queries are not supported as an instant query type");
        assertError(get("query_range", "{service_name=\"cart\"", RANGE), "parse error at line 1, col 21: syntax error");
        assertError(get("query_range", "sum_over_time({a=\"b\"}[5m])", RANGE), "invalid aggregation sum_over_time without unwrap");
        assertError(get("query_range", "{a=\"b\"}", RANGE + "&limit=6000"), "max entries limit per query exceeded");
        assertError(get("query_range", "{a=\"b\"}", "&start=yesterday"), "could not parse 'start' parameter");
        assertError(get("query_range", "{a=\"b\"}", "&direction=sideways"), "invalid direction");
        assertError(get("query_range", "{a=\"b\"}", "&start=20&end=10"), "end timestamp must not be before or equal to start time");
        assertError(api.get("/loki/api/v1/series" + "?" + RANGE.substring(1), withTenant()), "at least one match[] argument");
    }

    private static void assertError(HttpTester.Response r, String message) {
        assertEquals(400, r.getStatus(), r.getContent());
        assertEquals("text/plain; charset=utf-8", r.get("Content-Type"));
        assertTrue(r.getContent().contains(message), r.getContent());
    }

    @Test
    void labels_valuesAndSeries_fromTheTenantsBlocks() throws Exception {
        Object names = json(api.get("/loki/api/v1/labels?" + RANGE.substring(1), withTenant()));
        assertEquals(List.of("service_name"), JsonTree.array(names, "data"));
        Object values = json(api.get("/loki/api/v1/label/service_name/values?" + RANGE.substring(1), withTenant()));
        List<String> services = api.logsA.stream().map(l -> LokiEntry.of(l).labels().get("service_name")).distinct()
                .sorted().toList();
        assertEquals(services, JsonTree.array(values, "data"));
        String series = "/loki/api/v1/series?match[]=" + URLEncoder.encode("{service_name=~\"cart|payment\"}", StandardCharsets.UTF_8)
                + RANGE;
        Object doc = json(api.get(series, withTenant()));
        assertEquals(List.of(Map.of("service_name", "cart"), Map.of("service_name", "payment")), JsonTree.array(doc, "data"));
        Object b = json(api.get("/loki/api/v1/label/service_name/values?" + RANGE.substring(1), "X-Scope-OrgID",
                ApiFixture.B.value()));
        assertEquals(api.logsB.stream().map(LogRecord::resource).map(res -> res.attributes().get(0).value().scalarText())
                .distinct().sorted().toList(), JsonTree.array(b, "data"));
    }
}
