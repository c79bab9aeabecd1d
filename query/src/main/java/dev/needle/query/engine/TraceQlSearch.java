package dev.needle.query.engine;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.Spanset;
import dev.needle.query.traceql.TraceEvaluator;
import dev.needle.query.traceql.TraceQlPruning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A TraceQL span query of the whole language (spanset and structural operators, pipelines, select): the
 * candidate traces are found as a search by one condition every matching trace certainly holds
 * ({@link TraceQlPruning#required}), so the sidecars prune blocks as for any search, each candidate is
 * looked up whole, and the query is run on it ({@link TraceEvaluator}).
 *
 * <p>When fewer candidates match than the limit and more may exist, the search is asked again for four
 * times as many candidates, up to {@link #MAX_CANDIDATES}: a query whose matches are rarer than that among
 * its candidates answers the matches among the newest {@code MAX_CANDIDATES}.
 */
final class TraceQlSearch {

    /** The most candidate traces one query looks up whole. */
    static final int MAX_CANDIDATES = 10_000;

    private final TraceSearch traceSearch;

    TraceQlSearch(TraceSearch traceSearch) {
        this.traceSearch = traceSearch;
    }

    TraceQlResult traces(TenantId tenant, Query.Spans query, TimeRange range, int limit, Mechanisms mechanisms,
                         QueryBudget budget) throws IOException {
        Expr candidates = candidates(TraceQlPruning.required(query));
        int ask = limit;
        while (true) {
            TraceSearchResult found = traceSearch.traces(tenant, candidates, range, ask, mechanisms, budget);
            List<TraceQlResult.Match> matches = new ArrayList<>();
            for (TraceSearchResult.Match trace : found.traces()) {
                List<Spanset> spansets = TraceEvaluator.evaluate(query.expr(), trace.spans());
                if (!spansets.isEmpty() && matches.size() < limit) {
                    matches.add(new TraceQlResult.Match(trace, spansets));
                }
            }
            boolean exhausted = found.traces().size() < ask;
            if (matches.size() >= limit || exhausted || ask >= MAX_CANDIDATES) {
                return new TraceQlResult(matches, found.problems(), found.plans());
            }
            ask = (int) Math.min(MAX_CANDIDATES, 4L * ask);
        }
    }

    /** The condition the candidates are searched by: one an index can look up if any can, else the first; else every trace. */
    static Expr candidates(List<Expr> required) {
        for (Expr e : required) {
            if (e instanceof Expr.Condition c && !c.equalities().isEmpty()) {
                return e;
            }
        }
        return required.isEmpty() ? new Expr.MatchAll() : required.get(0);
    }
}
