package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * Searches spans with their whole trace: a span search whose conditions on the whole trace
 * ({@code trace:rootService}, {@code trace:duration}, …) are judged on each span found with its trace,
 * looked up by id over all time, and Tempo's trace search, which answers each trace found whole.
 */
final class TraceSearch {

    /** Spans a trace search first asks for per trace wanted: most traces hold a few matching spans. */
    static final int SPANS_PER_TRACE = 10;

    private final RecordSearch search;
    private final TraceLookup lookup;
    private final QueryPools pools;

    TraceSearch(RecordSearch search, TraceLookup lookup, QueryPools pools) {
        this.search = search;
        this.lookup = lookup;
        this.pools = pools;
    }

    /**
     * Spans matching {@code expr} in {@code range}, newest first, at most {@code limit}; a condition on the
     * whole trace is judged with the trace, and when that keeps fewer than {@code limit} and more spans
     * may match, the span search is asked again for four times as many. Keeps in {@code looked} each
     * trace it looks up whole, so that no trace is looked up twice.
     */
    SearchResult<SpanRecord> spans(TenantId tenant, Expr expr, TimeRange range, int limit, Mechanisms mechanisms,
                                   Map<Bytes, TraceResult> looked, QueryBudget budget) throws IOException {
        if (!namesTrace(expr)) {
            return search.spans(tenant, expr, range, limit, mechanisms, budget);
        }
        int candidates = limit;
        while (true) {
            SearchResult<SpanRecord> found = search.spans(tenant, expr, range, candidates, mechanisms, budget);
            Set<String> problems = new LinkedHashSet<>(found.problems());
            Map<Bytes, WholeTrace> traces = new HashMap<>();
            List<SpanRecord> kept = new ArrayList<>();
            for (SpanRecord s : found.records()) {
                if (kept.size() == limit) {
                    break;
                }
                WholeTrace trace = traces.get(s.traceId());
                if (trace == null) {
                    TraceResult whole = lookUpWhole(tenant, s.traceId(), mechanisms, looked, budget);
                    problems.addAll(whole.problems());
                    trace = new WholeTrace(withFound(whole.spans(), List.of(s)));
                    traces.put(s.traceId(), trace);
                }
                if (Values.matches(expr, Values.of(s, trace))) {
                    kept.add(s);
                }
            }
            if (kept.size() == limit || found.records().size() < candidates || candidates == Integer.MAX_VALUE) {
                return new SearchResult<>(kept, List.copyOf(problems), found.plan());
            }
            candidates = (int) Math.min(Integer.MAX_VALUE, candidates * 4L);
        }
    }

    /** Whether {@code e} has a condition on the whole trace, which only the trace's lookup decides. */
    static boolean namesTrace(Expr e) {
        if (e instanceof Expr.Condition c) {
            return c.attribute().scope() == Attribute.Scope.TRACE;
        }
        List<Expr> terms = e instanceof Expr.And and ? and.terms() : e instanceof Expr.Or or ? or.terms() : List.of();
        return terms.stream().anyMatch(TraceSearch::namesTrace);
    }

    /** The trace looked up by id over all time, or what {@code looked} holds of it from an earlier lookup. */
    private TraceResult lookUpWhole(TenantId tenant, Bytes traceId, Mechanisms mechanisms, Map<Bytes, TraceResult> looked,
                                    QueryBudget budget) throws IOException {
        TraceResult whole = looked.get(traceId);
        if (whole == null) {
            whole = lookup.trace(tenant, traceId, TimeRange.ALL, mechanisms, false, budget);
            looked.put(traceId, whole);
        }
        return whole;
    }

