package dev.needle.query.loki;

import static dev.needle.query.loki.DrilldownFixture.RANGE;
import static dev.needle.query.loki.DrilldownFixture.T0_SECONDS;
import static dev.needle.query.loki.DrilldownFixture.assertBadRequest;
import static dev.needle.query.loki.DrilldownFixture.json;
import static dev.needle.query.loki.DrilldownFixture.pairs;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.query.engine.QueryLimits;
import dev.needle.query.http.JsonTree;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The endpoints of Grafana's Logs Drilldown over {@link DrilldownFixture}'s records, each reply held to the
 * shape Loki writes key for key: detected_labels, detected_fields and a field's values, patterns; and the
 * requests Drilldown's first screens and Explore's histogram send.
 */
class LokiDrilldownApiTest {

    private static final String ISO_RANGE = "&end=2025-11-29T19:57:00.000Z&start=2025-11-29T19:55:00.000Z";

    @TempDir
    Path dir;
    private DrilldownFixture logs;

    @BeforeEach
    void setUp() throws Exception {
        logs = new DrilldownFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        logs.close();
    }

    /** detected_labels as label → cardinality, each entry exactly {"label","cardinality"}. */
    private static Map<String, Long> detectedLabels(Object doc) {
        assertEquals(Set.of("detectedLabels"), JsonTree.object(doc).keySet());
        Map<String, Long> out = new LinkedHashMap<>();
        for (Object label : JsonTree.array(doc, "detectedLabels")) {
            assertEquals(Set.of("label", "cardinality"), JsonTree.object(label).keySet());
            out.put((String) JsonTree.at(label, "label"), (Long) JsonTree.at(label, "cardinality"));
        }
        return out;
    }

    @Test
    void detectedLabels_withoutQuery_everyStreamsLabelsButThoseOfIdsOnly() throws Exception {
        // Drilldown's service selection asks with an empty query; build's values are all numbers: left out.
        Object doc = json(logs.get("detected_labels", "", ISO_RANGE));
        assertEquals(List.of("__aggregated_metric__", "instance", "namespace", "pod", "service_name"),
                new ArrayList<>(detectedLabels(doc).keySet()));
        assertEquals(Map.of("__aggregated_metric__", 1L, "instance", 3L, "namespace", 2L, "pod", 3L,
                "service_name", 2L), detectedLabels(doc));
    }

    @Test
    void detectedLabels_ofASelector_itsStreamsOnly() throws Exception {
        Object doc = json(logs.get("detected_labels", "{service_name=\"cart\"}", ISO_RANGE));
        assertEquals(Map.of("instance", 2L, "namespace", 2L, "pod", 2L, "service_name", 1L), detectedLabels(doc));
    }

    /** A detected field as Loki writes it. */
    private record Field(String label, String type, long cardinality, List<String> parsers, List<String> jsonPath) {
    }

    @SuppressWarnings("unchecked")
    private static List<Field> fields(Object doc) {
        assertEquals(Set.of("fields", "limit"), JsonTree.object(doc).keySet());
        assertEquals(1000L, JsonTree.at(doc, "limit"));
        List<Field> out = new ArrayList<>();
        for (Object f : JsonTree.array(doc, "fields")) {
            Set<String> keys = JsonTree.object(f).keySet();
            assertEquals(keys.contains("jsonPath") ? Set.of("label", "type", "cardinality", "parsers", "jsonPath")
                    : Set.of("label", "type", "cardinality", "parsers"), keys);
            out.add(new Field((String) JsonTree.at(f, "label"), (String) JsonTree.at(f, "type"),
                    (Long) JsonTree.at(f, "cardinality"), (List<String>) (Object) JsonTree.at(f, "parsers"),
                    (List<String>) (Object) JsonTree.at(f, "jsonPath")));
        }
        return out;
    }

    @Test
    void detectedFields_logfmtLines_structuredMetadataAndParsedFieldsTyped() throws Exception {
        Object doc = json(logs.get("detected_fields", "{service_name=\"checkout\"}", ISO_RANGE));
        List<String> logfmt = List.of("logfmt");
        assertEquals(List.of(
                new Field("detected_level", "string", 2, null, null),
                new Field("duration", "duration", 3, logfmt, null),
                new Field("http_method", "string", 2, null, null),
                new Field("level", "string", 2, logfmt, null),
                new Field("msg", "string", 2, logfmt, null),
                new Field("order_id", "int", 3, logfmt, null),
                new Field("severity_number", "int", 2, null, null)), fields(doc));
    }

