package dev.needle.query.tempo;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.tempopb.QueryInstantResponse;
import dev.needle.query.tempopb.QueryRangeResponse;
import dev.needle.query.tempopb.Sample;
import dev.needle.query.tempopb.TimeSeries;
import dev.needle.query.traceql.MetricsExpr;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.TraceEvaluator;
import dev.needle.query.traceql.TraceQlParser;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /api/metrics/query_range} and {@code /api/metrics/query} over real blocks, decoded strictly as Tempo's
 * QueryRangeResponse and QueryInstantResponse; the counts are the fixture's spans counted here by start time,
 * in Tempo's right-closed steps.
 */
class MetricsEndpointTest {

    private static final long START = ApiFixture.T0_SECONDS - 60;
    private static final long END = ApiFixture.T0_SECONDS + 300;
    private static final long STEP = 60;

    @TempDir
    Path dir;
    private ApiFixture api;

    @BeforeEach
    void setUp() throws Exception {
        api = new ApiFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        api.close();
    }

    private HttpTester.Response get(String path, String query, String params) throws Exception {
        return api.get(path + "?q=" + enc(query) + "&start=" + START + "&end=" + END + params, "X-Scope-OrgID", A.value());
    }

    private QueryRangeResponse range(String query) throws Exception {
        HttpTester.Response r = get("/api/metrics/query_range", query, "&step=" + STEP + "s");
        assertEquals(200, r.getStatus(), query + ": " + r.getContent());
        return GrafanaDecode.decode(r.getContent(), QueryRangeResponse.newBuilder()).build();
    }

    /** The step a start time falls in, by its end in milliseconds: steps are (end - 60 s, end]. */
    private static long stepEndMs(long startNanos) {
        long s = START * 1_000_000_000L;
        long step = STEP * 1_000_000_000L;
        long k = (startNanos - s + step - 1) / step;
        return (s + k * step) / 1_000_000L;
    }

    private static boolean inRange(SpanRecord s) {
        return s.startTimeUnixNano() > START * 1_000_000_000L && s.startTimeUnixNano() <= END * 1_000_000_000L;
    }

    private static String service(SpanRecord s) {
        return s.resource().attributes().stream().filter(kv -> kv.key().equals("service.name"))
                .map(kv -> ((AnyValue.Str) kv.value()).value()).findFirst().orElseThrow();
    }

    /** label value (or "" without labels) → step end (ms) → value. */
    private static Map<String, Map<Long, Double>> points(QueryRangeResponse body) {
        Map<String, Map<Long, Double>> out = new TreeMap<>();
        for (TimeSeries t : body.getSeriesList()) {
            String label = t.getLabelsCount() == 0 ? "" : t.getLabels(0).getValue().getStringValue();
            Map<Long, Double> points = new TreeMap<>();
            for (Sample p : t.getSamplesList()) {
                points.put(p.getTimestampMs(), p.getValue());
            }
            out.put(label, points);
        }
        return out;
    }

    /** Each series holds every step of the range, 0 where it counted nothing, as Tempo's do. */
    private static Map<String, Map<Long, Double>> counted(List<SpanRecord> spans, boolean byService, double per) {
        Map<String, Map<Long, Double>> out = new TreeMap<>();
        for (SpanRecord s : spans) {
            if (inRange(s)) {
                out.computeIfAbsent(byService ? service(s) : "", k -> zeros())
                        .merge(stepEndMs(s.startTimeUnixNano()), 1.0 / per, Double::sum);
            }
        }
        return out;
    }

    private static Map<Long, Double> zeros() {
        Map<Long, Double> steps = new TreeMap<>();
        for (long end = START + STEP; end <= END; end += STEP) {
            steps.put(end * 1000, 0.0);
        }
        return steps;
    }

