package dev.needle.query.ql;

/**
 * A query that does not parse: the 0-based position (a UTF-16 index into the query text) and what
 * was expected there.
 *
 * <p>Checked on purpose: query text comes from users (the HTTP API, the CLI), so a bad query is an
 * expected outcome that every entry point must turn into its own answer (a 400, a usage error),
 * not a programming error to let escape.
 */
public final class QueryParseException extends Exception {

    private final int position;

    /** A parse error at {@code position}; the message is prefixed with {@code "at <position>: "}. */
    public QueryParseException(int position, String message) {
        super("at " + position + ": " + message);
        this.position = position;
    }

    /** The 0-based index into the query text where the problem starts. */
    public int position() {
        return position;
    }
}
