package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.Params;
import dev.needle.query.http.TimeParams;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.metric.MetricEval;
import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Loki's log volume (grafana/loki {@code pkg/storage/stores/index/seriesvolume}, {@code pkg/querier/queryrange/volume.go}):
 * the bytes of the lines of the streams a selector matches, per series or per label.
 *
 * <pre>
 * /loki/api/v1/index/volume        query, start, end, since, limit (100), targetLabels, aggregateBy (series):
 *     {"status":"success","data":{"resultType":"vector","result":[{"metric":{labels},"value":[end,"bytes"]}],"stats":{…}}}
 * /loki/api/v1/index/volume_range  the same and step: a bucket per step, aligned to multiples of the step, each
 *     point stamped with its bucket's last millisecond (the last bucket's with end), as a "matrix"
 *     ({"values":[[t,"bytes"],…]}); a "vector" when every series has one point, as Loki answers
 * </pre>
 *
 * <p>Grouping as Loki's index does: by default into the labels the selector names ({@code {}} names none and
 * keeps every label of the stream); {@code targetLabels=a,b} into those (each must be present); with
 * {@code aggregateBy=labels} a series per label name, {@code {"name":""}}, summed over the streams carrying it
 * (the targets only, when given). Series are ordered by volume, largest first, then by name; {@code limit}
 * keeps the largest of each bucket.
 *
 * <p>The volumes are a LogQL metric query, {@code sum by (labels) (bytes_over_time({selector}[step]))}, run as
 * every metric query is ({@link MetricRun}): exact, not the estimate from chunk sizes Loki's index gives, and as
 * fast as that query. Grouping by stream is grouping by every stream label name in the range (from TAGS); a first
 * bucket cut short by the start of the range is its own query over just that part.
 */
final class LokiVolume {

    /** Loki's default {@code limit}. */
    static final int DEFAULT_LIMIT = 100;
    /** The selector that matches every stream, which Loki accepts here alone. */
    private static final String MATCH_ANY = "{}";

    private final QueryEngine engine;
    private final QueryMetrics metrics;
    private final LokiLabels labels;

    LokiVolume(QueryEngine engine, QueryMetrics metrics, LokiLabels labels) {
        this.engine = engine;
        this.metrics = metrics;
        this.labels = labels;
    }

