package dev.needle.query.http;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Tempo's {@code /api/search}: spans matching {@code q} (the TraceQL subset) or {@code tags}
 * (logfmt), grouped into traces, newest first.
 *
 * <p>The engine finds spans, not traces, so the search asks for {@code limit × 10} spans (the
 * newest that match) and lists the traces they belong to, at most {@code limit}; when a few traces
 * hold many matching spans, fewer than {@code limit} traces may come back although more exist.
 * A trace's start, duration and root are those of its matching spans: the root is a matching span
 * without a parent, and when none matched the root service is Tempo's
 * {@code "<root span not yet received>"} and the root name is left out.
 */
final class SearchEndpoint {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 1000;
    /** Spans asked of the engine per trace wanted; see the class comment. */
    static final int SPANS_PER_TRACE = 10;
    static final String NO_ROOT = "<root span not yet received>";

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    SearchEndpoint(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** What a search found of one trace. */
    private static final class Found {
        final Bytes traceId;
        long start = Long.MAX_VALUE;
        long end = Long.MIN_VALUE;
        SpanRecord root;

        Found(Bytes traceId) {
            this.traceId = traceId;
        }

        void add(SpanRecord span) {
            start = Math.min(start, span.startTimeUnixNano());
            end = Math.max(end, span.endTimeUnixNano());
            if (span.parentSpanId().isEmpty()
                    && (root == null || span.startTimeUnixNano() < root.startTimeUnixNano())) {
                root = span;
            }
        }
    }

    /**
     * {@code {"traces":[{"traceID","rootServiceName","rootTraceName"?,"startTimeUnixNano","durationMs"}],
     * "metrics":{"inspectedBlocks","totalBlocks","inspectedBytes","skippedBlocks"},"status"?,"message"?,"explain"?}}.
     */
    ApiReply answer(TenantId tenant, Params params) throws ApiException, IOException {
        Expr expr = expr(params);
        TimeRange range = params.range();
        int limit = params.limit(DEFAULT_LIMIT, MAX_LIMIT);
        Mechanisms mechanisms = params.mechanisms();
        boolean explain = params.flag("explain");
        long started = System.nanoTime();
        SearchResult<SpanRecord> result = engine.searchSpans(tenant, expr, range, limit * SPANS_PER_TRACE, mechanisms);
        metrics.record(QueryMetrics.Kind.SEARCH, System.nanoTime() - started, List.of(result.plan()));
        List<Found> traces = traces(result.records(), limit);
        Explain.Totals totals = result.plan().totals();
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("traces");
            for (Found t : traces) {
                writeTrace(g, t);
            }
            g.writeEndArray();
            g.writeObjectFieldStart("metrics");
            g.writeNumberField("inspectedBlocks", totals.opened());
            g.writeNumberField("totalBlocks", totals.listed());
            // A uint64 in Tempo's JSON, so a string, as proto3 JSON writes 64-bit integers.
            g.writeStringField("inspectedBytes", Long.toString(totals.bytesRead()));
            g.writeNumberField("skippedBlocks", totals.listed() - totals.opened());
            g.writeEndObject();
            JsonReplies.statusIfPartial(g, result.problems());
            JsonReplies.explain(g, explain, List.of(result.plan()));
        });
    }

    private static Expr expr(Params params) throws ApiException {
        String q = params.string("q");
        String tags = params.string("tags");
        if (q != null && tags != null) {
            throw ApiException.badRequest("give q or tags, not both");
        }
        if (tags != null) {
            return Logfmt.parse(tags);
        }
        try {
            // No query at all lists the newest traces, as Tempo's search without one does.
            return QueryParser.parse(q == null ? "{ }" : q, Signal.SPANS);
        } catch (QueryParseException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    /** The spans grouped by trace, newest trace start first, at most {@code limit}. */
    private static List<Found> traces(List<SpanRecord> spans, int limit) {
        Map<Bytes, Found> byTrace = new LinkedHashMap<>();
        for (SpanRecord span : spans) {
            byTrace.computeIfAbsent(span.traceId(), Found::new).add(span);
        }
        List<Found> traces = new ArrayList<>(byTrace.values());
        traces.sort(Comparator.comparingLong((Found f) -> f.start).reversed()
                .thenComparing(f -> f.traceId));
        return traces.subList(0, Math.min(limit, traces.size()));
    }

    private static void writeTrace(JsonGenerator g, Found t) throws IOException {
        g.writeStartObject();
        g.writeStringField("traceID", t.traceId.hex());
        if (t.root == null) {
            g.writeStringField("rootServiceName", NO_ROOT);
        } else {
            g.writeStringField("rootServiceName", serviceName(t.root));
            g.writeStringField("rootTraceName", t.root.name());
        }
        g.writeStringField("startTimeUnixNano", Long.toString(t.start));
        g.writeNumberField("durationMs", (t.end - t.start) / 1_000_000);
        g.writeEndObject();
    }

    /** The resource's {@code service.name}, or the empty string when it has none. */
    private static String serviceName(SpanRecord span) {
        for (KeyValue kv : span.resource().attributes()) {
            if (kv.key().equals("service.name") && kv.value() instanceof AnyValue.Str s) {
                return s.value();
            }
        }
        return "";
    }
}
