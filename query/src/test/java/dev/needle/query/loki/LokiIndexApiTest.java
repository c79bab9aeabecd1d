package dev.needle.query.loki;

import static dev.needle.query.loki.DrilldownFixture.RANGE;
import static dev.needle.query.loki.DrilldownFixture.SECOND;
import static dev.needle.query.loki.DrilldownFixture.T0;
import static dev.needle.query.loki.DrilldownFixture.T0_SECONDS;
import static dev.needle.query.loki.DrilldownFixture.assertBadRequest;
import static dev.needle.query.loki.DrilldownFixture.json;
import static dev.needle.query.loki.DrilldownFixture.pairs;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.query.http.JsonTree;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Loki's index endpoints over {@link DrilldownFixture}'s records: volume and volume_range in Prometheus' vector
 * and matrix shapes with the bytes of the lines, as Loki's index groups, orders and limits them; index/stats.
 */
class LokiIndexApiTest {

    private static final Set<String> STATS = Set.of("ingester", "store", "summary");
    /** checkout's lines: 57 + 57 + 62 bytes; cart's: 54 + 54 in prod, 26 + 25 + 26 in staging. */
    private static final String CHECKOUT = "176";
    private static final String CART = "185";

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

    /** The vector's samples, each checked to be exactly {"metric":{…},"value":[t,"v"]}, as metric → value pair. */
    private static List<List<Object>> vector(Object doc) {
        assertEquals(Set.of("status", "data"), JsonTree.object(doc).keySet());
        assertEquals("success", JsonTree.at(doc, "status"));
        assertEquals(Set.of("resultType", "result", "stats"), JsonTree.object(doc, "data").keySet());
        assertEquals(STATS, JsonTree.object(doc, "data", "stats").keySet());
        assertEquals("vector", JsonTree.at(doc, "data", "resultType"));
        List<List<Object>> out = new ArrayList<>();
        for (Object sample : JsonTree.array(doc, "data", "result")) {
            assertEquals(Set.of("metric", "value"), JsonTree.object(sample).keySet());
            List<Object> value = JsonTree.array(sample, "value");
            out.add(List.of(JsonTree.object(sample, "metric"), value.get(0), value.get(1)));
        }
        return out;
    }

    @Test
    void volume_drilldownsServiceList_bytesPerServiceLargestFirst() throws Exception {
        // Logs Drilldown's first screen asks so: ISO times, limit 5000.
        Object doc = json(logs.get("index/volume", "{service_name=~\".+\"}",
                "&end=2025-11-29T19:57:00.000Z&limit=5000&start=2025-11-29T19:55:00.000Z"));
        long end = T0_SECONDS + 120;
        assertEquals(List.of(
                List.of(Map.of("service_name", "cart"), end, CART),
                List.of(Map.of("service_name", "checkout"), end, CHECKOUT)), vector(doc));
    }

    @Test
    void volume_groupedByEveryLabelTheSelectorNames() throws Exception {
        Object doc = json(logs.get("index/volume", "{service_name=\"cart\", namespace=~\".+\"}", RANGE));
        assertEquals(List.of(
                List.of(Map.of("namespace", "prod", "service_name", "cart"), T0_SECONDS + 120, "108"),
                List.of(Map.of("namespace", "staging", "service_name", "cart"), T0_SECONDS + 120, "77")), vector(doc));
    }

    @Test
    void volume_targetLabels_groupOnlyByThem() throws Exception {
        Object doc = json(logs.get("index/volume", "{service_name=~\".+\"}", RANGE + "&targetLabels=namespace"));
        assertEquals(List.of(
                List.of(Map.of("namespace", "prod"), T0_SECONDS + 120, "284"),
                List.of(Map.of("namespace", "staging"), T0_SECONDS + 120, "77")), vector(doc));
    }

    @Test
    void volume_aggregateByLabels_aSeriesPerLabelNameTiesByNameThenLimited() throws Exception {
        Object doc = json(logs.get("index/volume", "{service_name=\"cart\"}", RANGE + "&aggregateBy=labels&limit=2"));
        assertEquals(List.of(
                List.of(Map.of("build", ""), T0_SECONDS + 120, CART),
                List.of(Map.of("instance", ""), T0_SECONDS + 120, CART)), vector(doc));
    }

    @Test
    void volume_matchAny_keepsEveryLabelAndLokisOwnStreamHasNoServiceName() throws Exception {
        Object doc = json(logs.get("index/volume", "{}", RANGE + "&targetLabels=__aggregated_metric__"));
        assertEquals(List.of(List.of(Map.of("__aggregated_metric__", "checkout"), T0_SECONDS + 120, "17")), vector(doc));
    }

