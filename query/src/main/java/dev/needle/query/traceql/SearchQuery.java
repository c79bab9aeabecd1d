package dev.needle.query.traceql;

import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;

/**
 * The query of a span search as a user types it, read the one way Tempo's {@code /api/search} and
 * {@code needle query spans} both read it: a selector of conditions ({@code { a = 1 && b = 2 }}) is read
 * by {@link QueryParser}, so that its conditions prune blocks and rows as they are; any other TraceQL
 * (spanset and structural operators, pipelines, {@code select}, a metrics query) by {@link TraceQlParser}.
 */
public sealed interface SearchQuery {

    /** A selector of conditions: a search of spans. */
    record Selector(Expr expr) implements SearchQuery {
    }

    /** Any other TraceQL query: a span query runs on candidate traces whole; a metrics query is no search. */
    record TraceQl(Query query) implements SearchQuery {
    }

    /**
     * {@code text} read as a selector, or else as TraceQL. When neither reads it, the error is that of
     * the reading that got further, the selector's on a tie: it names what it expected more closely.
     */
    static SearchQuery parse(String text) throws QueryParseException {
        try {
            return new Selector(QueryParser.parse(text, Signal.SPANS));
        } catch (QueryParseException selector) {
            try {
                return new TraceQl(TraceQlParser.parse(text));
            } catch (QueryParseException traceQl) {
                throw traceQl.position() > selector.position() ? traceQl : selector;
            }
        }
    }
}
