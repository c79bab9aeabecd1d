package dev.needle.ingest.http;

import java.io.IOException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The heap that requests being decoded may take together. A request reserves {@link #EXPANSION}
 * bytes of heap for every byte of its decompressed body as the body is read, and gives them back
 * once its records are in the head (which has its own bound); a request that cannot reserve in
 * time is refused with a 503, so decoding never holds more than the budget.
 */
public final class DecodeBudget {

    /**
     * Heap bytes a body byte takes while it is decoded: the body, the protobuf messages parsed
     * from it and the records built from those, all alive at once. Measured at about 12.3 on
     * OTLP protobuf spans (22 MB of body: 181 MB of messages, then 122 MB of records); JSON takes
     * less a byte.
     */
    public static final int EXPANSION = 13;
    /** Heap is reserved a MiB of body at a time. */
    private static final long STEP = 1 << 20;
    private static final long KIB = 1 << 10;

    private final long bytes;
    private final Semaphore kib;
    private final long waitNanos;

    /** A budget of {@code bytes} of heap; a reservation waits at most {@code waitMillis} in all for room. */
    public DecodeBudget(long bytes, long waitMillis) {
        if (bytes < EXPANSION * STEP) {
            throw new IllegalArgumentException("a decode budget of " + bytes + " bytes cannot take even one MiB of body");
        }
        this.bytes = bytes;
        this.kib = new Semaphore((int) Math.min(Integer.MAX_VALUE, bytes / KIB));
        this.waitNanos = TimeUnit.MILLISECONDS.toNanos(waitMillis);
    }

    /** The heap bytes of the budget. */
    public long bytes() {
        return bytes;
    }

    /** The largest body one request can decode: its heap must fit in the whole budget. */
    public long maxBodyBytes() {
        return bytes / EXPANSION / STEP * STEP;
    }

    /** Heap bytes reserved now, by all requests. */
    long reservedBytes() {
        return (bytes / KIB - kib.availablePermits()) * KIB;
    }

    /** A request's reservation, which grows with its body and is given back by {@link #close}. */
    Reservation reserve() {
        return new Reservation();
    }

    /** Thrown when a request cannot reserve heap for more of its body in time. */
    static final class BusyException extends IOException {
        BusyException(long bodyBytes) {
            super("the server is decoding as many requests as its memory allows (this one had " + bodyBytes
                    + " bytes of body); retry");
        }
    }

    /** One request's share of the budget. */
    final class Reservation implements AutoCloseable {

        private final long deadline = System.nanoTime() + waitNanos;
        private long coveredBodyBytes;
        private int heldKib;

        /** Makes sure heap is reserved for {@code bodyBytes} bytes of body, waiting for room until the deadline. */
        void cover(long bodyBytes) throws BusyException {
            while (coveredBodyBytes < bodyBytes) {
                int more = (int) (EXPANSION * STEP / KIB);
                boolean got;
                try {
                    got = kib.tryAcquire(more, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    got = false;
                }
                if (!got) {
                    throw new BusyException(bodyBytes);
                }
                heldKib += more;
                coveredBodyBytes += STEP;
            }
        }

        @Override
        public void close() {
            kib.release(heldKib);
            heldKib = 0;
        }
    }
}
