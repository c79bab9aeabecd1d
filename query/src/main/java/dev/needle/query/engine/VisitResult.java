package dev.needle.query.engine;

import java.util.List;

/**
 * What a visit of every matching record came to, beside the records it handed over.
 *
 * @param problems one message per block that could not be read: the answer is partial when any
 * @param plan     the EXPLAIN of the visit
 */
public record VisitResult(List<String> problems, Explain plan) {

    public VisitResult {
        problems = List.copyOf(problems);
    }

    /** Whether some block could not be read, so that the visit may have missed records. */
    public boolean partial() {
        return !problems.isEmpty();
    }
}
