package dev.needle.query.traceql;

import static dev.needle.query.traceql.Traces.span;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.ql.QueryParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsAggregatorTest {

    private static final long S = 1_000_000_000L;

    /**
     * Range (0, 60s] in steps of 10s. Spans start at 0 (outside: a step is open at its start), 5s
     * and 10s (step 1, which ends at 10s), 15s twice (step 2) and 59s (step 6).
     */
    private static final List<SpanRecord> TRACE = List.of(
            span(1).name("root").service("api").time(0, 60 * S).build(),
            span(2).parent(1).name("a").service("api").time(5 * S, 6 * S).build(),
            span(3).parent(1).name("b").service("db").status(2).time(10 * S, 12 * S).build(),
            span(4).parent(1).name("c").service("db").time(15 * S, 18 * S).build(),
            span(5).parent(1).name("db").service("db").status(2).time(15 * S, 19 * S).build(),
            span(6).parent(1).name("e").service("api").time(59 * S, 60 * S).build());

    @Test
    void countOverTimeCountsSpansInTheStepOfTheirStart() throws QueryParseException {
        assertEquals(List.of(series(Map.of(), 2, 2, 0, 0, 0, 1)), run("{ } | count_over_time()"));
        assertEquals(List.of(series(Map.of(), 0.2, 0.2, 0, 0, 0, 0.1)), run("{ } | rate()"));
    }

    @Test
    void byLabelsEachSeries() throws QueryParseException {
        assertEquals(List.of(series(Map.of("resource.service.name", new Value.Str("api")), 1, 0, 0, 0, 0, 1),
                series(Map.of("resource.service.name", new Value.Str("db")), 1, 2, 0, 0, 0, 0)),
                run("{ } | count_over_time() by (resource.service.name)"));
        assertEquals(List.of(series(Map.of("span.nope", Value.NIL), 2, 2, 0, 0, 0, 1)),
                run("{ } | count_over_time() by (span.nope)"));
    }

    @Test
    void overTimeFunctionsTakeDurationsInSeconds() throws QueryParseException {
        assertEquals(List.of(points(Map.of(), new double[] {2, 4, Double.NaN, Double.NaN, Double.NaN, 1})),
                run("{ } | max_over_time(duration)"));
        assertEquals(List.of(points(Map.of(), new double[] {1, 3, Double.NaN, Double.NaN, Double.NaN, 1})),
                run("{ } | min_over_time(duration)"));
        assertEquals(List.of(points(Map.of(), new double[] {1.5, 3.5, Double.NaN, Double.NaN, Double.NaN, 1})),
                run("{ } | avg_over_time(duration)"));
        assertEquals(List.of(points(Map.of(), new double[] {3, 7, Double.NaN, Double.NaN, Double.NaN, 1})),
                run("{ } | sum_over_time(duration)"));
    }

    @Test
    void histogramsAndQuantilesUseTempoPowerOfTwoBuckets() throws QueryParseException {
        // durations 1s, 2s (step 1), 3s, 4s (step 2), 1s (step 6): buckets 2^30, 2^31, 2^32 ns in seconds
        double b30 = 1.073741824;
        double b31 = 2.147483648;
        double b32 = 4.294967296;
        assertEquals(List.of(series(Map.of("__bucket", new Value.Float(b30)), 1, 0, 0, 0, 0, 1),
                series(Map.of("__bucket", new Value.Float(b31)), 1, 0, 0, 0, 0, 0),
                series(Map.of("__bucket", new Value.Float(b32)), 0, 2, 0, 0, 0, 0)),
                run("{ name != \"root\" } | histogram_over_time(duration)"));
        List<TimeSeries> q = run("{ name != \"root\" } | quantile_over_time(duration, .5, 1)");
        // step 2 has both spans in the 2^32 bucket: p50 is halfway into it, 2^(32 - 1/2) ns
        assertEquals(points(Map.of("p", new Value.Float(0.5)),
                new double[] {b30, b32 / Math.sqrt(2), Double.NaN, Double.NaN, Double.NaN, b30}),
                q.get(0));
        assertEquals(points(Map.of("p", new Value.Float(1.0)), new double[] {b31, b32, Double.NaN, Double.NaN, Double.NaN, b30}),
                q.get(1));
        // all four in one step: p60 lies halfway (in samples) into the 2^32 bucket, interpolated exponentially
        List<TimeSeries> wide = run("{ name != \"root\" && duration > 1s } | quantile_over_time(duration, 0.6)",
                0, 60 * S, 60 * S);
        assertEquals(Math.sqrt(b31 * b32), wide.get(0).points().get(0).value(), 1e-9);
    }

    @Test
    void secondStagesAndFiltersKeepSeriesAndPoints() throws QueryParseException {
        assertEquals(List.of(points(Map.of("resource.service.name", new Value.Str("api")),
                        new double[] {1, Double.NaN, 0, 0, 0, 1}),
                points(Map.of("resource.service.name", new Value.Str("db")), new double[] {Double.NaN, 2, Double.NaN,
                        Double.NaN, Double.NaN, Double.NaN})),
                run("{ } | count_over_time() by (resource.service.name) | topk(1)"));
        assertEquals(List.of(points(Map.of(), new double[] {2, 2, Double.NaN, Double.NaN, Double.NaN, Double.NaN})),
                run("{ } | count_over_time() > 1"));
        // 0/0 in the empty steps is no point
        assertEquals(List.of(points(Map.of(), new double[] {0.5, 0.5, Double.NaN, Double.NaN, Double.NaN, 0})),
                run("({ status = error } | count_over_time()) / ({ } | count_over_time())"));
        assertEquals(List.of(series(Map.of(), 200, 200, 0, 0, 0, 100)), run("({ } | count_over_time()) * 100"));
    }

    @Test
    void compareCountsEachValueInSelectionAndBaseline() throws QueryParseException {
        List<TimeSeries> out = run("{ name != \"root\" } | compare({ status = error })");
        Map<String, double[]> byLabels = new LinkedHashMap<>();
        out.forEach(t -> byLabels.put(t.labels().toString(), values(t)));
        assertEquals(List.of(1.0, 0.0, 0.0, 0.0, 0.0, 1.0), box(byLabels.get("{__meta_type=\"baseline\", resource.service.name=\"api\"}")));
        assertEquals(List.of(1.0, 1.0, 0.0, 0.0, 0.0, 0.0), box(byLabels.get("{__meta_type=\"selection\", resource.service.name=\"db\"}")));
        assertEquals(List.of(1.0, 1.0, 0.0, 0.0, 0.0, 0.0), box(byLabels.get("{__meta_type=\"selection\", status=error}")));
        assertEquals(List.of(1.0, 1.0, 0.0, 0.0, 0.0, 1.0), box(byLabels.get("{__meta_type=\"baseline_total\", name=nil}")));
    }

    @Test
    void aRangeHasAPositiveStepAndBoundedSteps() throws QueryParseException {
        Query.Metrics q = (Query.Metrics) TraceQlParser.parse("{ } | rate()");
        assertThrows(IllegalArgumentException.class, () -> new MetricsAggregator(q, 0, 10, 0));
        assertThrows(IllegalArgumentException.class, () -> new MetricsAggregator(q, 10, 0, 1));
        new MetricsAggregator(q, 0, MetricsAggregator.MAX_STEPS, 1);
        assertThrows(IllegalArgumentException.class, () -> new MetricsAggregator(q, 0, MetricsAggregator.MAX_STEPS + 1, 1));
    }

    /** Queries a block's COUNTS can answer, and a few it cannot (span names, durations as values, attributes). */
    private static final List<String> COUNTED_QUERIES = List.of(
            "{ } | rate()",
            "{ } | count_over_time() by (resource.service.name)",
            "{ status = error } | rate() by (resource.service.name)",
            "{ resource.service.name = \"db\" && kind != server } | count_over_time() by (kind, status)",
            "{ resource.service.name =~ \"a.*\" || status = ok } | rate() by (status)",
            "{ } | histogram_over_time(duration)",
            "{ } | quantile_over_time(duration, .5, .9, .99) by (resource.service.name)",
            "{ status = error } | histogram_over_time(duration) by (resource.service.name) | topk(2)",
            "({ status = error } | count_over_time()) / ({ } | count_over_time())",
            "{ name = \"a\" } | rate()",
            "{ } | max_over_time(duration)",
            "{ } | count_over_time() by (span.route)");

    @Test
    void countsOfABlock_giveTheSeriesItsSpansGive() throws Exception {
        java.util.Random random = new java.util.Random(7);
        String[] services = {"api", "db", "auth", ""};
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 1; i <= 3000; i++) {
            long start = random.nextInt(70) * S + (random.nextBoolean() ? 0 : random.nextInt(1_000_000_000));
            long duration = random.nextInt(4) == 0 ? random.nextInt(3) : (long) Math.pow(2, random.nextInt(36)) + random.nextInt(5) - 2;
            spans.add(span(i).name(random.nextBoolean() ? "a" : "b").service(services[random.nextInt(services.length)])
                    .kind(random.nextInt(4)).status(random.nextInt(3)).time(start, start + duration)
                    .attr("route", "/r" + random.nextInt(3)).build());
        }
        dev.needle.blocks.index.BlockCounts.Builder builder =
                new dev.needle.blocks.index.BlockCounts.Builder(dev.needle.blocks.model.Signal.SPANS);
        spans.forEach(s -> builder.span(s, s.resource(), s.scope()));
        dev.needle.blocks.index.BlockCounts counts = dev.needle.blocks.index.BlockCounts.decode(
                builder.file().orElseThrow(), "test");
        for (String text : COUNTED_QUERIES) {
            Query.Metrics query = (Query.Metrics) TraceQlParser.parse(text);
            for (long[] range : new long[][] {{0, 60 * S, 10 * S}, {5 * S, 65 * S, 20 * S}, {0, 70 * S, 1 * S}}) {
                MetricsAggregator read = new MetricsAggregator(query, range[0], range[1], range[2]);
                spans.forEach(s -> read.add(List.of(s)));
                MetricsAggregator counted = new MetricsAggregator(query, range[0], range[1], range[2]);
                boolean countable = !text.contains("{ name =") && !text.contains("max_over") && !text.contains("span.");
                assertEquals(countable, counted.countable(S), text);
                if (countable && counted.countable(counts)) {
                    counted.add(counts);
                    assertEquals(read.series(), counted.series(), text + " over " + java.util.Arrays.toString(range));
                }
            }
        }
        // A step that is not a whole number of seconds, and an instant query over a range that is not.
        Query.Metrics rate = (Query.Metrics) TraceQlParser.parse("{ } | rate()");
        assertEquals(false, new MetricsAggregator(rate, 0, 60 * S, 1_500_000_000L).countable(S));
        assertEquals(false, MetricsAggregator.instant(rate, 1, 60 * S).countable(S));
        assertEquals(true, MetricsAggregator.instant(rate, S, 60 * S).countable(S));
    }

    private static List<TimeSeries> run(String query) throws QueryParseException {
        return run(query, 0, 60 * S, 10 * S);
    }

    private static List<TimeSeries> run(String query, long start, long end, long step) throws QueryParseException {
        MetricsAggregator m = new MetricsAggregator((Query.Metrics) TraceQlParser.parse(query), start, end, step);
        m.add(TRACE);
        return m.series();
    }

    private static TimeSeries series(Map<String, Value> labels, double... values) {
        return points(labels, values);
    }

    /** A series with a point at step i (ending at (i+1)·10s) for each value that is not NaN. */
    private static TimeSeries points(Map<String, Value> labels, double[] values) {
        List<TimeSeries.Point> points = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            if (!Double.isNaN(values[i])) {
                points.add(new TimeSeries.Point((i + 1) * 10 * S, values[i]));
            }
        }
        return new TimeSeries(labels, points);
    }

    private static double[] values(TimeSeries t) {
        double[] v = new double[6];
        java.util.Arrays.fill(v, Double.NaN);
        t.points().forEach(p -> v[(int) (p.timestampNanos() / (10 * S)) - 1] = p.value());
        return v;
    }

    private static List<Double> box(double[] v) {
        return v == null ? null : java.util.Arrays.stream(v).boxed().toList();
    }
}
