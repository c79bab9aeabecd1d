package dev.needle.query.engine;

import dev.needle.blocks.cli.Units;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One query's share of memory and time: the heap its decoded records hold, reserved as they are
 * decoded and given back as they are dropped or when the query ends, and its deadline. A query made
 * of several lookups (a metric query's range aggregations) holds one budget for all of them
 * ({@link QueryEngine#budget}), and what it keeps between records (a metric's state per series and
 * step) is reserved in it too. Every block
 * task of the query checks it between batches, so that a query past a limit stops all its work within
 * a batch's time and answers a clear {@link QueryAbortedException}. Thread-safe: a query's blocks are
 * read in parallel; once closed it holds nothing, and a task that still reserves is stopped.
 */
public final class QueryBudget implements AutoCloseable {

    private final QueryLimits limits;
    /** What every open budget of the engine holds together. */
    private final AtomicLong all;
    private final long deadlineNanos;
    private long held;
    private boolean closed;
    private volatile QueryAbortedException aborted;

    QueryBudget(QueryLimits limits, AtomicLong all) {
        this.limits = limits;
        this.all = all;
        this.deadlineNanos = System.nanoTime() + limits.timeout().toNanos();
    }

    /**
     * Counts {@code bytes} more held by the query.
     *
     * @throws QueryAbortedException when the query, or every query together, would hold more than allowed,
     *                               or the query is past its deadline
     */
    public synchronized void reserve(long bytes) {
        check();
        if (closed) {
            throw abort(QueryAbortedException.Reason.TIMEOUT, "the query was stopped");
        }
        held += bytes;
        long total = all.addAndGet(bytes);
        if (held > limits.queryBytes()) {
            throw abort(QueryAbortedException.Reason.MEMORY, "the query would hold more than its memory limit of "
                    + Units.formatBytes(limits.queryBytes()) + " of records and series; narrow its time range, make it"
                    + " more selective or ask for fewer results or series");
        }
        if (total > limits.totalBytes()) {
            throw abort(QueryAbortedException.Reason.BUSY, "the queries running now hold the "
                    + Units.formatBytes(limits.totalBytes()) + " of records all queries may hold together; try again"
                    + " once they are done");
        }
    }

    /** Counts {@code bytes} no longer held. */
    synchronized void release(long bytes) {
        if (!closed) {
            held -= bytes;
            all.addAndGet(-bytes);
        }
    }

    /** @throws QueryAbortedException when the query is past its deadline, or another of its tasks stopped it */
    void check() {
        QueryAbortedException stop = aborted;
        if (stop != null) {
            throw stop;
        }
        if (System.nanoTime() - deadlineNanos > 0) {
            throw abort(QueryAbortedException.Reason.TIMEOUT, "the query ran longer than its limit of "
                    + Units.formatDuration(limits.timeout()) + "; narrow its time range or make it more selective");
        }
    }

    /** Stops the query: this and every later check throws the first abort. */
    private synchronized QueryAbortedException abort(QueryAbortedException.Reason reason, String message) {
        if (aborted == null) {
            aborted = new QueryAbortedException(reason, message);
        }
        return aborted;
    }

    /** Gives back everything the query still holds. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            all.addAndGet(-held);
            held = 0;
        }
    }
}
