package dev.needle.blocks.store.s3;

import dev.needle.blocks.store.reads.AheadFetching;
import dev.needle.blocks.store.reads.ByteRange;
import dev.needle.blocks.store.reads.RequestCounter;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * One object read through ranged GETs: each read fetches what it asks for, and a small read at
 * least {@link #READ_AHEAD} bytes, kept so that the next small reads (Arrow's message headers, a
 * sidecar's header then its bitset) cost no request. Opening is itself a GET of the object's last
 * {@link #READ_AHEAD} bytes (more for a file read whole, such as a sidecar), not a HEAD: its answer
 * gives the size and ETag like a HEAD, and the bytes that are read first anyway — a whole sidecar or
 * meta.json, data.arrow's footer. Every later
 * GET names that ETag, so an object replaced meanwhile fails the read instead of mixing two
 * versions. An object whose size the caller knows ({@link #openKnown}) is opened without a request:
 * its first GET names no ETag, learns it, and checks the size. Each request is told to a
 * {@link RequestCounter}; the ranges fetched after opening are kept in the store's {@link RangeCache}.
 *
 * <p>Ranges that reads will ask for can be {@linkplain #fetchAhead fetched ahead}, by GETs made at
 * once on the store's read pool: their bytes are held here, not only in the cache (which may evict
 * them), until the reads within a range reach its end, and released when the channel is closed.
 * GETs of a channel opened with a known size made at once before it knows the ETag name none, and
 * all must answer the same one, or the read fails. Not thread-safe apart from that, like a reader's
 * use of it: the counter is told of requests from the pool's threads.
 */
final class S3ReadChannel implements SeekableByteChannel, AheadFetching {

    /** The least a GET fetches: one round trip costs about as much as this many bytes on S3. */
    static final int READ_AHEAD = 64 << 10;
    /** How many times a GET whose body breaks off is made before the read fails. */
    static final int BODY_ATTEMPTS = 2;

    private final S3Client s3;
    private final String bucket;
    private final String key;
    /** The version every GET names; null until the first GET of a channel opened by {@link #openKnown}. */
    private volatile String etag;
    private final long size;
    private final RequestCounter counter;
    private final RangeCache cache;
    private long position;
    private byte[] window;
    private long windowStart;
    private boolean open = true;
    /** Ranges fetched ahead and not yet read to their ends, by their first byte. */
    private final TreeMap<Long, byte[]> held = new TreeMap<>();
    private long heldBytes;

    private S3ReadChannel(S3Client s3, String bucket, String key, String etag, long size, RequestCounter counter,
                          RangeCache cache, byte[] window, long windowStart) {
        this.cache = cache;
        this.s3 = s3;
        this.bucket = bucket;
        this.key = key;
        this.etag = etag;
        this.size = size;
        this.counter = counter;
        this.window = window;
        this.windowStart = windowStart;
    }

    /**
     * Opens an object with one GET of its last {@code tail} bytes (all of it when smaller; at least
     * {@link #READ_AHEAD}): a file read whole, when {@code tail} bounds its size, costs that one GET.
     * An empty object, which no range fits, is opened with a HEAD instead.
     *
     * @throws NoSuchFileException when there is no such object
     */
    static S3ReadChannel open(S3Client s3, String bucket, String key, int tail, RequestCounter counter,
                              RangeCache cache) throws IOException {
        if (tail < READ_AHEAD) {
            throw new IllegalArgumentException("an opening GET of " + tail + " bytes is less than " + READ_AHEAD);
        }
        String what = "GET s3://" + bucket + "/" + key + " bytes -" + tail;
        GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(key).range("bytes=-" + tail).build();
        for (int attempt = 1; ; attempt++) {
            String problem;
            ResponseInputStream<GetObjectResponse> in;
            try {
                in = s3.getObject(request);
            } catch (S3Exception e) {
                if (e.statusCode() == 404) {
                    counter.request(0);
                    throw new NoSuchFileException("s3://" + bucket + "/" + key);
                }
                if (e.statusCode() == 416) {
                    counter.request(0);
                    return openEmpty(s3, bucket, key, counter, cache);
                }
                throw new IOException(what + " failed: " + e.getMessage(), e);
            } catch (SdkException e) {
                throw new IOException(what + " failed: " + e.getMessage(), e);
            }
            try (in) {
                GetObjectResponse response = in.response();
                long[] range = contentRange(response.contentRange(), response.contentLength(), tail);
                int length = (int) (range[1] - range[0]);
                byte[] bytes = in.readNBytes(length);
                counter.request(bytes.length);
                if (bytes.length == length) {
                    return new S3ReadChannel(s3, bucket, key, response.eTag(), range[2], counter, cache, bytes,
                            range[0]);
                }
                problem = "returned " + bytes.length + " of " + length + " bytes";
            } catch (IOException | SdkException e) {
                problem = "its body broke off (" + (e.getMessage() != null ? e.getMessage() : e.getClass().getName()) + ")";
            }
            if (attempt == BODY_ATTEMPTS) {
                throw new IOException(what + " failed: " + problem + ", " + BODY_ATTEMPTS + " times");
            }
        }
    }

    /**
     * Opens an object the caller says has {@code size} bytes, with no request: the first read's GET
     * learns its ETag and fails when the object has another size (or is missing).
     */
    static S3ReadChannel openKnown(S3Client s3, String bucket, String key, long size, RequestCounter counter,
                                   RangeCache cache) {
        if (size < 0) {
            throw new IllegalArgumentException("size (" + size + ") must not be negative");
        }
        return new S3ReadChannel(s3, bucket, key, null, size, counter, cache, new byte[0], 0);
    }

    private static S3ReadChannel openEmpty(S3Client s3, String bucket, String key, RequestCounter counter,
                                           RangeCache cache) throws IOException {
        try {
            HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
            counter.request(0);
            return new S3ReadChannel(s3, bucket, key, head.eTag(), head.contentLength(), counter, cache, new byte[0], 0);
        } catch (SdkException e) {
            throw new IOException("HEAD s3://" + bucket + "/" + key + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * {first, end, size} of a ranged answer of at most {@code most} bytes from its Content-Range
     * ({@code bytes 100-199/200}); a whole-object answer (no Content-Range) is {0, length, length}.
     */
    private static long[] contentRange(String header, Long contentLength, int most) throws IOException {
        if (header == null) {
            long length = contentLength == null ? 0 : contentLength;
            return new long[] {0, length, length};
        }
        Matcher m = CONTENT_RANGE.matcher(header.trim());
        if (!m.matches()) {
            throw new IOException("unexpected Content-Range \"" + header + "\"");
        }
        long first = Long.parseLong(m.group(1));
        long last = Long.parseLong(m.group(2));
        long size = Long.parseLong(m.group(3));
        if (first > last || last >= size || last - first + 1 > most) {
            throw new IOException("unexpected Content-Range \"" + header + "\"");
        }
        return new long[] {first, last + 1, size};
    }

    private static final Pattern CONTENT_RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");

    @Override
    public int read(ByteBuffer dst) throws IOException {
        checkOpen();
        if (position >= size) {
            return -1;
        }
        int want = (int) Math.min(dst.remaining(), size - position);
        if (want == 0) {
            return 0;
        }
        Map.Entry<Long, byte[]> ahead = held.floorEntry(position);
        if (ahead != null && position + want <= ahead.getKey() + ahead.getValue().length) {
            dst.put(ahead.getValue(), (int) (position - ahead.getKey()), want);
            position += want;
            if (position == ahead.getKey() + ahead.getValue().length) {
                held.remove(ahead.getKey());
                heldBytes -= ahead.getValue().length;
            }
            return want;
        }
        if (position < windowStart || position >= windowStart + window.length) {
            if (want >= READ_AHEAD) {
                // Large reads (a column's range) go straight to the caller, not through the window.
                dst.put(get(position, want));
                position += want;
                return want;
            }
            window = get(position, (int) Math.min(READ_AHEAD, size - position));
            windowStart = position;
        }
        int offset = (int) (position - windowStart);
        int n = Math.min(want, window.length - offset);
        dst.put(window, offset, n);
        position += n;
        return n;
    }

    /**
     * Fetches {@code ranges} (each of at most {@link Integer#MAX_VALUE} bytes, inside the object) and
     * holds them for the reads to come: those the {@link RangeCache} holds at once, the others by
     * GETs made at the same time, one on this thread and the rest on {@code pool}. Returns when every
     * range is held; when a GET fails, once every other has ended, with the first failure, holding
     * what did arrive. A range held already, or inside the bytes the last read kept (the opening
     * GET's tail of a small object), is not fetched again.
     */
    @Override
    public void fetchAhead(List<ByteRange> ranges, ExecutorService pool) throws IOException {
        checkOpen();
        List<ByteRange> missing = new ArrayList<>();
        for (ByteRange range : ranges) {
            if (range.end() > size || range.length() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("range " + range + " does not fit a read of s3://" + bucket + "/"
                        + key + ", " + size + " bytes");
            }
            byte[] holding = held.get(range.start());
            if (holding != null && holding.length >= range.length()
                    || range.start() >= windowStart && range.end() <= windowStart + window.length) {
                continue;
            }
            byte[] cached = cache.get(key, etag, range.start(), (int) range.length());
            if (cached != null) {
                hold(range.start(), cached);
            } else {
                missing.add(range);
            }
        }
        if (missing.isEmpty()) {
            return;
        }
        List<Future<byte[]>> fetching = new ArrayList<>(missing.size() - 1);
        try {
            for (ByteRange range : missing.subList(1, missing.size())) {
                fetching.add(pool.submit(() -> get(range.start(), (int) range.length())));
            }
        } catch (RejectedExecutionException e) {
            fetching.forEach(f -> f.cancel(true));
            throw new IOException("GETs of s3://" + bucket + "/" + key + " could not be started: " + e.getMessage(), e);
        }
        IOException failure = null;
        try {
            hold(missing.get(0).start(), get(missing.get(0).start(), (int) missing.get(0).length()));
        } catch (IOException | RuntimeException e) {
            failure = asIo(e);
        }
        for (int i = 0; i < fetching.size(); i++) {
            try {
                hold(missing.get(i + 1).start(), fetching.get(i).get());
            } catch (ExecutionException e) {
                failure = failure != null ? failure : asIo(e.getCause());
            } catch (InterruptedException e) {
                fetching.forEach(f -> f.cancel(true));
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while fetching ranges of s3://" + bucket + "/" + key);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private IOException asIo(Throwable e) {
        return e instanceof IOException io ? io
                : new IOException("GET s3://" + bucket + "/" + key + " failed: " + e, e);
    }

    private void hold(long start, byte[] bytes) {
        byte[] old = held.put(start, bytes);
        heldBytes += bytes.length - (old == null ? 0 : old.length);
    }

    @Override
    public long heldBytes() {
        return heldBytes;
    }

    /**
     * Bytes {@code [from, from + length)}, exactly, or an IOException naming the object and the
     * range: from the {@link RangeCache} when it holds them, else by a GET whose bytes it then keeps. The SDK retries a request until its response's head arrives (5xx, throttling, timeouts);
     * a body that breaks off after that (a reset connection, fewer bytes than its Content-Length) is
     * asked for again here, up to {@link #BODY_ATTEMPTS} times in all.
     */
    private byte[] get(long from, int length) throws IOException {
        byte[] cached = cache.get(key, etag, from, length);
        if (cached != null) {
            return cached;
        }
        byte[] bytes = fetch(from, length);
        cache.put(key, etag, from, bytes);
        return bytes;
    }

    /** Bytes {@code [from, from + length)} from the store, as {@link #get} describes. */
    private byte[] fetch(long from, int length) throws IOException {
        String what = "GET s3://" + bucket + "/" + key + " bytes " + from + "+" + length;
        String named = etag;
        GetObjectRequest request = GetObjectRequest.builder().bucket(bucket).key(key).ifMatch(named)
                .range("bytes=" + from + "-" + (from + length - 1)).build();
        for (int attempt = 1; ; attempt++) {
            String problem;
            try (ResponseInputStream<GetObjectResponse> in = request(request, what)) {
                if (named == null) {
                    learnVersion(in.response(), what);
                }
                byte[] bytes = in.readNBytes(length);
                counter.request(bytes.length);
                if (bytes.length == length) {
                    return bytes;
                }
                problem = "returned " + bytes.length + " bytes";
            } catch (IOException | SdkException e) {
                if (e instanceof RequestFailed failed) {
                    throw failed;
                }
                problem = "its body broke off (" + (e.getMessage() != null ? e.getMessage() : e.getClass().getName()) + ")";
            }
            if (attempt == BODY_ATTEMPTS) {
                throw new IOException(what + " failed: " + problem + ", " + BODY_ATTEMPTS + " times");
            }
        }
    }

    /**
     * Takes the ETag of the first GET of a channel opened with a known size, after checking that size
     * against the answer's Content-Range: an object of another size is not the one the caller knows.
     * GETs made at once before the ETag was known must all answer the one the first took.
     */
    private synchronized void learnVersion(GetObjectResponse response, String what) throws RequestFailed {
        String header = response.contentRange();
        Matcher m = header == null ? null : CONTENT_RANGE.matcher(header.trim());
        if (m == null || !m.matches() || Long.parseLong(m.group(3)) != size) {
            counter.request(0);
            throw new RequestFailed(what + ": the object is not the one of " + size + " bytes that was expected"
                    + " (Content-Range " + header + ")", null);
        }
        if (etag != null && !etag.equals(response.eTag())) {
            counter.request(0);
            throw new RequestFailed(what + ": the object was replaced while it was read (ETag " + response.eTag()
                    + ", another GET had " + etag + ")", null);
        }
        etag = response.eTag();
    }

    /** The response's body, once the SDK has its head; a request that failed (after the SDK's retries) is a {@link RequestFailed}. */
    private ResponseInputStream<GetObjectResponse> request(GetObjectRequest request, String what) throws RequestFailed {
        try {
            return s3.getObject(request);
        } catch (SdkException e) {
            counter.request(0);
            throw new RequestFailed(what + " failed: " + e.getMessage(), e);
        }
    }

    /** A GET that failed before its body: the SDK has retried it already. */
    private static final class RequestFailed extends IOException {
        RequestFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public long position() throws IOException {
        checkOpen();
        return position;
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
        checkOpen();
        if (newPosition < 0) {
            throw new IllegalArgumentException("negative position " + newPosition);
        }
        position = newPosition;
        return this;
    }

    @Override
    public long size() throws IOException {
        checkOpen();
        return size;
    }

    @Override
    public SeekableByteChannel truncate(long newSize) {
        throw new NonWritableChannelException();
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public void close() {
        open = false;
        window = new byte[0];
        held.clear();
        heldBytes = 0;
    }

    private void checkOpen() throws ClosedChannelException {
        if (!open) {
            throw new ClosedChannelException();
        }
    }
}
