package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.ApiException;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.logql.metric.MetricEval;
import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.logql.metric.MetricSource;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.util.List;

/**
 * A LogQL metric query evaluated over the engine, the one way every Loki endpoint runs one: {@link MetricEval}
 * counting the entries {@link MetricSource} hands it as they are read, within one budget for the whole query, and
 * adding blocks' COUNTS rows for sums of counts unless the request turned counts off; the lookups' plans and
 * problems gathered, the time counted in {@link QueryMetrics}.
 *
 * @param value    the expression's value at each time
 * @param plans    every lookup's plan
 * @param problems blocks that could not be read: the value may miss entries
 * @param nanos    how long the evaluation took
 */
record MetricRun(MetricEval.Value value, List<Explain> plans, List<String> problems, long nanos) {

    /**
     * {@code expr} at {@code times}, an instant query's ({@code instant}, one time) or a range query's; a query
     * Loki would refuse while evaluating it is a 400 in its words.
     */
    static MetricRun of(QueryEngine engine, QueryMetrics metrics, TenantId tenant, MetricExpr expr, long[] times,
                        boolean instant, Mechanisms mechanisms) throws ApiException, IOException {
        long started = System.nanoTime();
        try (MetricSource source = new MetricSource(new LokiSearch(engine), engine.budget(), tenant, mechanisms)) {
            MetricEval.Value value = new MetricEval(times, instant, source).eval(expr);
            long took = System.nanoTime() - started;
            metrics.record(QueryMetrics.Kind.LOGS, took, source.plans());
            return new MetricRun(value, source.plans(), source.problems(), took);
        } catch (MetricEval.EvalException e) {
            throw ApiException.badRequest(e.getMessage());
        }
    }
}
