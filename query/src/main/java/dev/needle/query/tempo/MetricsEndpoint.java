package dev.needle.query.tempo;

import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.MetricsResult;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.http.TimeParams;
import dev.needle.query.metrics.QueryMetrics;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.traceql.MetricsAggregator;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.TimeSeries;
import dev.needle.query.traceql.TraceQlParser;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * Tempo's TraceQL metrics: {@code /api/metrics/query_range} and {@code /api/metrics/query} (instant), in the
 * shapes of Tempo's {@code QueryRangeResponse} and {@code QueryInstantResponse} in protobuf's JSON mapping:
 *
 * <pre>
 * range:   {"series":[{"labels":[KeyValue],"samples":[{"timestampMs":"ms","value":v}]}],"metrics":{…},
 *           "status"?:"PARTIAL","message"?}
 * instant: {"series":[{"labels":[KeyValue],"value":v}],"metrics":{…},"status"?:"PARTIAL","message"?}
 * </pre>
 *
 * <p>Parameters as Tempo reads them: {@code q} (or {@code query}); {@code start} and {@code end} as Unix
 * seconds, nanoseconds or RFC 3339, by default the {@code since} (a duration, default 1h) before now; {@code step}
 * a duration or seconds, by default Tempo's ({@link #defaultStep}). {@code exemplars} is accepted; no exemplars
 * are answered. A sample's time is the end of its step, as Tempo's; an instant query is one step, the range.
 */
public final class MetricsEndpoint {

    private static final Duration DEFAULT_SINCE = Duration.ofHours(1);

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    /** The endpoint over {@code engine}, counting each query in {@code metrics}. */
    public MetricsEndpoint(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** The answer to one metrics query; {@code instant} for {@code /api/metrics/query}. */
    public ApiReply answer(TenantId tenant, Params params, boolean instant) throws ApiException, IOException {
        Query.Metrics query = query(params);
        long now = System.currentTimeMillis() * 1_000_000L;
        String sinceText = params.string("since");
        long since = sinceText == null ? DEFAULT_SINCE.toNanos() : TimeParams.millis("since", sinceText) * 1_000_000L;
        long end = TimeParams.time(params, "end", now);
        long start = TimeParams.time(params, "start", end - since);
        if (end <= start) {
            throw ApiException.badRequest("invalid start and end: end must be after start");
        }
        MetricsAggregator aggregator;
        try {
            if (instant) {
                aggregator = MetricsAggregator.instant(query, start, end);
            } else {
                long step = TimeParams.stepMillis(params, -1) * 1_000_000L;
                aggregator = new MetricsAggregator(query, start, end, step < 0 ? defaultStep(start, end) : step);
            }
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        long started = System.nanoTime();
        MetricsResult result = engine.metrics(tenant, query, aggregator, new TimeRange(start, end), params.mechanisms());
        metrics.record(QueryMetrics.Kind.METRICS, System.nanoTime() - started, result.plans());
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("series");
            for (TimeSeries series : result.series()) {
                g.writeStartObject();
                // Tempo types labels and names each by its field's text, such as resource.service.name.
                OtlpJson.writeKeyValues(g, "labels", SearchEndpoint.attributes(series.labels(), field -> field));
                if (instant) {
                    // One step, the range: its one point.
                    g.writeNumberField("value", series.points().get(series.points().size() - 1).value());
                } else {
                    g.writeArrayFieldStart("samples");
                    for (TimeSeries.Point p : series.points()) {
                        g.writeStartObject();
                        // int64 is a string in protobuf's JSON.
                        g.writeStringField("timestampMs", Long.toString(Math.floorDiv(p.timestampNanos(), 1_000_000L)));
                        g.writeNumberField("value", p.value());
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            SearchEndpoint.writeMetrics(g, result.plans());
            if (!result.problems().isEmpty()) {
                g.writeStringField("status", "PARTIAL");
                g.writeStringField("message", String.join("; ", result.problems()));
            }
        }).withStatusHeaders(result.problems());
    }

    /**
     * Tempo's step when none is given: about 240 points over the range, rounded down to a whole hour, 5 min,
     * 1 min, 15 s, 5 s or 1 s, the first the range's 240th part exceeds; at least 1 s, and below a minute's
     * range a multiple of 50 ms.
     */
    static long defaultStep(long start, long end) {
        long baseline = (end - start) / 240;
        if (end - start < Duration.ofMinutes(1).toNanos()) {
            long g = Duration.ofMillis(50).toNanos();
            return baseline > g ? baseline / g * g : g;
        }
        for (Duration granularity : List.of(Duration.ofHours(1), Duration.ofMinutes(5), Duration.ofMinutes(1),
                Duration.ofSeconds(15), Duration.ofSeconds(5), Duration.ofSeconds(1))) {
            long g = granularity.toNanos();
            if (baseline > g) {
                return baseline / g * g;
            }
        }
        return Duration.ofSeconds(1).toNanos();
    }

    private static Query.Metrics query(Params params) throws ApiException {
        String q = params.string("q");
        if (q == null) {
            q = params.string("query");
        }
        if (q == null) {
            throw ApiException.badRequest("give the query in q: a TraceQL metrics query such as { } | rate()");
        }
        try {
            if (TraceQlParser.parse(q) instanceof Query.Metrics metricsQuery) {
                return metricsQuery;
            }
        } catch (QueryParseException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        throw ApiException.badRequest("not a metrics query: a span query is asked of /api/search; a metrics query"
                + " ends in a function such as | rate() or | count_over_time()");
    }
}
