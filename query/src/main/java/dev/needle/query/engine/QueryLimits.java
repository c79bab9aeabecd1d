package dev.needle.query.engine;

import java.time.Duration;

/**
 * What queries may use: the heap one query's decoded records may hold, the heap all running queries'
 * records may hold together, and how long one query may run. A query past any of them stops with a
 * {@link QueryAbortedException}; nothing it held is kept, and the next query runs normally.
 *
 * @param queryBytes heap one query's records may hold, as {@link dev.needle.blocks.model.HeapEstimate} counts it
 * @param totalBytes heap the records of every running query may hold together
 * @param timeout    how long one query may run
 */
public record QueryLimits(long queryBytes, long totalBytes, Duration timeout) {

    /**
     * A command-line query's: one query at a time, in the JVM's default heap of a quarter of the machine's
     * memory, for as long as its user waits (Ctrl-C stops it sooner).
     */
    public static final QueryLimits DEFAULTS = new QueryLimits(256L << 20, 256L << 20, Duration.ofHours(1));

    public QueryLimits {
        if (queryBytes < 1 || totalBytes < queryBytes) {
            throw new IllegalArgumentException("a query's memory (" + queryBytes + " bytes) must be positive and at most"
                    + " what all queries may hold (" + totalBytes + " bytes)");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("the query timeout (" + timeout + ") must be positive");
        }
    }
}
