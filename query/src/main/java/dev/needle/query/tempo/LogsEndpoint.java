package dev.needle.query.tempo;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.metrics.QueryMetrics;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.util.List;

/** needle's own {@code /api/logs}: log records matching a selector such as {@code { severity >= 17 }}, newest first. */
public final class LogsEndpoint {

    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 10_000;

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    /** The endpoint over {@code engine}, counting each lookup in {@code metrics}. */
    public LogsEndpoint(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** {@code {"logs":{"resourceLogs":[…]},"status":…,"message"?,"explain"?}}; no {@code q} lists the newest records. */
    public ApiReply answer(TenantId tenant, Params params) throws ApiException, IOException {
        String q = params.string("q");
        Expr expr;
        try {
            expr = QueryParser.parse(q == null ? "{ }" : q, Signal.LOGS);
        } catch (QueryParseException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        TimeRange range = params.range();
        int limit = params.limit(DEFAULT_LIMIT, MAX_LIMIT);
        Mechanisms mechanisms = params.mechanisms();
        boolean explain = params.flag("explain");
        long started = System.nanoTime();
        SearchResult<LogRecord> result = engine.searchLogs(tenant, expr, range, limit, mechanisms);
        metrics.record(QueryMetrics.Kind.LOGS, System.nanoTime() - started, List.of(result.plan()));
        return JsonReplies.object(200, g -> {
            g.writeObjectFieldStart("logs");
            OtlpJson.writeResourceLogs(g, result.records());
            g.writeEndObject();
            JsonReplies.status(g, result.problems());
            JsonReplies.explain(g, explain, List.of(result.plan()));
        });
    }
}