    @Test
    void detectedFields_jsonLines_withTheirJsonPath() throws Exception {
        Object doc = json(logs.get("detected_fields", "{namespace=\"prod\", service_name=\"cart\"}", ISO_RANGE));
        List<String> json = List.of("json");
        assertEquals(List.of(
                new Field("detected_level", "string", 2, null, null),
                new Field("items", "int", 2, json, List.of("items")),
                new Field("ok", "boolean", 2, json, List.of("ok")),
                new Field("severity_number", "int", 2, null, null),
                new Field("size", "bytes", 2, json, List.of("size")),
                new Field("user_id", "string", 2, json, List.of("user", "id"))), fields(doc));
        // line_limit samples the newest lines only.
        Object newest = json(logs.get("detected_fields", "{namespace=\"prod\", service_name=\"cart\"}",
                ISO_RANGE + "&line_limit=1"));
        assertEquals(List.of(1L), fields(newest).stream().map(Field::cardinality).distinct().toList());
    }

    @Test
    void detectedFields_queryWithPipeline_andNoFields() throws Exception {
        Object filtered = json(logs.get("detected_fields", "{service_name=\"checkout\"} |= \"declined\"", ISO_RANGE));
        assertEquals(List.of(1L), fields(filtered).stream().map(Field::cardinality).distinct().toList());
        // Plain lines give no parsed field; Loki answers {} when nothing is found at all.
        assertEquals(Map.of(), JsonTree.object(json(logs.get("detected_fields", "{service_name=\"nothing\"}",
                ISO_RANGE))));
    }

    @Test
    void detectedFieldValues_newestFirst_sizesAsGoHumanizeWritesThem() throws Exception {
        Object ids = json(logs.get("detected_field/order_id/values", "{service_name=\"checkout\"}", ISO_RANGE));
        assertEquals(Set.of("values", "limit"), JsonTree.object(ids).keySet());
        assertEquals(List.of("1003", "1002", "1001"), JsonTree.array(ids, "values"));
        assertEquals(1000L, JsonTree.at(ids, "limit"));
        Object sizes = json(logs.get("detected_field/size/values", "{service_name=\"cart\"}", ISO_RANGE));
        assertEquals(List.of("2.0MB", "10kB"), JsonTree.array(sizes, "values"));
        Object methods = json(logs.get("detected_field/http_method/values", "{service_name=\"checkout\"}",
                ISO_RANGE + "&limit=1"));
        assertEquals(List.of("POST"), JsonTree.array(methods, "values"));
        assertEquals(1L, JsonTree.at(methods, "limit"));
    }

    /** A pattern as Loki writes it: pattern, level and samples [[seconds, count], …]. */
    private record Pattern(String pattern, String level, List<List<Object>> samples) {
    }

    private static List<Pattern> patterns(Object doc) {
        assertEquals(Set.of("status", "data"), JsonTree.object(doc).keySet());
        assertEquals("success", JsonTree.at(doc, "status"));
        List<Pattern> out = new ArrayList<>();
        for (Object p : JsonTree.array(doc, "data")) {
            assertEquals(Set.of("pattern", "level", "samples"), JsonTree.object(p).keySet());
            out.add(new Pattern((String) JsonTree.at(p, "pattern"), (String) JsonTree.at(p, "level"),
                    pairs(JsonTree.array(p, "samples"))));
        }
        return out;
    }

    private static List<List<Object>> samples(long... secondsAndCounts) {
        List<List<Object>> out = new ArrayList<>();
        for (int i = 0; i < secondsAndCounts.length; i += 2) {
            out.add(Arrays.asList(secondsAndCounts[i], secondsAndCounts[i + 1]));
        }
        return out;
    }

