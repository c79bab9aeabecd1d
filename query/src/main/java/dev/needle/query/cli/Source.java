package dev.needle.query.cli;

import dev.needle.blocks.model.Bytes;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.SearchQuery;

/** Where lookups are answered: a data directory read directly, or a running server. */
interface Source extends AutoCloseable {

    /** Every span of a trace, and its log records when {@code withLogs}. */
    Answer.Trace trace(Request request, Bytes traceId, boolean withLogs) throws QueryFailure;

    /**
     * What {@code query} (already parsed into {@code parsed}) matches, newest first: for a selector, the
     * matching spans from a data directory and the traces that hold them from a server (Tempo's search answers
     * traces); for any other TraceQL, the matching traces from either, as Tempo's search answers them.
     */
    Answer spans(Request request, String query, SearchQuery parsed, int limit) throws QueryFailure;

    /** Log records matching {@code query} (already parsed into {@code expr}), newest first. */
    Answer.Logs logs(Request request, String query, Expr expr, int limit) throws QueryFailure;

    @Override
    void close();
}
