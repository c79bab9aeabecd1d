package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.Spanset;
import dev.needle.query.traceql.SpansetExpr;
import dev.needle.query.traceql.TraceEvaluator;
import dev.needle.query.traceql.TraceQlPruning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A TraceQL span query of the whole language (spanset and structural operators, pipelines, select), with
 * Tempo's time semantics where needle's blocks allow them: the query runs on each candidate trace whole,
 * spans outside the time range included (an ancestor that started before the range satisfies {@code >>}),
 * and a trace is answered when one of the spans its spansets hold starts in the range.
 *
 * <p>So the candidates are the traces holding a span in the range that satisfies every condition each
 * returned span satisfies ({@link TraceQlPruning#returned}): a search of spans by those conditions, which the
 * sidecars prune as any search, keeping the newest such span of each trace. The candidates are looked up
 * whole at once ({@link TraceLookup#traces}: each block and batch that holds any of them read once), and the
 * query is run on each, newest first, until {@code limit} traces match (the first round asks for {@code limit}
 * candidates, four times as many for an operation between spansets). When fewer match and more candidates
 * may exist, the search is asked for as many more as the share that matched predicts ({@link #nextAsk}), up
 * to {@link #MAX_CANDIDATES}, and only the new candidates are looked up: a query whose matches are rarer than
 * that among its candidates answers the matches among the newest {@code MAX_CANDIDATES}.
 */
final class TraceQlSearch {

    /** The most candidate traces one query looks up whole. */
    static final int MAX_CANDIDATES = 10_000;

    private final RecordSearch search;
    private final TraceLookup lookup;

    TraceQlSearch(RecordSearch search, TraceLookup lookup) {
        this.search = search;
        this.lookup = lookup;
    }

    TraceQlResult traces(TenantId tenant, Query.Spans query, TimeRange range, int limit, Mechanisms mechanisms,
                         QueryBudget budget) throws IOException {
        Expr candidates = allOf(TraceQlPruning.returned(query));
        Map<Bytes, List<SpanRecord>> whole = new HashMap<>();
        Map<Bytes, List<Spanset>> evaluated = new HashMap<>();
        Set<String> problems = new LinkedHashSet<>();
        List<Explain> lookups = new ArrayList<>();
        // Spans related across a trace (operators between spansets) match far fewer candidates than a filter
        // keeps: the first round asks for more, rather than spend a round learning so.
        int ask = query.expr() instanceof SpansetExpr.Operation ? (int) Math.min(MAX_CANDIDATES, 4L * limit) : limit;
        while (true) {
            SearchResult<SpanRecord> found = search.spans(tenant, candidates, range, ask,
                    new FirstRecords.Distinct<>(SpanRecord::traceId, TraceSearch.SPANS_PER_TRACE), mechanisms, budget);
            List<Bytes> missing = found.records().stream().map(SpanRecord::traceId)
                    .filter(id -> !whole.containsKey(id)).toList();
            if (!missing.isEmpty()) {
                TraceResult looked = lookup.traces(tenant, missing, mechanisms, budget);
                problems.addAll(looked.problems());
                lookups.add(looked.spanPlan());
                missing.forEach(id -> whole.put(id, new ArrayList<>()));
                looked.spans().forEach(s -> whole.get(s.traceId()).add(s));
            }
            List<TraceQlResult.Match> matches = new ArrayList<>();
            for (SpanRecord candidate : found.records()) {
                if (matches.size() == limit) {
                    break;
                }
                Bytes id = candidate.traceId();
                List<SpanRecord> spans = TraceSearch.withFound(whole.get(id), List.of(candidate));
                List<Spanset> spansets = evaluated.computeIfAbsent(id, k -> TraceEvaluator.evaluate(query.expr(), spans));
                List<SpanRecord> inRange = inRange(spansets, range);
                if (!inRange.isEmpty()) {
                    matches.add(new TraceQlResult.Match(new TraceSearchResult.Match(id, spans, inRange), spansets));
                }
            }
            boolean exhausted = found.records().size() < ask;
            if (matches.size() >= limit || exhausted || ask >= MAX_CANDIDATES) {
                problems.addAll(found.problems());
                List<Explain> plans = new ArrayList<>();
                plans.add(found.plan());
                plans.addAll(lookups);
                return new TraceQlResult(matches, List.copyOf(problems), plans);
            }
            ask = (int) Math.min(MAX_CANDIDATES, nextAsk(ask, matches.size(), limit));
        }
    }

    /**
     * How many candidates to ask for after {@code asked} gave {@code matched} of {@code limit}: as many as
     * the share that matched predicts, and a half more, so that one more round most often ends the search
     * (each round reads the blocks that hold its candidates); four times as many when none matched.
     */
    private static long nextAsk(int asked, int matched, int limit) {
        return matched == 0 ? 4L * asked : Math.max(2L * asked, (long) asked * limit * 3 / (2L * matched));
    }

    /** The spans of {@code spansets} that start in {@code range}, each once, by start time. */
    private static List<SpanRecord> inRange(List<Spanset> spansets, TimeRange range) {
        Found<SpanRecord> found = new Found<>(RecordKind.SPANS);
        for (Spanset set : spansets) {
            for (Spanset.Member m : set.spans()) {
                if (range.contains(m.span().startTimeUnixNano())) {
                    found.add(m.span());
                }
            }
        }
        List<SpanRecord> out = new ArrayList<>(found.records());
        out.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano));
        return out;
    }

    /** What one span satisfying every condition of {@code conditions} satisfies: their AND; every span when none. */
    private static Expr allOf(List<Expr> conditions) {
        return conditions.isEmpty() ? new Expr.MatchAll() : conditions.size() == 1 ? conditions.get(0)
                : new Expr.And(conditions);
    }

    /**
     * The condition a search finds candidates by, of {@code required} (each held by some span of every
     * matching trace): one an index can look up if any can, else the first; else every span.
     */
    static Expr candidates(List<Expr> required) {
        for (Expr e : required) {
            if (e instanceof Expr.Condition c && !c.equalities().isEmpty()) {
                return e;
            }
        }
        return required.isEmpty() ? new Expr.MatchAll() : required.get(0);
    }
}