    @Test
    void volumeRange_aBucketPerStepStampedWithItsLastMillisecond() throws Exception {
        Object doc = json(logs.get("index/volume_range", "{service_name=\"checkout\"}", RANGE + "&step=60s"));
        assertEquals(Set.of("resultType", "result", "stats"), JsonTree.object(doc, "data").keySet());
        assertEquals("matrix", JsonTree.at(doc, "data", "resultType"));
        List<Object> result = JsonTree.array(doc, "data", "result");
        assertEquals(1, result.size());
        assertEquals(Set.of("metric", "values"), JsonTree.object(result.get(0)).keySet());
        assertEquals(Map.of("service_name", "checkout"), JsonTree.object(result.get(0), "metric"));
        assertEquals(List.of(List.of(T0_SECONDS + 59.999, "114"), List.of(T0_SECONDS + 120, "62")),
                pairs(JsonTree.array(result.get(0), "values")));
        // Buckets start at multiples of the step: a range from +30s has a first bucket of 30 seconds.
        Object late = json(logs.get("index/volume_range", "{service_name=\"checkout\"}",
                "&start=" + (T0 + 15 * SECOND) + "&end=" + (T0 + 120 * SECOND) + "&step=60"));
        assertEquals(List.of(List.of(T0_SECONDS + 59.999, "57"), List.of(T0_SECONDS + 120, "62")),
                pairs(JsonTree.array(JsonTree.array(late, "data", "result").get(0), "values")));
    }

    @Test
    void volumeRange_onePointEach_isAVectorAsLokiAnswers() throws Exception {
        // T0 is an odd minute: the two-minute buckets end at +60s and +180s, and staging's lines are all in the first.
        Object doc = json(logs.get("index/volume_range", "{namespace=\"staging\"}", RANGE + "&step=2m"));
        assertEquals(List.of(List.of(Map.of("namespace", "staging"), T0_SECONDS + 59.999, "77")), vector(doc));
    }

    @Test
    void volume_tenantsApart() throws Exception {
        Object doc = json(logs.get(DrilldownFixture.OTHER, "index/volume", "{service_name=~\".+\"}", RANGE));
        assertEquals(List.of(List.of(Map.of("service_name", "elsewhere"), T0_SECONDS + 120, "26")), vector(doc));
    }

    @Test
    void stats_streamsChunksEntriesBytes() throws Exception {
        // Grafana's query-size estimate asks so, in nanoseconds.
        Object doc = json(logs.get("index/stats", "{service_name=\"cart\"}", RANGE));
        assertEquals(Map.of("streams", 2L, "chunks", 2L, "entries", 5L, "bytes", 185L), JsonTree.object(doc));
        Object one = json(logs.get("index/stats", "{service_name=\"checkout\"}",
                "&start=" + T0 + "&end=" + (T0 + 60 * SECOND)));
        assertEquals(Map.of("streams", 1L, "chunks", 1L, "entries", 2L, "bytes", 114L), JsonTree.object(one));
        Object none = json(logs.get("index/stats", "{service_name=\"nothing\"}", RANGE));
        assertEquals(Map.of("streams", 0L, "chunks", 0L, "entries", 0L, "bytes", 0L), JsonTree.object(none));
    }

    @Test
    void badParameters_are400sNamingThem() throws Exception {
        assertBadRequest(logs.get("index/volume", "{service_name=~\".+\"}", RANGE + "&aggregateBy=pods"),
                "invalid aggregation option \"pods\" for aggregateBy");
        assertBadRequest(logs.get("index/volume", "{service_name=~\".+\"}", RANGE + "&limit=-3"),
                "invalid limit: expected a positive whole number, got \"-3\"");
        assertBadRequest(logs.get("index/volume", "{service_name=~\".+\"}", RANGE + "&targetLabels=a,b-c"),
                "invalid targetLabels: \"b-c\" is not a label name");
        assertBadRequest(logs.get("index/volume", "{service_name=~\".+\"} |= \"x\"", RANGE),
                "only a stream selector");
        assertBadRequest(logs.get("index/volume_range", "{service_name=~\".+\"}", RANGE + "&step=0"),
                "zero or negative query resolution step");
        assertBadRequest(logs.get("index/volume_range", "{service_name=~\".+\"}", RANGE + "&step=1ms"),
                "exceeded maximum resolution of 11,000 points");
        assertBadRequest(logs.get("index/stats", "{service_name=\"cart\"", RANGE), "parse error");
        assertBadRequest(logs.get("index/stats", "{service_name=\"cart\"}", "&start=20&end=10"),
                "end timestamp must not be before or equal to start time");
    }
}