    @Test
    void patterns_drainsTemplatesPerLevel_countedPerStep() throws Exception {
        // Drilldown's patterns tab asks so: ISO times and Grafana's interval as the step.
        Object doc = json(logs.get("patterns", "{service_name=\"checkout\"}", ISO_RANGE + "&step=60s"));
        assertEquals(List.of(
                new Pattern("level=info msg=\"order placed\" order_id=<_> duration=<_>", "info",
                        samples(T0_SECONDS, 2)),
                new Pattern("level=error msg=\"payment declined\" order_id=1003 duration=1.5s", "error",
                        samples(T0_SECONDS + 60, 1))), patterns(doc));
        Object staging = json(logs.get("patterns", "{namespace=\"staging\"}", RANGE + "&step=10s"));
        assertEquals(List.of(
                new Pattern("connected to <_> in <_> ms", "info", samples(T0_SECONDS + 30, 1, T0_SECONDS + 40, 1)),
                new Pattern("cache miss for key user:42", "debug", samples(T0_SECONDS + 50, 1))), patterns(staging));
    }

    @Test
    void explore_histogramAndQueryStats_asGrafanaSendsThem() throws Exception {
        // Explore's logs volume: a range query of count_over_time by level, with Grafana's interval.
        Object doc = json(logs.get("query_range",
                "sum by (level, detected_level) (count_over_time({service_name=\"checkout\"} | drop __error__[1m]))",
                RANGE + "&step=60"));
        assertEquals("matrix", JsonTree.at(doc, "data", "resultType"));
        Map<Object, List<List<Object>>> byLevel = new LinkedHashMap<>();
        for (Object series : JsonTree.array(doc, "data", "result")) {
            byLevel.put(JsonTree.object(series, "metric"), pairs(JsonTree.array(series, "values")));
        }
        assertEquals(Map.of(
                Map.of("detected_level", "info"), List.of(List.of(T0_SECONDS + 60, "2")),
                Map.of("detected_level", "error"), List.of(List.of(T0_SECONDS + 120, "1"))), byLevel);
        Object stats = json(logs.get("index/stats", "{service_name=\"checkout\"}", RANGE));
        assertEquals(Map.of("streams", 1L, "chunks", 2L, "entries", 3L, "bytes", 176L), JsonTree.object(stats));
    }

    @Test
    void overTheQueryLimits_answeredAsALogQueryIs_butVolumeIsASumOfCounts() throws Exception {
        try (DrilldownFixture small = new DrilldownFixture(dir.resolve("small"),
                new QueryLimits(8_000, 8_000, Duration.ofMinutes(1)))) {
            String selector = "{service_name=~\".+\"}";
            HttpTester.Response logQuery = small.get("query_range", selector, RANGE);
            assertEquals(422, logQuery.getStatus(), logQuery.getContent());
            for (String path : List.of("detected_labels", "detected_fields", "detected_field/msg/values", "patterns")) {
                HttpTester.Response r = small.get(path, selector, RANGE);
                assertEquals(422, r.getStatus(), path + ": " + r.getContent());
                assertEquals(logQuery.getContent(), r.getContent(), path);
            }
            // Volume is a sum of bytes_over_time and stats a count, both counted as they are read: they hold no
            // record, and pass.
            for (String path : List.of("index/volume", "index/volume_range")) {
                assertEquals(JsonTree.array(json(logs.get(path, selector, RANGE)), "data", "result"),
                        JsonTree.array(json(small.get(path, selector, RANGE)), "data", "result"), path);
            }
            assertEquals(JsonTree.object(json(logs.get("index/stats", selector, RANGE))),
                    JsonTree.object(json(small.get("index/stats", selector, RANGE))));
        }
    }

    @Test
    void badParameters_are400sNamingThem() throws Exception {
        assertBadRequest(logs.get("detected_fields", "{service_name=\"checkout\"}", ISO_RANGE + "&line_limit=0"),
                "invalid line_limit: expected a whole number from 1 to 5000, got \"0\"");
        assertBadRequest(logs.get("detected_fields", "{service_name=\"checkout\"}", ISO_RANGE + "&line_limit=9000"),
                "max entries limit per query exceeded");
        assertBadRequest(logs.get("detected_fields", "{service_name=\"checkout\"}", ISO_RANGE + "&limit=many"),
                "invalid limit: expected a positive whole number, got \"many\"");
        assertBadRequest(logs.get("detected_fields", "count_over_time({service_name=\"checkout\"}[1m])", ISO_RANGE),
                "only a log query");
        assertBadRequest(logs.get("detected_labels", "{service_name=", ISO_RANGE), "parse error");
        assertBadRequest(logs.get("patterns", "{service_name=\"checkout\"}", ISO_RANGE + "&step=soon"),
                "could not parse 'step' parameter");
        assertBadRequest(logs.get("patterns", "", ISO_RANGE), "empty query");
    }
}
