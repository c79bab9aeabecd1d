package dev.needle.query.engine;

import java.util.function.Predicate;

/**
 * What a search judges beyond its {@link dev.needle.query.ql.Expr}, on the rows the Expr matched: first
 * the text of a log record's string body, on the body column before any record is built (a LogQL line
 * filter), then the decoded record (the rest of a LogQL pipeline). A search with a limit keeps the
 * first {@code limit} records that pass both, so that a selective filter never makes a query hold
 * more than its answer.
 *
 * @param bodyText tests the text of a string body, or null; a body of another type is left to {@code record}.
 *                 It must hold for every record that {@code record} accepts
 * @param record   tests a decoded record, or null
 * @param <R>      spans or log records
 */
public record RecordFilter<R>(Predicate<String> bodyText, Predicate<R> record) {

    /** No test beyond the Expr. */
    public static <R> RecordFilter<R> none() {
        return new RecordFilter<>(null, null);
    }
}
