package dev.needle.bench.scenario;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TraceResult;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;

/** Runs a scenario through the query engine once: its answer and its EXPLAIN. */
final class Lookups {

    /** How many newest records a search returns, as Tempo's search does by default. */
    static final int LIMIT = 20;

    private Lookups() {
    }

    /** One run's result. */
    record Outcome(AnswerDigest answer, Explain plan, boolean partial) {
    }

    static Outcome run(QueryEngine engine, TenantId tenant, Scenario s, Mechanisms mechanisms) throws IOException {
        try {
            return switch (s.kind()) {
                case TRACE -> {
                    TraceResult r = engine.trace(tenant, s.traceId(), s.range(), mechanisms, false);
                    yield new Outcome(AnswerDigest.ofSpans(r.spans()), r.spanPlan(), r.partial());
                }
                case SPANS -> {
                    SearchResult<dev.needle.blocks.model.SpanRecord> r = engine.searchSpans(tenant,
                            QueryParser.parse(s.query(), Signal.SPANS), s.range(), LIMIT, mechanisms);
                    yield new Outcome(AnswerDigest.ofSpans(r.records()), r.plan(), r.partial());
                }
                case LOGS -> {
                    SearchResult<dev.needle.blocks.model.LogRecord> r = engine.searchLogs(tenant,
                            QueryParser.parse(s.query(), Signal.LOGS), s.range(), LIMIT, mechanisms);
                    yield new Outcome(AnswerDigest.ofLogs(r.records()), r.plan(), r.partial());
                }
            };
        } catch (QueryParseException e) {
            throw new IllegalArgumentException("scenario " + s.name() + " has a bad query: " + e.getMessage(), e);
        }
    }
}