    /** {@code /loki/api/v1/index/volume} ({@code range} false) or {@code volume_range}. */
    ApiReply answer(TenantId tenant, Params params, boolean range, long now) throws ApiException, IOException {
        String text = params.string("query");
        boolean matchAny = text != null && text.strip().equals(MATCH_ANY);
        LogQl.LogQuery selector = matchAny ? new LogQl.LogQuery(List.of(), List.of()) : LokiLabels.selector(text);
        TimeRange span = LokiParams.range(params, now, LokiParams.QUERY_SINCE);
        int limit = LokiParams.positive(params, "limit", DEFAULT_LIMIT);
        List<String> targets = targets(params);
        boolean byLabels = aggregateByLabels(params);
        Buckets buckets = range ? Buckets.steps(span, TimeParams.stepMillis(params, LokiParams.defaultStepMillis(span)))
                : Buckets.whole(span);

        // Loki groups into the targets, else the labels the selector names, else (for {} and per label) each
        // stream: by every stream label name in the range.
        Set<String> groupBy = new TreeSet<>(targets);
        List<String> problems = new ArrayList<>();
        if (!targets.isEmpty()) {
            selector = withTargets(selector, targets);
        } else if (!byLabels) {
            selector.selector().forEach(m -> groupBy.add(m.name()));
        }
        if (groupBy.isEmpty()) {
            LokiLabels.LabelNames names = labels.names(tenant, span);
            groupBy.addAll(names.names());
            problems.addAll(names.problems());
        }
        MetricRun run = MetricRun.of(engine, metrics, tenant, volume(selector, groupBy, buckets.step()),
                buckets.times(), false, params.mechanisms());
        List<Explain> plans = new ArrayList<>(run.plans());
        problems.addAll(run.problems());
        List<List<MetricEval.Sample>> steps = new ArrayList<>(run.value().steps());
        long took = run.nanos();
        long partial = buckets.times()[0] + 1 - span.fromUnixNano();
        if (partial < buckets.step()) {
            // The first bucket starts with the range, after its step began: its own window.
            MetricRun first = MetricRun.of(engine, metrics, tenant, volume(selector, groupBy, partial),
                    new long[] {buckets.times()[0]}, false, params.mechanisms());
            steps.set(0, first.value().steps().get(0));
            plans.addAll(first.plans());
            problems.addAll(first.problems());
            took += first.nanos();
        }

        int n = buckets.times().length;
        Map<Map<String, String>, double[]> series = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            List<MetricEval.Sample> samples = steps.get(i);
            Map<Map<String, String>, Double> bucket = byLabels ? perLabel(samples, targets) : perSeries(samples);
            for (Map.Entry<Map<String, String>, Double> kept : top(bucket, limit)) {
                series.computeIfAbsent(kept.getKey(), k -> filled(n))[i] = kept.getValue();
            }
        }
        List<Map.Entry<Map<String, String>, double[]>> ordered = new ArrayList<>(series.entrySet());
        ordered.sort(Comparator.comparingDouble((Map.Entry<Map<String, String>, double[]> s) -> -first(s.getValue()))
                .thenComparing(s -> name(s.getKey())));
        long nanos = took;
        ApiReply reply = LokiReplies.success(g -> {
            boolean matrix = ordered.stream().anyMatch(s -> points(s.getValue()) > 1);
            g.writeStartObject();
            g.writeStringField("resultType", matrix ? "matrix" : "vector");
            g.writeArrayFieldStart("result");
            for (Map.Entry<Map<String, String>, double[]> s : ordered) {
                g.writeStartObject();
                g.writeObjectFieldStart("metric");
                for (Map.Entry<String, String> label : s.getKey().entrySet()) {
                    g.writeStringField(label.getKey(), label.getValue());
                }
                g.writeEndObject();
                g.writeFieldName(matrix ? "values" : "value");
                if (matrix) {
                    g.writeStartArray();
                }
                for (int i = 0; i < n; i++) {
                    if (!Double.isNaN(s.getValue()[i])) {
                        g.writeStartArray();
                        LokiReplies.seconds(g, buckets.stamps()[i]);
                        g.writeString(LokiEntry.number(s.getValue()[i]));
                        g.writeEndArray();
                    }
                }
                if (matrix) {
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            LokiReplies.stats(g, plans, nanos);
            g.writeEndObject();
        });
        return LokiReplies.withHeaders(reply, problems, plans);
    }

    /** {@code sum by (labels) (bytes_over_time({selector}[range]))}: the bytes of the lines, per group. */
    private static MetricExpr volume(LogQl.LogQuery selector, Set<String> labels, long rangeNanos) {
        MetricExpr perEntry = new MetricExpr.Range(MetricExpr.RangeOp.BYTES, Double.NaN, selector, null, rangeNanos, 0,
                null);
        return new MetricExpr.Vector(MetricExpr.VectorOp.SUM, 0, perEntry,
                new MetricExpr.Grouping(false, List.copyOf(labels)));
    }

    /**
     * The buckets of a range, as Loki's volume splits it ({@code util.ForInterval}, end inclusive).
     *
     * @param times  each bucket's last nanosecond, where the metric query is evaluated
     * @param stamps each bucket's time as answered, in Unix milliseconds: its last millisecond, the last bucket's
     *               the end of the range
     * @param step   each bucket's length: the step, or the whole range
     */
    private record Buckets(long[] times, long[] stamps, long step) {

        /** One bucket, the whole range, stamped with its end. */
        static Buckets whole(TimeRange span) {
            long end = span.toUnixNano() + 1;
            return new Buckets(new long[] {end - 1}, new long[] {ceilMillis(end)}, end - span.fromUnixNano());
        }

        /** A bucket per step, aligned to multiples of it; the first and last cut at the range's start and end. */
        static Buckets steps(TimeRange span, long stepMillis) throws ApiException {
            long step = stepMillis * 1_000_000L;
            long end = span.toUnixNano() + 1;
            long firstEnd = Math.floorDiv(span.fromUnixNano(), step) * step + step;
            long lastEnd = Math.floorDiv(end - 1, step) * step + step;
            int n = (int) LokiParams.points(firstEnd, lastEnd, stepMillis);
            long[] times = new long[n];
            long[] stamps = new long[n];
            for (int i = 0; i < n; i++) {
                times[i] = firstEnd + i * step - 1;
                stamps[i] = i == n - 1 ? ceilMillis(end) : Math.floorDiv(times[i], 1_000_000L);
            }
            return new Buckets(times, stamps, step);
        }

        private static long ceilMillis(long nanos) {
            return Math.floorDiv(nanos + 999_999, 1_000_000L);
        }
    }

    /** {@code targetLabels}: comma-separated label names, none when absent or empty. */
    private static List<String> targets(Params params) throws ApiException {
        String v = params.string("targetLabels");
        if (v == null || v.isEmpty()) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        for (String name : v.split(",", -1)) {
            if (!name.matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                throw ApiException.badRequest("invalid targetLabels: " + Params.quote(name) + " is not a label name");
            }
            names.add(name);
        }
        return names;
    }

    /** {@code aggregateBy}: {@code series} (the default) or {@code labels}. */
    private static boolean aggregateByLabels(Params params) throws ApiException {
        String v = params.string("aggregateBy");
        if (v == null || v.isEmpty() || v.equals("series")) {
            return false;
        }
        if (v.equals("labels")) {
            return true;
        }
        throw ApiException.badRequest("invalid aggregation option " + Params.quote(v)
                + " for aggregateBy: expected series or labels");
    }

    /** The selector with {@code target=~".+"} for each target it does not name: a target must be present. */
    private static LogQl.LogQuery withTargets(LogQl.LogQuery selector, List<String> targets) {
        List<LogQl.Matcher> matchers = new ArrayList<>(selector.selector());
        for (String target : targets) {
            if (matchers.stream().noneMatch(m -> m.name().equals(target))) {
                matchers.add(LogQl.Matcher.of(target, LogQl.MatchOp.RE, ".+"));
            }
        }
        return new LogQl.LogQuery(matchers, selector.pipeline());
    }

    private static Map<Map<String, String>, Double> perSeries(List<MetricEval.Sample> samples) {
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        for (MetricEval.Sample s : samples) {
            out.merge(s.labels(), s.value(), Double::sum);
        }
        return out;
    }

    /** Each label name's volume: the sum over the streams that carry it (only the targets', when given). */
    private static Map<Map<String, String>, Double> perLabel(List<MetricEval.Sample> samples, List<String> targets) {
        Map<Map<String, String>, Double> out = new LinkedHashMap<>();
        for (MetricEval.Sample s : samples) {
            for (String label : s.labels().keySet()) {
                if (targets.isEmpty() || targets.contains(label)) {
                    out.merge(Map.of(label, ""), s.value(), Double::sum);
                }
            }
        }
        return out;
    }

    /** The {@code limit} largest, ties by name, as Loki's {@code MapToVolumeResponse}. */
    private static List<Map.Entry<Map<String, String>, Double>> top(Map<Map<String, String>, Double> volumes,
                                                                    int limit) {
        List<Map.Entry<Map<String, String>, Double>> sorted = new ArrayList<>(volumes.entrySet());
        sorted.sort(Comparator.comparingDouble((Map.Entry<Map<String, String>, Double> e) -> -e.getValue())
                .thenComparing(e -> name(e.getKey())));
        return sorted.subList(0, Math.min(limit, sorted.size()));
    }

    private static double[] filled(int n) {
        double[] values = new double[n];
        Arrays.fill(values, Double.NaN);
        return values;
    }

    /** A series' first point, by which Loki orders series. */
    private static double first(double[] values) {
        return Arrays.stream(values).filter(v -> !Double.isNaN(v)).findFirst().orElse(0);
    }

    private static long points(double[] values) {
        return Arrays.stream(values).filter(v -> !Double.isNaN(v)).count();
    }

    /** A series' name as Loki orders ties: Prometheus' {@code {a="x", b="y"}}, a label alone by its name. */
    private static String name(Map<String, String> labels) {
        if (labels.size() == 1 && labels.values().iterator().next().isEmpty()) {
            return labels.keySet().iterator().next();
        }
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, String> l : new TreeMap<>(labels).entrySet()) {
            if (out.length() > 1) {
                out.append(", ");
            }
            out.append(l.getKey()).append("=\"").append(l.getValue().replace("\\", "\\\\").replace("\"", "\\\""))
                    .append('"');
        }
        return out.append('}').toString();
    }
}
