package dev.needle.ingest.http;

import java.io.Closeable;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request body as one stream, inflated when it is gzip, that fails as soon as either the bytes
 * received or the bytes decoded pass the limit; after a failed read it says which side failed.
 *
 * <p>Counting on the inflated side is what stops a gzip bomb while it inflates: at most one read
 * past the limit is ever decompressed. Counting on the received side as well bounds a gzip body
 * that sends much and inflates to little (empty members, long header fields).
 */
final class RequestBody implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(RequestBody.class);
    private static final int INFLATE_BUFFER = 8192;

    private final InputStream source;
    private final Limited wire;
    private final boolean gzip;
    private final long limit;
    private final DecodeBudget.Reservation heap;
    private Limited decoded;

    /**
     * The body read from {@code source} (not read yet), gzip-encoded when {@code gzip}; the heap to
     * decode it is reserved from {@code heap} as the decoded bytes arrive.
     */
    RequestBody(InputStream source, boolean gzip, long limit, DecodeBudget.Reservation heap) {
        this.source = source;
        this.gzip = gzip;
        this.limit = limit;
        this.heap = heap;
        this.wire = new Limited(source, limit, gzip ? null : heap);
    }

    /** The decoded body; for gzip this reads the gzip header, so it can fail like a read. */
    InputStream open() throws IOException {
        if (decoded == null) {
            decoded = gzip ? new Limited(new GZIPInputStream(wire, INFLATE_BUFFER), limit, heap) : wire;
        }
        return decoded;
    }

    /** Whether a read failed because no heap could be reserved for more of the body in time. */
    boolean busy() {
        return wire.busy || decoded != null && decoded.busy;
    }

    /** Bytes received so far, before decompression. */
    long wireBytes() {
        return wire.count;
    }

    /** Whether a read failed because the body passed the limit, received or decoded. */
    boolean tooLarge() {
        return wire.exceeded || decoded != null && decoded.exceeded;
    }

    /** What passed the limit, for the reply; only after {@link #tooLarge()}. */
    String tooLargeMessage() {
        String what = !gzip ? "the request body"
                : wire.exceeded ? "the compressed request body" : "the request body, decompressed,";
        return what + " is larger than the limit of " + limit + " bytes";
    }

    /** Whether a read failed in the connection itself (the client went away, bad chunking) rather than in the bytes. */
    boolean unreadable() {
        return wire.failed;
    }

    /**
     * Reads and drops what the client still sends of a refused body, at most {@code max} bytes.
     * Clients that write the whole body before they read the reply (most do, without
     * {@code Expect: 100-continue}) would otherwise find the connection reset under their writes,
     * never read the 413, and send the same request again.
     */
    void discardRest(long max) {
        byte[] sink = new byte[INFLATE_BUFFER];
        try {
            for (long left = max; left > 0; ) {
                int n = source.read(sink, 0, (int) Math.min(sink.length, left));
                if (n < 0) {
                    return;
                }
                left -= n;
            }
        } catch (IOException e) {
            // The client went away or the body is malformed: there is nobody left to read a reply.
            LOG.debug("discarding the rest of a refused body failed", e);
        }
    }

    /**
     * Releases the body: frees the inflater's native memory and Jetty's buffers. When the body was
     * not read to its end, Jetty fails the rest of it and does not reuse the connection.
     */
    @Override
    public void close() {
        try {
            (decoded != null ? decoded : wire).close();
        } catch (IOException e) {
            // The reply is decided by now; the failure is about a body nobody will read.
            LOG.debug("closing a request body failed", e);
        }
    }

    /**
     * A stream that counts what passes through it, fails once the count is over its limit, and
     * when given a reservation covers what it passed with heap first.
     */
    private static final class Limited extends FilterInputStream {

        private final long limit;
        private final DecodeBudget.Reservation heap;
        private final byte[] one = new byte[1];
        private long count;
        private boolean exceeded;
        private boolean failed;
        private boolean busy;
        private boolean eof;

        Limited(InputStream in, long limit, DecodeBudget.Reservation heap) {
            super(in);
            this.limit = limit;
            this.heap = heap;
        }

        @Override
        public int read() throws IOException {
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (exceeded) {
                throw tooLarge();
            }
            int n;
            try {
                n = in.read(b, off, len);
            } catch (IOException | RuntimeException e) {
                failed = true;
                throw e;
            }
            if (n < 0) {
                eof = true;
            } else {
                count += n;
                if (count > limit) {
                    exceeded = true;
                    throw tooLarge();
                }
                if (heap != null) {
                    try {
                        heap.cover(count);
                    } catch (DecodeBudget.BusyException e) {
                        busy = true;
                        throw e;
                    }
                }
            }
            return n;
        }

        /**
         * At least 1 until the end: GZIPInputStream looks for a further gzip member only while
         * available() is positive, so a body of several members would otherwise be cut short, and
         * acknowledged, wherever a network chunk happens to end between two members.
         */
        @Override
        public int available() throws IOException {
            return eof ? 0 : Math.max(1, in.available());
        }

        /** Skips by reading, so that skipped bytes count too (protobuf skips some unknown fields). */
        @Override
        public long skip(long n) throws IOException {
            if (n <= 0) {
                return 0;
            }
            int r = read(new byte[(int) Math.min(n, INFLATE_BUFFER)], 0, (int) Math.min(n, INFLATE_BUFFER));
            return Math.max(r, 0);
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        private IOException tooLarge() {
            return new IOException("the request body is larger than " + limit + " bytes");
        }
    }
}
