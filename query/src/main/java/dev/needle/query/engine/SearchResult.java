package dev.needle.query.engine;

import java.util.List;

/**
 * The records matching an attribute lookup, newest first, at most the limit.
 *
 * @param records  the matching records, newest first, without duplicates
 * @param problems one message per block that could not be read: the answer is partial when any
 * @param plan     the EXPLAIN of the lookup
 * @param <R>      spans or log records
 */
public record SearchResult<R>(List<R> records, List<String> problems, Explain plan) {

    public SearchResult {
        records = List.copyOf(records);
        problems = List.copyOf(problems);
    }

    /** Whether some block could not be read, so that the answer may miss records. */
    public boolean partial() {
        return !problems.isEmpty();
    }
}
