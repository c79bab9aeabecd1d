package dev.needle.query.cli;

import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.SearchQuery;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** What the two searches add to {@link QueryOptions}: the query and the limit. */
final class SearchOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Parameters(paramLabel = "QUERY",
            description = "a query in single quotes, such as the examples below")
    String query;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "at most N results, newest first (default: ${DEFAULT-VALUE})")
    int limit;

    /** The query parsed as a log search; a parse error is a usage error that points at the place. */
    Expr parseLogs() throws QueryFailure {
        checkLimit();
        try {
            return QueryParser.parse(query, Signal.LOGS);
        } catch (QueryParseException e) {
            throw badQuery(e);
        }
    }

    /**
     * The query parsed as {@code /api/search} reads it ({@link SearchQuery}): a selector, or any other span
     * query of TraceQL; a parse error is a usage error that points at the place, and so is a metrics query.
     */
    SearchQuery parseSpans() throws QueryFailure {
        checkLimit();
        SearchQuery parsed;
        try {
            parsed = SearchQuery.parse(query);
        } catch (QueryParseException e) {
            throw badQuery(e);
        }
        if (parsed instanceof SearchQuery.TraceQl t && t.query() instanceof Query.Metrics) {
            throw new QueryFailure(QueryCommand.USAGE, "bad query: a metrics query is asked of a server's "
                    + "/api/metrics/query_range or /api/metrics/query, not of needle query spans");
        }
        return parsed;
    }

    private void checkLimit() {
        if (limit < 1) {
            throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
        }
    }

    private QueryFailure badQuery(QueryParseException e) {
        return new QueryFailure(QueryCommand.USAGE, "bad query: " + e.getMessage() + System.lineSeparator()
                + caret(query, e.position()));
    }

    /**
     * The query on one line with a caret under {@code position}. Control characters print as spaces
     * so that the caret stays under the character the position counts to.
     */
    static String caret(String query, int position) {
        StringBuilder line = new StringBuilder(query.length());
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            line.append(Character.isISOControl(c) ? ' ' : c);
        }
        int at = Math.max(0, Math.min(position, query.length()));
        return "  " + line + System.lineSeparator() + "  " + " ".repeat(at) + "^";
    }
}
