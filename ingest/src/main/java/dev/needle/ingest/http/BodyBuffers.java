package dev.needle.ingest.http;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Arrays that protobuf request bodies are read into, given back after each request and taken by the
 * next: a body is read into an array that exists instead of a new one each time (a request of 1,000
 * spans is about 230 KB, young-generation garbage that every collection pays for). The arrays kept
 * between requests hold at most {@code maxKeptBytes} in all; one taken past that is left to the
 * collector when given back.
 */
final class BodyBuffers {

    /** What a body of unknown length is first read into. */
    private static final int FIRST_BYTES = 64 << 10;
    /** The largest array Java allows, with the margin some VMs need for the header. */
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    /** Last in, first out: the array given back last is the one most likely still in a cache. */
    private final ConcurrentLinkedDeque<byte[]> kept = new ConcurrentLinkedDeque<>();
    private final AtomicLong keptBytes = new AtomicLong();
    private final long maxKeptBytes;

    /** Buffers that keep at most {@code maxKeptBytes} between requests. */
    BodyBuffers(long maxKeptBytes) {
        this.maxKeptBytes = maxKeptBytes;
    }

    /**
     * A body read whole, in the first {@code length} bytes of {@code array}.
     *
     * @param array  an array of the buffers, to be given back once nothing reads it any more
     * @param length how many of its bytes are the body
     */
    record Body(byte[] array, int length) {
    }

    /**
     * Reads {@code in} to its end into an array of these buffers, one of at least {@code expected}
     * bytes when that is the body's announced length (≥ 0), so that a body that keeps its word is
     * read without growing the array. When the read fails, the array is given back.
     */
    Body read(InputStream in, long expected) throws IOException {
        byte[] array = take(expected >= 0 && expected <= MAX_ARRAY ? (int) expected : FIRST_BYTES);
        try {
            int n = 0;
            while (true) {
                if (n == array.length) {
                    // Full: one more byte says whether the body ends here, before the array grows for it.
                    int next = in.read();
                    if (next < 0) {
                        break;
                    }
                    if (n == MAX_ARRAY) {
                        throw new IOException("the request body is larger than the largest array, " + MAX_ARRAY + " bytes");
                    }
                    array = Arrays.copyOf(array, (int) Math.min(MAX_ARRAY, 2L * n + 1));
                    array[n++] = (byte) next;
                }
                int r = in.read(array, n, array.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            return new Body(array, n);
        } catch (IOException | RuntimeException e) {
            give(array);
            throw e;
        }
    }

    /** A kept array of at least {@code bytes}, or a new one; a kept array too small is dropped. */
    private byte[] take(int bytes) {
        byte[] array = kept.pollFirst();
        if (array != null) {
            keptBytes.addAndGet(-array.length);
            if (array.length >= bytes) {
                return array;
            }
        }
        return new byte[bytes];
    }

    /** Gives {@code array} back for another body; it must not be read or written by the caller after this. */
    void give(byte[] array) {
        if (keptBytes.addAndGet(array.length) <= maxKeptBytes) {
            kept.offerFirst(array);
        } else {
            keptBytes.addAndGet(-array.length);
        }
    }
}
