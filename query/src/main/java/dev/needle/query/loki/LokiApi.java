package dev.needle.query.loki;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.Params;
import dev.needle.query.http.TimeParams;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LogQlParseException;
import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.logql.metric.MetricEval;
import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Request;

/**
 * Loki's query API over needle's logs, so that Grafana's Loki datasource reads them (grafana/loki
 * {@code docs/sources/reference/loki-http-api.md}; the JSON as {@code pkg/util/marshal} writes it).
 * GET, or POST with the parameters as a form, as Loki takes them.
 *
 * <pre>
 * /loki/api/v1/query_range   query, start, end, since, limit (100), direction (backward), step:
 *     {"status":"success","data":{"resultType":"streams","result":[{"stream":{labels},"values":[["ns","line"]]}],
 *      "stats":{…}}}; with the request header X-Loki-Response-Encoding-Flags: categorize-labels (Grafana
 *     sends it) the stream holds the labels only, each value ends with {"structuredMetadata":{…},"parsed":{…}}
 *     (each left out when empty; parsed holds what label_format made) and data
 *     says "encodingFlags":["categorize-labels"]; without it structured metadata joins the stream's labels,
 *     as Loki does. A metric query answers a "matrix": {"metric":{labels},"values":[[seconds,"value"],…]} per
 *     series, a point at start, start + step, … end (step defaults to the range over 250, at least 1s), each
 *     range aggregation over every entry it covers ({@link MetricEval}); more than 500 series are a 400, as in
 *     Loki; a constant one series without labels.
 * /loki/api/v1/query         query, time: a metric query (a constant too, as Grafana's health check
 *     vector(1)+vector(1)) at time as a "vector" or "scalar"; a log query is a 400, as in Loki
 * /loki/api/v1/labels, /loki/api/v1/label/{name}/values, /loki/api/v1/series   see {@link LokiLabels}
 * /loki/api/v1/index/volume, /loki/api/v1/index/volume_range   see {@link LokiVolume}
 * /loki/api/v1/index/stats   see {@link LokiStats}
 * /loki/api/v1/detected_labels   see {@link DetectedLabels}
 * /loki/api/v1/detected_fields, /loki/api/v1/detected_field/{name}/values   see {@link DetectedFields}
 * /loki/api/v1/patterns   see {@link LogPatterns}, {@link Drain}
 * </pre>
 *
 * <p>Errors are Loki's: a 400 with the message as plain text. needle's own counts go in the headers
 * {@code /api/search} uses ({@code X-Needle-Status}, {@code X-Needle-Message} when partial,
 * {@code X-Needle-Inspected-Blocks}, {@code X-Needle-Skipped-Blocks}), never into Loki's body; the
 * {@code disable} parameter turns pruning off as on every needle endpoint.
 */
public final class LokiApi {

    /** Every path of this API starts so. */
    public static final String PREFIX = "/loki/api/v1/";
    /** The request header by which Grafana asks for categorized labels. */
    static final String ENCODING_FLAGS_HEADER = "X-Loki-Response-Encoding-Flags";
    static final String CATEGORIZE_LABELS = "categorize-labels";
    /** Loki's default {@code max_query_series}: a metric query with more series is refused. */
    static final int MAX_SERIES = 500;
    private static final String LABEL = "label/";
    private static final String VALUES = "/values";
    private static final String DETECTED_FIELD = "detected_field/";

    private final QueryEngine engine;
    private final QueryMetrics metrics;
    private final LokiLabels labels;
    private final LokiVolume volume;
    private final LokiStats stats;
    private final DetectedLabels detectedLabels;
    private final DetectedFields detectedFields;
    private final LogPatterns patterns;

    /** The API over {@code engine}, counting each lookup in {@code metrics}. */
    public LokiApi(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
        this.labels = new LokiLabels(engine);
        this.volume = new LokiVolume(engine, metrics, labels);
        this.stats = new LokiStats(engine, metrics);
        this.detectedLabels = new DetectedLabels(labels);
        this.detectedFields = new DetectedFields(engine, metrics);
        this.patterns = new LogPatterns(engine, metrics);
    }

    /** Whether {@code method} may be used on this API: GET, or POST with a form. */
    public static boolean allows(String method) {
        return HttpMethod.GET.is(method) || HttpMethod.POST.is(method);
    }

