package dev.needle.query.tempo;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.engine.TraceQlResult;
import dev.needle.query.engine.TraceSearchResult;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.QueryMetrics;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.traceql.EvaluationException;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.SearchQuery;
import dev.needle.query.traceql.Spanset;
import dev.needle.query.traceql.Value;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Tempo's {@code /api/search}: the traces that match {@code q}, a TraceQL span query, or {@code tags}
 * (logfmt), newest trace first, in exactly the shape of Tempo's
 * {@code SearchResponse} in protobuf's JSON mapping, because Grafana decodes it strictly:
 *
 * <pre>
 * {"traces":[{"traceID","rootServiceName","rootTraceName"?,"startTimeUnixNano":"ns","durationMs",
 *             "spanSets":[{"spans":[{"spanID","name","startTimeUnixNano":"ns","durationNanos":"ns",
 *                                    "attributes"?:[KeyValue]}],"matched"}]}],
 *  "metrics":{"inspectedBytes":"n","totalBlocks","inspectedSpans":"n"}}
 * </pre>
 *
 * <p>Root, start and duration are the whole trace's (see {@link QueryEngine#searchTraces}); the root
 * service is Tempo's {@code "<root span not yet received>"} only when the trace has no root span, and
 * then there is no root name. A span set lists up to {@code spss} of the trace's matching spans
 * (default 3, 0 meaning the default, at most 100, as Tempo's defaults) and counts them all in
 * {@code matched}; each span carries the attributes the query's conditions name, under their keys.
 * A query of conditions in one selector is a search of spans; any other (spanset and structural
 * operators, pipelines, {@code select}) runs on candidate traces whole ({@link QueryEngine#searchTraces(TenantId,
 * Query.Spans, TimeRange, int, Mechanisms)}) and answers each span set it found, its spans carrying what
 * {@code select} asked for and the set what {@code by} and aggregates recorded.
 *
 * <p>What Tempo's message has no field for goes where Grafana does not look: the response headers
 * {@code X-Needle-Status} ({@code COMPLETE} or {@code PARTIAL}), {@code X-Needle-Message} (only when
 * partial: the blocks that could not be read), {@code X-Needle-Inspected-Blocks} and
 * {@code X-Needle-Skipped-Blocks} (of the search's plan); and, only on {@code explain=true}, a
 * top-level {@code "explain"} with the search's plan and then each trace lookup's.
 */
public final class SearchEndpoint {

    static final int DEFAULT_LIMIT = 20;
    static final int MAX_LIMIT = 1000;
    static final int DEFAULT_SPSS = 3;
    static final int MAX_SPSS = 100;
    static final String NO_ROOT = "<root span not yet received>";
    private static final Pattern DIGITS = Pattern.compile("\\d{1,9}");
    private static final Pattern SCOPE_PREFIX = Pattern.compile("^(span|resource|event|link|instrumentation)?\\.");

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    /** The endpoint over {@code engine}, counting each lookup in {@code metrics}. */
    public SearchEndpoint(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** The answer to one search; see the class comment for its shape. */
    public ApiReply answer(TenantId tenant, Params params) throws ApiException, IOException {
        Object query = query(params);
        TimeRange range = params.range();
        int limit = params.limit(DEFAULT_LIMIT, MAX_LIMIT);
        int spss = spss(params);
        Mechanisms mechanisms = params.mechanisms();
        long started = System.nanoTime();
        List<Found> traces = new ArrayList<>();
        List<String> problems;
        List<Explain> plans;
        if (query instanceof Expr expr) {
            TraceSearchResult result = engine.searchTraces(tenant, expr, range, limit, mechanisms);
            List<Attribute> shown = attributes(expr);
            for (TraceSearchResult.Match t : result.traces()) {
                List<SpanRecord> first = t.matched().subList(0, Math.min(spss, t.matched().size()));
                traces.add(new Found(t, List.of(new SpanSet(first.stream().map(s -> new ShownSpan(s,
                        shownValues(s, shown))).toList(), t.matched().size(), List.of()))));
            }
            problems = result.problems();
            plans = result.plans();
        } else {
            TraceQlResult result = searchTraceQl(tenant, (Query.Spans) query, range, limit, mechanisms);
            for (TraceQlResult.Match t : result.traces()) {
                traces.add(new Found(t.trace(), t.spansets().stream().map(set -> spanSet(set, spss)).toList()));
            }
            problems = result.problems();
            plans = result.plans();
        }
        metrics.record(QueryMetrics.Kind.SEARCH, System.nanoTime() - started, plans);
        // Tempo's order: newest trace first.
        traces.sort(Comparator.comparingLong((Found f) -> f.trace().startUnixNano()).reversed()
                .thenComparing(f -> f.trace().traceId()));
        Explain.Totals search = plans.get(0).totals();
        boolean explain = params.flag("explain");
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("traces");
            for (Found t : traces) {
                writeTrace(g, t);
            }
            g.writeEndArray();
            writeMetrics(g, plans);
            JsonReplies.explain(g, explain, plans);
        }).withStatusHeaders(problems)
                .withHeader(QueryApi.INSPECTED_HEADER, Integer.toString(search.opened()))
                .withHeader(QueryApi.SKIPPED_HEADER, Integer.toString(search.listed() - search.opened()));
    }

    /**
     * Tempo's {@code SearchMetrics} of what {@code plans} read: bytes, spans (rows scanned and head records) and
     * the first plan's blocks listed.
     */
    static void writeMetrics(JsonGenerator g, List<Explain> plans) throws IOException {
        long bytes = 0;
        long spans = 0;
        for (Explain plan : plans) {
            bytes += plan.totals().bytesRead();
            spans += plan.totals().rowsScanned() + plan.totals().headRows();
        }
        g.writeObjectFieldStart("metrics");
        // uint64 fields are strings in protobuf's JSON; uint32 fields numbers.
        g.writeStringField("inspectedBytes", Long.toString(bytes));
        g.writeNumberField("totalBlocks", plans.get(0).totals().listed());
        g.writeStringField("inspectedSpans", Long.toString(spans));
        g.writeEndObject();
    }

    /** A trace found and its span sets as answered. */
    private record Found(TraceSearchResult.Match trace, List<SpanSet> sets) {
    }

    /** A span set as answered: the spans shown (at most {@code spss}), how many matched, what the pipeline recorded. */
    private record SpanSet(List<ShownSpan> spans, int matched, List<KeyValue> attributes) {
    }

    /** A span as answered, with the attribute values shown beside it. */
    private record ShownSpan(SpanRecord span, List<KeyValue> attributes) {
    }

    private TraceQlResult searchTraceQl(TenantId tenant, Query.Spans query, TimeRange range, int limit,
                                        Mechanisms mechanisms) throws ApiException, IOException {
        try {
            return engine.searchTraces(tenant, query, range, limit, mechanisms);
        } catch (EvaluationException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }

    private static SpanSet spanSet(Spanset set, int spss) {
        List<ShownSpan> shown = set.spans().subList(0, Math.min(spss, set.spans().size())).stream()
                .map(m -> new ShownSpan(m.span(), keyValues(m.selected()))).toList();
        return new SpanSet(shown, set.spans().size(), keyValues(set.attributes()));
    }

    /**
     * The query: a search by {@code tags} (logfmt), a selector of conditions (read so that its conditions
     * prune blocks as they are), or else any span query of TraceQL.
     */
    private static Object query(Params params) throws ApiException {
        String q = params.string("q");
        String tags = params.string("tags");
        if (q != null && tags != null) {
            throw ApiException.badRequest("give q or tags, not both");
        }
        if (tags != null) {
            return Logfmt.parse(tags);
        }
        // No query at all lists the newest traces, as Tempo's search without one does.
        String text = q == null ? "{ }" : q;
        SearchQuery query;
        try {
            query = SearchQuery.parse(text);
        } catch (QueryParseException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (query instanceof SearchQuery.Selector selector) {
            return selector.expr();
        }
        if (((SearchQuery.TraceQl) query).query() instanceof Query.Spans spans) {
            return spans;
        }
        throw ApiException.badRequest("a metrics query is asked of /api/metrics/query_range or "
                + "/api/metrics/query, not of /api/search");
    }

    /** {@code spss}: 0 or absent is the default, as in Tempo; past the maximum a 400 with Tempo's message. */
    private static int spss(Params params) throws ApiException {
        String v = params.string("spss");
        if (v == null) {
            return DEFAULT_SPSS;
        }
        if (!DIGITS.matcher(v).matches()) {
            throw ApiException.badRequest("invalid spss: expected a whole number from 0 to " + MAX_SPSS + ", got "
                    + Params.quote(v));
        }
        int spss = Integer.parseInt(v);
        if (spss > MAX_SPSS) {
            throw ApiException.badRequest("spans per span set exceeds " + MAX_SPSS + ". received " + spss);
        }
        return spss == 0 ? DEFAULT_SPSS : spss;
    }

    /** The attributes the query's conditions name, each once, in the order written; intrinsics are fields of their own. */
    private static List<Attribute> attributes(Expr expr) {
        Set<Attribute> out = new LinkedHashSet<>();
        collect(expr, out);
        return List.copyOf(out);
    }

    private static void collect(Expr expr, Set<Attribute> out) {
        if (expr instanceof Expr.Condition c && c.attribute().scope() != Attribute.Scope.INTRINSIC) {
            out.add(c.attribute());
        } else if (expr instanceof Expr.And and) {
            and.terms().forEach(t -> collect(t, out));
        } else if (expr instanceof Expr.Or or) {
            or.terms().forEach(t -> collect(t, out));
        }
    }

    private static void writeTrace(JsonGenerator g, Found found) throws IOException {
        TraceSearchResult.Match t = found.trace();
        g.writeStartObject();
        g.writeStringField("traceID", t.traceId().hex());
        SpanRecord root = t.root();
        g.writeStringField("rootServiceName", rootServiceName(t));
        if (root != null) {
            g.writeStringField("rootTraceName", root.name());
        }
        g.writeStringField("startTimeUnixNano", Long.toString(t.startUnixNano()));
        g.writeNumberField("durationMs", durationMs(t));
        g.writeArrayFieldStart("spanSets");
        for (SpanSet set : found.sets()) {
            g.writeStartObject();
            g.writeArrayFieldStart("spans");
            for (ShownSpan shown : set.spans()) {
                SpanRecord s = shown.span();
                g.writeStartObject();
                g.writeStringField("spanID", s.spanId().hex());
                g.writeStringField("name", s.name());
                g.writeStringField("startTimeUnixNano", Long.toString(s.startTimeUnixNano()));
                g.writeStringField("durationNanos", Long.toString(s.durationNano()));
                OtlpJson.writeKeyValues(g, "attributes", shown.attributes());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("matched", set.matched());
            OtlpJson.writeKeyValues(g, "attributes", set.attributes());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    /**
     * TraceQL values as OTLP attributes, keyed as Tempo keys a selected attribute: without its scope
     * ({@code span.http.url} is {@code http.url}); nil is left out.
     */
    private static List<KeyValue> keyValues(Map<String, Value> values) {
        List<KeyValue> out = attributes(values, field -> SCOPE_PREFIX.matcher(field).replaceFirst(""));
        out.sort(Comparator.comparing(KeyValue::key));
        return out;
    }

    /** TraceQL values as OTLP attributes, in the map's order, each under {@code key} of its field's text; nil is left out. */
    static List<KeyValue> attributes(Map<String, Value> values, UnaryOperator<String> key) {
        List<KeyValue> out = new ArrayList<>();
        values.forEach((field, value) -> {
            AnyValue v = value.toAnyValue();
            if (v != null) {
                out.add(new KeyValue(key.apply(field), v));
            }
        });
        return out;
    }

    /** The span's values of the attributes shown, keyed as Tempo keys them: without the scope. */
    private static List<KeyValue> shownValues(SpanRecord s, List<Attribute> shown) {
        List<KeyValue> out = new ArrayList<>();
        for (Attribute a : shown) {
            KeyValue found = switch (a.scope()) {
                case RESOURCE -> find(s.resource().attributes(), a.key());
                case SCOPE -> find(s.scope().attributes(), a.key());
                case RECORD -> find(s.attributes(), a.key());
                case UNSCOPED -> firstOf(find(s.attributes(), a.key()), find(s.resource().attributes(), a.key()),
                        find(s.scope().attributes(), a.key()));
                case INTRINSIC, TRACE, EVENT -> null;
            };
            if (found != null && out.stream().noneMatch(kv -> kv.key().equals(a.key()))) {
                out.add(found);
            }
        }
        return out;
    }

    private static KeyValue firstOf(KeyValue... candidates) {
        for (KeyValue kv : candidates) {
            if (kv != null) {
                return kv;
            }
        }
        return null;
    }

    private static KeyValue find(List<KeyValue> attributes, String key) {
        for (KeyValue kv : attributes) {
            if (kv.key().equals(key)) {
                return kv;
            }
        }
        return null;
    }

    /** A trace's {@code rootServiceName} as Tempo answers it: its root span's service, or Tempo's words for no root span. */
    public static String rootServiceName(TraceSearchResult.Match trace) {
        SpanRecord root = trace.root();
        return root == null ? NO_ROOT : serviceName(root);
    }

    /** A trace's {@code durationMs}: a uint32 in Tempo's message, so a trace longer than 49 days says so as well as it can. */
    public static long durationMs(TraceSearchResult.Match trace) {
        return Math.min(trace.durationNano() / 1_000_000, 0xFFFF_FFFFL);
    }

    /** The resource's {@code service.name}, or the empty string when it has none. */
    private static String serviceName(SpanRecord span) {
        KeyValue kv = find(span.resource().attributes(), "service.name");
        return kv != null && kv.value() instanceof AnyValue.Str s ? s.value() : "";
    }
}
