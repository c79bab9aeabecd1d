package dev.needle.query.logql;

/**
 * A LogQL query that does not parse, or asks for what needle does not do; the message reads as
 * Loki's ({@code parse error at line 1, col 7: …}) so that Grafana shows it the same way.
 *
 * <p>Checked, as {@code QueryParseException} is: query text comes from users, and every entry point
 * turns a bad one into its own answer (a 400).
 */
public final class LogQlParseException extends Exception {

    /** A problem at {@code position}, a 0-based UTF-16 index into the single-line query. */
    public LogQlParseException(String query, int position, String message) {
        super("parse error at line " + line(query, position) + ", col " + column(query, position) + ": " + message);
    }

    /** A problem with the query as a whole, not at one place. */
    public LogQlParseException(String message) {
        super(message);
    }

    private static int line(String query, int position) {
        int line = 1;
        for (int i = 0; i < Math.min(position, query.length()); i++) {
            line += query.charAt(i) == '\n' ? 1 : 0;
        }
        return line;
    }

    private static int column(String query, int position) {
        int start = query.lastIndexOf('\n', Math.max(0, Math.min(position, query.length()) - 1)) + 1;
        return position - start + 1;
    }
}