    /** The answer to one request whose path starts with {@link #PREFIX}. */
    public ApiReply answer(TenantId tenant, String path, Request request) throws ApiException, IOException {
        Params params = Params.withForm(request);
        String endpoint = path.substring(PREFIX.length());
        long now = System.currentTimeMillis() * 1_000_000L;
        if (endpoint.equals("query_range")) {
            return queryRange(tenant, params, categorize(request), now);
        }
        if (endpoint.equals("query")) {
            return instant(tenant, params, now);
        }
        if (endpoint.equals("labels")) {
            return labels.names(tenant, params, now);
        }
        if (endpoint.startsWith(LABEL) && endpoint.endsWith(VALUES) && endpoint.length() > LABEL.length() + VALUES.length()) {
            return labels.values(tenant, endpoint.substring(LABEL.length(), endpoint.length() - VALUES.length()), params, now);
        }
        if (endpoint.equals("series")) {
            return labels.series(tenant, params, now);
        }
        if (endpoint.equals("index/volume") || endpoint.equals("index/volume_range")) {
            return volume.answer(tenant, params, endpoint.endsWith("_range"), now);
        }
        if (endpoint.equals("index/stats")) {
            return stats.answer(tenant, params, now);
        }
        if (endpoint.equals("detected_labels")) {
            return detectedLabels.answer(tenant, params, now);
        }
        if (endpoint.equals("detected_fields")) {
            return detectedFields.answer(tenant, null, params, now);
        }
        if (endpoint.startsWith(DETECTED_FIELD) && endpoint.endsWith(VALUES)
                && endpoint.length() > DETECTED_FIELD.length() + VALUES.length()) {
            return detectedFields.answer(tenant,
                    endpoint.substring(DETECTED_FIELD.length(), endpoint.length() - VALUES.length()), params, now);
        }
        if (endpoint.equals("patterns")) {
            return patterns.answer(tenant, params, now);
        }
        throw ApiException.notFound("no such endpoint: " + Params.quote(path));
    }

    /** Whether the request asks for categorized labels. */
    private static boolean categorize(Request request) {
        return request.getHeaders().getCSV(ENCODING_FLAGS_HEADER, false).stream()
                .anyMatch(f -> f.trim().equalsIgnoreCase(CATEGORIZE_LABELS));
    }

