package dev.needle.corpus.otlp;

import java.util.concurrent.TimeUnit;

/**
 * Spaces batches out so that all workers together start at most {@code recordsPerSecond}
 * records a second: each batch reserves the next free slot, as long as its records take at
 * the target rate, and waits for it.
 */
final class Pacer {

    /*
     * A virtual clock rather than a token bucket: the slot after a batch of n records begins
     * n / rate seconds after that batch's own. A sender that fell behind (a slow server) does not
     * earn credit: its next slot starts now, so it never bursts above the target to catch up.
     */

    private final double nanosPerRecord;
    private long nextSlot;
    private boolean started;

    /** A pacer for {@code recordsPerSecond}; 0 means no limit. */
    Pacer(long recordsPerSecond) {
        if (recordsPerSecond < 0) {
            throw new IllegalArgumentException("the target rate must be 0 (no limit) or positive, got " + recordsPerSecond);
        }
        this.nanosPerRecord = recordsPerSecond == 0 ? 0 : 1e9 / recordsPerSecond;
    }

    /** Waits until a batch of {@code records} may start. */
    void acquire(int records) throws InterruptedException {
        if (nanosPerRecord == 0) {
            return;
        }
        long slot;
        synchronized (this) {
            long now = System.nanoTime();
            if (!started || nextSlot - now < 0) {
                nextSlot = now;
                started = true;
            }
            slot = nextSlot;
            nextSlot += Math.round(records * nanosPerRecord);
        }
        long wait = slot - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
