package dev.needle.query.cli;

import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
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
            description = "a TraceQL-style selector in single quotes, such as the examples below")
    String query;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "20",
            description = "at most N results, newest first (default: ${DEFAULT-VALUE})")
    int limit;

    /** The query parsed for {@code signal}; a parse error is a usage error that points at the place. */
    Expr parse(Signal signal) throws QueryFailure {
        if (limit < 1) {
            throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
        }
        try {
            return QueryParser.parse(query, signal);
        } catch (QueryParseException e) {
            throw new QueryFailure(QueryCommand.USAGE, "bad query: " + e.getMessage() + System.lineSeparator()
                    + caret(query, e.position()));
        }
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