    /**
     * Looks up, at once in the pools' lookups, each of {@code traceIds} by id over all time that
     * {@code looked} does not hold yet, and adds it there.
     */
    private void lookUpAll(TenantId tenant, Collection<Bytes> traceIds, Mechanisms mechanisms,
                           Map<Bytes, TraceResult> looked, QueryBudget budget) throws IOException {
        List<Bytes> missing = traceIds.stream().filter(id -> !looked.containsKey(id)).distinct().toList();
        List<Callable<TraceResult>> tasks = new ArrayList<>(missing.size());
        for (Bytes id : missing) {
            tasks.add(() -> {
                try {
                    budget.check();
                    return lookup.trace(tenant, id, TimeRange.ALL, mechanisms, false, budget);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        try {
            List<TraceResult> found = pools.runLookups(tasks);
            for (int i = 0; i < missing.size(); i++) {
                looked.put(missing.get(i), found.get(i));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Every span of a looked-up trace by start time, with {@code found}, the spans a search already
     * has (a block the lookup could not read still answered the search).
     */
    static List<SpanRecord> withFound(List<SpanRecord> whole, List<SpanRecord> found) {
        Found<SpanRecord> all = new Found<>(RecordKind.SPANS);
        all.addAll(whole);
        all.addAll(found);
        List<SpanRecord> sorted = new ArrayList<>(all.records());
        sorted.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano));
        return sorted;
    }

    /**
     * The traces holding spans that match {@code expr} in {@code range}, the {@code limit} whose newest
     * matching span is newest, each whole with the spans that match (see {@link QueryEngine#searchTraces}).
     */
    TraceSearchResult traces(TenantId tenant, Expr expr, TimeRange range, int limit, Mechanisms mechanisms,
                             QueryBudget budget) throws IOException {
        Map<Bytes, TraceResult> looked = new HashMap<>();
        SearchResult<SpanRecord> spans;
        if (namesTrace(expr)) {
            int spanLimit = (int) Math.min(Integer.MAX_VALUE, (long) limit * SPANS_PER_TRACE);
            spans = spans(tenant, expr, range, spanLimit, mechanisms, looked, budget);
            while (distinctTraces(spans.records()) < limit && spans.records().size() == spanLimit
                    && spanLimit < Integer.MAX_VALUE) {
                spanLimit = (int) Math.min(Integer.MAX_VALUE, spanLimit * 4L);
                spans = spans(tenant, expr, range, spanLimit, mechanisms, looked, budget);
            }
        } else {
            spans = search.spans(tenant, expr, range, limit, new FirstRecords.Distinct<>(SpanRecord::traceId,
                    SPANS_PER_TRACE), mechanisms, budget);
        }
        Map<Bytes, List<SpanRecord>> byTrace = new LinkedHashMap<>();
        for (SpanRecord s : spans.records()) {
            if (byTrace.size() < limit || byTrace.containsKey(s.traceId())) {
                byTrace.computeIfAbsent(s.traceId(), id -> new ArrayList<>()).add(s);
            }
        }
        Set<String> problems = new LinkedHashSet<>(spans.problems());
        List<Explain> plans = new ArrayList<>();
        plans.add(spans.plan());
        List<TraceSearchResult.Match> traces = new ArrayList<>(byTrace.size());
        for (Map.Entry<Bytes, List<SpanRecord>> e
                : whole(tenant, byTrace, mechanisms, looked, budget, problems, plans).entrySet()) {
            List<SpanRecord> sorted = e.getValue();
            WholeTrace trace = new WholeTrace(sorted);
            List<SpanRecord> matched = sorted.stream()
                    .filter(s -> Values.matches(expr, Values.of(s, trace)) && range.contains(s.startTimeUnixNano()))
                    .toList();
            traces.add(new TraceSearchResult.Match(e.getKey(), sorted, matched));
        }
        return new TraceSearchResult(traces, List.copyOf(problems), plans);
    }

    /**
     * The traces of {@code found} (spans by trace) each whole, every span by start time: looked up by id over all
     * time at once, or taken from {@code looked}, with the spans found. Each lookup's problems and plan are added
     * to {@code problems} and {@code plans}.
     */
    Map<Bytes, List<SpanRecord>> whole(TenantId tenant, Map<Bytes, List<SpanRecord>> found, Mechanisms mechanisms,
                                       Map<Bytes, TraceResult> looked, QueryBudget budget, Set<String> problems,
                                       List<Explain> plans) throws IOException {
        lookUpAll(tenant, found.keySet(), mechanisms, looked, budget);
        Map<Bytes, List<SpanRecord>> traces = new LinkedHashMap<>();
        for (Map.Entry<Bytes, List<SpanRecord>> e : found.entrySet()) {
            TraceResult whole = looked.get(e.getKey());
            problems.addAll(whole.problems());
            plans.add(whole.spanPlan());
            traces.put(e.getKey(), withFound(whole.spans(), e.getValue()));
        }
        return traces;
    }

    private static long distinctTraces(List<SpanRecord> spans) {
        return spans.stream().map(SpanRecord::traceId).distinct().count();
    }
}
