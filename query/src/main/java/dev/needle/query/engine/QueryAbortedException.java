package dev.needle.query.engine;

/**
 * A query stopped before its answer because it passed one of its {@link QueryLimits}: it ran past its
 * deadline, its records would have held more than its memory, or every running query together would
 * have. The message says which and what to change.
 */
public final class QueryAbortedException extends RuntimeException {

    /** Which limit the query passed. */
    public enum Reason {
        /** It ran longer than {@link QueryLimits#timeout}. */
        TIMEOUT,
        /** Its records would have held more than {@link QueryLimits#queryBytes}. */
        MEMORY,
        /** The running queries' records together would have held more than {@link QueryLimits#totalBytes}: try again later. */
        BUSY
    }

    private final Reason reason;

    QueryAbortedException(Reason reason, String message) {
        // No stack trace: the message is the whole story, and every block task that sees the abort rethrows this one.
        super(message, null, false, false);
        this.reason = reason;
    }

    /** Which limit the query passed. */
    public Reason reason() {
        return reason;
    }
}