    /** The query parameter, parsed; a 400 in Loki's words when it does not parse. */
    static LogQl parse(Params params, String name) throws ApiException {
        String q = params.string(name);
        if (q == null) {
            throw ApiException.badRequest("parse error : syntax error: empty query");
        }
        try {
            return LogQlParser.parse(q);
        } catch (LogQlParseException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private ApiReply queryRange(TenantId tenant, Params params, boolean categorize, long now)
            throws ApiException, IOException {
        LogQl query = parse(params, "query");
        TimeRange range = LokiParams.range(params, now, LokiParams.QUERY_SINCE);
        int limit = LokiParams.limit(params);
        boolean forward = LokiParams.forward(params);
        Mechanisms mechanisms = params.mechanisms();
        if (query instanceof LogQl.Constant c) {
            return matrix(c, range, TimeParams.stepMillis(params, LokiParams.defaultStepMillis(range)));
        }
        if (query instanceof LogQl.Metric m) {
            long step = TimeParams.stepMillis(params, LokiParams.defaultStepMillis(range));
            return metric(tenant, m.expr(), steps(range, step), true, mechanisms);
        }
        long started = System.nanoTime();
        LokiSearch.Result result = new LokiSearch(engine).run(tenant, (LogQl.LogQuery) query, range, limit, forward,
                mechanisms);
        long took = System.nanoTime() - started;
        metrics.record(QueryMetrics.Kind.LOGS, took, result.plans());
        ApiReply reply = LokiReplies.success(g -> {
            g.writeStartObject();
            g.writeStringField("resultType", "streams");
            if (categorize) {
                g.writeArrayFieldStart("encodingFlags");
                g.writeString(CATEGORIZE_LABELS);
                g.writeEndArray();
            }
            g.writeArrayFieldStart("result");
            writeStreams(g, result.entries(), categorize);
            g.writeEndArray();
            LokiReplies.stats(g, result.plans(), took);
            g.writeEndObject();
        });
        return LokiReplies.withHeaders(reply, result.problems(), result.plans());
    }

    /**
     * The entries grouped into streams, in the order of their first entry; each stream's entries keep
     * the order given. A stream is its labels, and when not categorized its structured metadata too.
     */
    private static void writeStreams(JsonGenerator g, List<LokiEntry> entries, boolean categorize) throws IOException {
        Map<Map<String, String>, List<LokiEntry>> streams = new LinkedHashMap<>();
        for (LokiEntry e : entries) {
            Map<String, String> stream = e.labels();
            if (!categorize && !(e.shown().isEmpty() && e.parsed().isEmpty())) {
                Map<String, String> all = new TreeMap<>(e.shown());
                all.putAll(e.parsed());
                all.putAll(e.labels());
                stream = all;
            }
            streams.computeIfAbsent(stream, s -> new ArrayList<>()).add(e);
        }
        for (Map.Entry<Map<String, String>, List<LokiEntry>> s : streams.entrySet()) {
            g.writeStartObject();
            g.writeObjectFieldStart("stream");
            for (Map.Entry<String, String> label : s.getKey().entrySet()) {
                g.writeStringField(label.getKey(), label.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("values");
            for (LokiEntry e : s.getValue()) {
                g.writeStartArray();
                g.writeString(Long.toString(e.timeUnixNano()));
                g.writeString(e.line());
                if (categorize) {
                    g.writeStartObject();
                    labels(g, "structuredMetadata", e.shown());
                    labels(g, "parsed", e.parsed());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /** {@code "name":{labels}}, unless there are none: Loki leaves an empty group out. */
    private static void labels(JsonGenerator g, String name, Map<String, String> labels) throws IOException {
        labels(g, name, labels, false);
    }

    /** {@code "name":{labels}}; when there are none, {@code {}} if {@code always}, else nothing. */
    private static void labels(JsonGenerator g, String name, Map<String, String> labels, boolean always)
            throws IOException {
        if (always || !labels.isEmpty()) {
            g.writeObjectFieldStart(name);
            for (Map.Entry<String, String> label : labels.entrySet()) {
                g.writeStringField(label.getKey(), label.getValue());
            }
            g.writeEndObject();
        }
    }

    /**
     * An instant query at {@code time}: a metric query as a vector or scalar, a constant too; a log query is
     * refused, as Loki does.
     */
    private ApiReply instant(TenantId tenant, Params params, long now) throws ApiException, IOException {
        LogQl query = parse(params, "query");
        if (query instanceof LogQl.Metric m) {
            return metric(tenant, m.expr(), new long[] {TimeParams.time(params, "time", now)}, false,
                    params.mechanisms());
        }
        if (!(query instanceof LogQl.Constant c)) {
            throw ApiException.badRequest("log queries are not supported as an instant query type, please change your"
                    + " query to a range query type");
        }
        long at = Math.floorDiv(TimeParams.time(params, "time", now), 1_000_000L);
        return LokiReplies.success(g -> {
            g.writeStartObject();
            g.writeStringField("resultType", c.vector() ? "vector" : "scalar");
            g.writeFieldName("result");
            if (c.vector()) {
                g.writeStartArray();
                g.writeStartObject();
                g.writeObjectFieldStart("metric");
                g.writeEndObject();
                g.writeFieldName("value");
                point(g, at, c.value());
                g.writeEndObject();
                g.writeEndArray();
            } else {
                // Prometheus' scalar result is the sample itself.
                point(g, at, c.value());
            }
            LokiReplies.stats(g, List.<Explain>of(), 0);
            g.writeEndObject();
        });
    }

    /** A constant over a range: one series (a scalar too, as Prometheus' range queries answer) with a point per step. */
    private static ApiReply matrix(LogQl.Constant c, TimeRange range, long stepMillis) throws ApiException {
        long[] times = steps(range, stepMillis);
        return LokiReplies.success(g -> {
            g.writeStartObject();
            g.writeStringField("resultType", "matrix");
            g.writeArrayFieldStart("result");
            g.writeStartObject();
            g.writeObjectFieldStart("metric");
            g.writeEndObject();
            g.writeArrayFieldStart("values");
            for (long t : times) {
                point(g, Math.floorDiv(t, 1_000_000L), c.value());
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeEndArray();
            LokiReplies.stats(g, List.<Explain>of(), 0);
            g.writeEndObject();
        });
    }

    /** The times of a range query's points: start, start + step, … up to the end (inclusive, as Loki's). */
    private static long[] steps(TimeRange range, long stepMillis) throws ApiException {
        long start = range.fromUnixNano();
        long step = stepMillis * 1_000_000L;
        long points = LokiParams.points(start, range.toUnixNano() + 1, stepMillis);
        long[] times = new long[(int) points];
        for (int i = 0; i < times.length; i++) {
            times[i] = start + i * step;
        }
        return times;
    }

    /**
     * A metric query evaluated at {@code times} over every entry its range aggregations cover: a "matrix"
     * for a range query, else a "vector" or "scalar". A series with a pipeline error is a 400, as in Loki.
     */
    private ApiReply metric(TenantId tenant, MetricExpr expr, long[] times, boolean matrix, Mechanisms mechanisms)
            throws ApiException, IOException {
        MetricRun run = MetricRun.of(engine, metrics, tenant, expr, times, !matrix, mechanisms);
        MetricEval.Value value = run.value();
        List<MetricEval.Series> series = value.scalar() != null
                ? List.of(new MetricEval.Series(Map.of(), value.scalar(), all(times.length)))
                : matrix ? value.series() : List.of();
        List<MetricEval.Sample> samples = new ArrayList<>(matrix || value.scalar() != null ? List.of()
                : value.steps().get(0));
        if (Math.max(series.size(), samples.size()) > MAX_SERIES) {
            throw ApiException.badRequest("maximum number of series (" + MAX_SERIES + ") reached for a single query;"
                    + " consider reducing query cardinality by adding more specific stream selectors, reducing the"
                    + " time range, or aggregating results with functions like sum(), count() or topk()");
        }
        if (!sorted(expr)) {
            samples.sort((a, b) -> MetricEval.compareLabels(a.labels(), b.labels()));
        }
        ApiReply reply = LokiReplies.success(g -> {
            g.writeStartObject();
            if (matrix) {
                g.writeStringField("resultType", "matrix");
                g.writeArrayFieldStart("result");
                writeMatrix(g, series, times);
                g.writeEndArray();
            } else if (value.scalar() != null) {
                g.writeStringField("resultType", "scalar");
                g.writeFieldName("result");
                point(g, Math.floorDiv(times[0], 1_000_000L), value.scalar()[0]);
            } else {
                g.writeStringField("resultType", "vector");
                g.writeArrayFieldStart("result");
                for (MetricEval.Sample sample : samples) {
                    g.writeStartObject();
                    labels(g, "metric", sample.labels(), true);
                    g.writeFieldName("value");
                    point(g, Math.floorDiv(times[0], 1_000_000L), sample.value());
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            LokiReplies.stats(g, run.plans(), run.nanos());
            g.writeEndObject();
        });
        return LokiReplies.withHeaders(reply, run.problems(), run.plans());
    }

    /** Whether an instant vector keeps the order the query gave it: sort, sort_desc. */
    private static boolean sorted(MetricExpr expr) {
        return expr instanceof MetricExpr.Vector v
                && (v.op() == MetricExpr.VectorOp.SORT || v.op() == MetricExpr.VectorOp.SORT_DESC);
    }

    /** Each series with its points at the times it has one. */
    private static void writeMatrix(JsonGenerator g, List<MetricEval.Series> series, long[] times) throws IOException {
        for (MetricEval.Series s : series) {
            g.writeStartObject();
            labels(g, "metric", s.labels(), true);
            g.writeArrayFieldStart("values");
            for (int i = 0; i < times.length; i++) {
                if (s.has()[i]) {
                    point(g, Math.floorDiv(times[i], 1_000_000L), s.values()[i]);
                }
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    private static boolean[] all(int n) {
        boolean[] has = new boolean[n];
        Arrays.fill(has, true);
        return has;
    }

    /** {@code [seconds, "value"]}, Prometheus' sample. */
    private static void point(JsonGenerator g, long unixMillis, double value) throws IOException {
        g.writeStartArray();
        LokiReplies.seconds(g, unixMillis);
        g.writeString(LokiEntry.number(value));
        g.writeEndArray();
    }
}
