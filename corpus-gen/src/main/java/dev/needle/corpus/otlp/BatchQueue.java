package dev.needle.corpus.otlp;

import java.util.Iterator;
import java.util.List;
import java.util.Objects;

/**
 * A batch iterator shared by worker threads: hands out its non-empty batches one at a time, in
 * iterator order and numbered from 0, until it is exhausted or stopped.
 */
final class BatchQueue<T> {

    /** The {@code index}-th non-empty batch of the iterator. */
    record Batch<T>(long index, List<T> records) {
    }

    private final Iterator<? extends List<T>> batches;
    private volatile boolean stopped;
    private long next;

    BatchQueue(Iterator<? extends List<T>> batches) {
        this.batches = Objects.requireNonNull(batches, "batches");
    }

    /**
     * The next batch, or null when there are no more or the queue was stopped. Empty batches are
     * skipped, so that no empty request is sent or written and file numbers have no gaps.
     */
    Batch<T> take() {
        if (stopped) {
            return null;
        }
        // The iterator may generate data as it goes: one thread at a time may call it.
        synchronized (this) {
            while (!stopped && batches.hasNext()) {
                List<T> records = batches.next();
                if (records == null) {
                    throw new NullPointerException("the batch iterator returned null after batch " + next);
                }
                if (!records.isEmpty()) {
                    return new Batch<>(next++, records);
                }
            }
            return null;
        }
    }

    /** Hands out no more batches; those already taken are still finished by their workers. */
    void stop() {
        stopped = true;
    }
}