    @Test
    void queryRange_countOverTimeByService_countsEverySpanInItsStep() throws Exception {
        QueryRangeResponse body = range("{ } | count_over_time() by (resource.service.name)");
        assertEquals(counted(api.spansA, true, 1), points(body));
        assertEquals("resource.service.name", body.getSeries(0).getLabels(0).getKey());
        assertEquals(dev.needle.query.tempopb.PartialStatus.COMPLETE, body.getStatus());
        assertTrue(body.getMetrics().getInspectedSpans() >= api.spansA.stream().filter(MetricsEndpointTest::inRange)
                .count());
    }

    @Test
    void queryRange_rateOfAnAttribute_isItsSpansPerSecond() throws Exception {
        QueryRangeResponse body = range("{ span.http.response.status_code = 500 } | rate()");
        Map<String, Map<Long, Double>> expected = counted(
                api.spansA.stream().filter(ApiFixture::hasStatus500).toList(), false, STEP);
        assertFalse(expected.isEmpty());
        assertEquals(expected, points(body));
    }

    @Test
    void queryRange_structural_countsTheRightHandSpansOfWholeTraces() throws Exception {
        String q = "{ resource.service.name = \"frontend\" } >> { resource.service.name = \"payment\" } | count_over_time()";
        Query.Metrics query = (Query.Metrics) parse(q);
        Map<Bytes, List<SpanRecord>> traces = api.spansA.stream()
                .collect(Collectors.groupingBy(SpanRecord::traceId, LinkedHashMap::new, Collectors.toList()));
        List<SpanRecord> counted = traces.values().stream()
                .flatMap(t -> TraceEvaluator.evaluate(((MetricsExpr.Pipeline) query.expr()).spans(), t).stream())
                .flatMap(set -> set.spans().stream()).map(m -> m.span()).distinct().toList();
        assertFalse(counted.isEmpty());
        assertEquals(counted(counted, false, 1), points(range(q)));
    }

    @Test
    void query_instant_isOneValueOverTheRange() throws Exception {
        HttpTester.Response r = get("/api/metrics/query", "{ } | count_over_time() by (resource.service.name)", "");
        assertEquals(200, r.getStatus(), r.getContent());
        QueryInstantResponse body = GrafanaDecode.decode(r.getContent(), QueryInstantResponse.newBuilder()).build();
        Map<String, Double> expected = api.spansA.stream().filter(MetricsEndpointTest::inRange)
                .collect(Collectors.groupingBy(MetricsEndpointTest::service, TreeMap::new, Collectors.summingDouble(s -> 1)));
        Map<String, Double> actual = new TreeMap<>();
        body.getSeriesList().forEach(s -> actual.put(s.getLabels(0).getValue().getStringValue(), s.getValue()));
        assertEquals(expected, actual);
    }

    @Test
    void badQueries_are400() throws Exception {
        for (String q : List.of("{ }", "{ } | rate() == 42", "{ } | rate(", "{ } | quantile_over_time(duration)")) {
            HttpTester.Response r = get("/api/metrics/query_range", q, "");
            assertEquals(400, r.getStatus(), q);
        }
        HttpTester.Response backwards = api.get("/api/metrics/query_range?q=" + enc("{ } | rate()") + "&start=" + END
                + "&end=" + START, "X-Scope-OrgID", A.value());
        assertEquals(400, backwards.getStatus());
        HttpTester.Response tooManySteps = get("/api/metrics/query_range", "{ } | rate()", "&step=1ms");
        assertEquals(400, tooManySteps.getStatus());
    }

    @Test
    void defaultStep_isTemposAbout240Points() {
        long hour = 3_600_000_000_000L;
        assertEquals(15_000_000_000L, MetricsEndpoint.defaultStep(0, hour));
        assertEquals(5 * 60_000_000_000L, MetricsEndpoint.defaultStep(0, 24 * hour));
        assertEquals(1_000_000_000L, MetricsEndpoint.defaultStep(0, 2 * 60_000_000_000L));
        assertEquals(100_000_000L, MetricsEndpoint.defaultStep(0, 30_000_000_000L));
    }

    private static Query parse(String q) {
        try {
            return TraceQlParser.parse(q);
        } catch (QueryParseException e) {
            throw new AssertionError(q, e);
        }
    }

}
