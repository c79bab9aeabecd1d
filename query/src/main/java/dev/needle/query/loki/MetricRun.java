package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.logql.metric.MetricEval;
import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A LogQL metric query evaluated over the engine, the one way every Loki endpoint runs one: {@link MetricEval}
 * reading entries through {@link LokiSearch#every}, and sums of counts through {@link LokiSearch#count} unless
 * the request turned counts off; the lookups' plans and problems gathered, the time counted in
 * {@link QueryMetrics}.
 *
 * @param value    the expression's value at each time
 * @param plans    every lookup's plan
 * @param problems blocks that could not be read: the value may miss entries
 * @param nanos    how long the evaluation took
 */
record MetricRun(MetricEval.Value value, List<Explain> plans, List<String> problems, long nanos) {

    /** {@code expr} at {@code times}; a query Loki would refuse while evaluating it is a 400 in its words. */
    static MetricRun of(QueryEngine engine, QueryMetrics metrics, TenantId tenant, MetricExpr expr, long[] times,
                        Mechanisms mechanisms) throws ApiException, IOException {
        List<Explain> plans = new ArrayList<>();
        Set<String> problems = new LinkedHashSet<>();
        LokiSearch search = new LokiSearch(engine);
        long started = System.nanoTime();
        MetricEval.Value value;
        try {
            MetricEval.Counter counter = !mechanisms.counts() ? null : (log, from, to, usable, counts, entries) -> {
                LokiSearch.Result found = search.count(tenant, log, new TimeRange(from, to), usable, counts, entries,
                        mechanisms);
                plans.addAll(found.plans());
                problems.addAll(found.problems());
            };
            value = new MetricEval(times, (log, from, to) -> {
                LokiSearch.Result found = search.every(tenant, log, new TimeRange(from, to), mechanisms);
                plans.addAll(found.plans());
                problems.addAll(found.problems());
                return found.entries();
            }, counter).eval(expr);
        } catch (MetricEval.EvalException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        long took = System.nanoTime() - started;
        metrics.record(QueryMetrics.Kind.LOGS, took, plans);
        return new MetricRun(value, List.copyOf(plans), List.copyOf(problems), took);
    }
}
