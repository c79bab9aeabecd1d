/**
 * TraceQL as Grafana Tempo speaks it: the language, its evaluation on one trace, metrics over the
 * spans it selects, and what a query lets a lookup rule out.
 *
 * <ul>
 *   <li>{@link dev.needle.query.traceql.TraceQlParser#parse(String)} turns text into a
 *       {@link dev.needle.query.traceql.Query}: a {@link dev.needle.query.traceql.Query.Spans} (a
 *       {@link dev.needle.query.traceql.SpansetExpr}: filters {@code { … }} of
 *       {@link dev.needle.query.traceql.FieldExpr}s, spanset and structural operators, pipelines of
 *       {@link dev.needle.query.traceql.Stage}s) or a {@link dev.needle.query.traceql.Query.Metrics} (a
 *       {@link dev.needle.query.traceql.MetricsExpr}). A query that does not parse, or that Tempo would
 *       refuse on validation, throws {@link dev.needle.query.ql.QueryParseException} with its position.
 *       Every node prints back ({@code toString()}) to text that parses to an equal tree.</li>
 *   <li>{@link dev.needle.query.traceql.TraceEvaluator#evaluate(SpansetExpr, java.util.List)} runs a span
 *       query on all the spans of one trace and returns the {@link dev.needle.query.traceql.Spanset}s
 *       Tempo would (empty: the trace does not match), with the fields {@code select()} asked for on
 *       each span; {@link dev.needle.query.traceql.EvaluationException} when Tempo refuses to run it.</li>
 *   <li>{@link dev.needle.query.traceql.MetricsAggregator} takes a metrics query with the range's start, end
 *       and step, is given every candidate trace whole ({@code add}), and returns the
 *       {@link dev.needle.query.traceql.TimeSeries} Tempo's {@code query_range} would ({@code series()}).</li>
 *   <li>{@link dev.needle.query.traceql.TraceQlPruning#required(Query)} gives conditions in the engine's
 *       {@link dev.needle.query.ql.Expr} form, each held by at least one span of every trace the query
 *       matches: the index may skip what holds none of them. The list never says more than is certain.</li>
 * </ul>
 *
 * <p>How the engine is meant to use it: parse; prune blocks and batches by {@code required} (each
 * condition as today's single-selector lookup would, a trace needing a span for each); gather the
 * candidate traces whole; run {@code TraceEvaluator.evaluate} (search) or feed
 * {@code MetricsAggregator.add} (metrics) with each. Nothing here reads blocks or knows of HTTP.
 *
 * <p>A caveat for pruning: a trace's spans may lie in several blocks, so a block that holds no span
 * for a required condition may still hold spans of a matching trace. Skipping it is certain only
 * where the engine looks for the condition's spans first and then fetches their traces whole.
 */
package dev.needle.query.traceql;
