package dev.needle.blocks.store.reads;

import java.util.concurrent.atomic.AtomicLong;

/** A {@link RequestCounter} that sums requests and bytes; safe to share between threads. */
public final class ReadTally implements RequestCounter {

    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();

    @Override
    public void request(long bytes) {
        requests.incrementAndGet();
        this.bytes.addAndGet(bytes);
    }

    /** Requests counted so far. */
    public long requests() {
        return requests.get();
    }

    /** Bytes the counted requests returned. */
    public long bytes() {
        return bytes.get();
    }
}
