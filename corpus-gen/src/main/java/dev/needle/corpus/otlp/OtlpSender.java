package dev.needle.corpus.otlp;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.corpus.otlp.BatchQueue.Batch;
import dev.needle.corpus.otlp.OtlpSignal.PartialSuccess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;
import java.util.zip.GZIPOutputStream;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.eclipse.jetty.client.ByteBufferRequestContent;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;

/**
 * Sends batches of spans or log records to an OTLP/HTTP server from several threads at an
 * optional target rate, retrying as OTLP/HTTP says, and reports what became of every record:
 * needle's ingest load generator.
 *
 * <pre>
 * reply                                        the batch's records
 * 2xx                                          accepted, less partial_success's rejected_spans /
 *                                              rejected_log_records (read from protobuf or JSON replies)
 * 429, 502, 503, 504, or no reply (I/O error)  retried after Retry-After (seconds or an HTTP date) when
 *                                              given, else after exponential backoff with jitter; failed
 *                                              once maxAttempts attempts are spent
 * any other 4xx                                rejected; the first such reply's message is kept
 * anything else (500, 501, 3xx, ...)           failed, not retried: OTLP retries only the four above
 * </pre>
 *
 * <p>After {@value #STOP_AFTER_FAILED_BATCHES} batches in a row have failed, no more are taken:
 * a server that is down or broken ends the run instead of each remaining batch failing slowly.
 */
public final class OtlpSender {

    /*
     * The workers share the source of requests, a pacer and the counters. A worker that encodes
     * JSON or gzip reuses its own buffer, which stays untouched while its request is in flight
     * (Request.send blocks); plain protobuf is posted from the array its encoder made, and requests
     * encoded ahead from the bytes they were encoded into. Both go
     * through the same loop, so that they are paced, retried and counted alike. The pacer meters
     * first attempts only: retries are already slowed by their backoff, and counting them would let
     * a struggling server lower the offered rate below the target.
     *
     * The HTTP client is Jetty's: the sender shares the server's cores in `needle bench ingest`,
     * and posting the same requests took a third of the CPU the JDK's java.net.http client took
     * (bench/results/ingest-2026-12-02-sender-*.md), which copies each body into buffers of its own
     * and hands every request between several threads.
     */

    /** Batches that fail in a row before the run stops. */
    static final int STOP_AFTER_FAILED_BATCHES = 10;
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Long enough for a server that waits for an fsync under load; a request that takes longer is retried. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);
    private static final long INITIAL_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_BACKOFF_NANOS = TimeUnit.SECONDS.toNanos(5);
    /** A longer Retry-After is cut to this: a load run should not sit idle for minutes on one header. */
    private static final long MAX_RETRY_AFTER_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final String TENANT_HEADER = "X-Scope-OrgID";

    private final SendOptions options;

    /** A sender with {@code options}; a dry-run sender opens no connection. */
    public OtlpSender(SendOptions options) {
        this.options = Objects.requireNonNull(options, "options");
    }

    /** A started HTTP/1.1 client with up to one connection for each worker. */
    private HttpClient startClient() {
        HttpClient client = new HttpClient();
        client.setConnectTimeout(CONNECT_TIMEOUT.toMillis());
        client.setMaxConnectionsPerDestination(options.concurrency());
        client.setFollowRedirects(false);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("the HTTP client did not start: " + e, e);
        }
        return client;
    }

    /**
     * Sends every batch of spans to {@code <base>/v1/traces}, {@code concurrency} at a time, and
     * returns once each is accepted, rejected or failed. {@code recordsDone} is told the size of
     * every finished batch, one call at a time.
     *
     * @throws InterruptedException when the calling thread is interrupted; the workers are stopped first
     */
    public SendReport sendSpans(Iterator<? extends List<SpanRecord>> batches, LongConsumer recordsDone)
            throws InterruptedException {
        return new Run(OtlpSignal.SPANS, new Encoding<>(OtlpSignal.SPANS, batches), recordsDone).run();
    }

    /** Like {@link #sendSpans}, for log records, to {@code <base>/v1/logs}. */
    public SendReport sendLogs(Iterator<? extends List<LogRecord>> batches, LongConsumer recordsDone)
            throws InterruptedException {
        return new Run(OtlpSignal.LOGS, new Encoding<>(OtlpSignal.LOGS, batches), recordsDone).run();
    }

    /**
     * Encodes (and gzips, when the options say so) every batch of spans as one request, on
     * {@code concurrency} threads, and holds them for {@link #send}: a send of them then does
     * nothing but post.
     */
    public EncodedRequests encodeSpans(Iterator<? extends List<SpanRecord>> batches) throws InterruptedException {
        return encodeAhead(Signal.SPANS, OtlpSignal.SPANS, batches);
    }

    /** Like {@link #encodeSpans}, for log records. */
    public EncodedRequests encodeLogs(Iterator<? extends List<LogRecord>> batches) throws InterruptedException {
        return encodeAhead(Signal.LOGS, OtlpSignal.LOGS, batches);
    }

    /**
     * Sends requests encoded ahead, as {@link #sendSpans} sends batches: to their signal's endpoint,
     * {@code concurrency} at a time, paced, retried and counted the same way.
     *
     * @throws IllegalArgumentException when they were encoded or gzipped otherwise than these options say
     * @throws InterruptedException     when the calling thread is interrupted; the workers are stopped first
     */
    public SendReport send(EncodedRequests requests, LongConsumer recordsDone) throws InterruptedException {
        if (requests.encoding() != options.encoding() || requests.gzip() != options.gzip()) {
            throw new IllegalArgumentException("the requests were encoded as " + label(requests.encoding(), requests.gzip())
                    + " but this sender sends " + label(options.encoding(), options.gzip()));
        }
        OtlpSignal<?> signal = requests.signal() == Signal.SPANS ? OtlpSignal.SPANS : OtlpSignal.LOGS;
        return new Run(signal, new Encoded(requests.bodies()), recordsDone).run();
    }

    private static String label(OtlpEncoding encoding, boolean gzip) {
        return encoding.label() + (gzip ? "+gzip" : "");
    }

    private <T> EncodedRequests encodeAhead(Signal name, OtlpSignal<T> signal, Iterator<? extends List<T>> batches)
            throws InterruptedException {
        BatchQueue<T> queue = new BatchQueue<>(batches);
        Map<Long, EncodedRequests.Body> byIndex = new ConcurrentSkipListMap<>();
        try {
            Workers.run("otlp-encode-" + signal.name(), options.concurrency(), queue::stop, () -> {
                ByteSink scratch = new ByteSink();
                for (Batch<T> batch = queue.take(); batch != null; batch = queue.take()) {
                    Payload body = encode(signal, batch.records(), scratch);
                    // The scratch buffer is reused for the next batch; an array of the encoder's own is kept as it is.
                    byte[] bytes = body.bytes() == scratch.array() ? Arrays.copyOf(body.bytes(), body.length()) : body.bytes();
                    byIndex.put(batch.index(), new EncodedRequests.Body(bytes, body.records()));
                }
            });
        } catch (IOException e) {
            throw encodingFailed(signal, e);
        }
        return new EncodedRequests(name, options.encoding(), options.gzip(), List.copyOf(byIndex.values()));
    }

    /**
     * {@code records} as one request body in the options' encoding, gzipped when they say so: in
     * {@code scratch}, which is reset first, or, as protobuf with nothing to gzip, in the array
     * the encoder made (exactly its size, so that it is not copied again).
     */
    private <T> Payload encode(OtlpSignal<T> signal, List<T> records, ByteSink scratch) throws IOException {
        if (options.encoding() == OtlpEncoding.PROTOBUF && !options.gzip()) {
            byte[] body = signal.protobuf(records);
            return new Payload(body, body.length, records.size());
        }
        scratch.reset();
        if (!options.gzip()) {
            signal.encode(options.encoding(), records, scratch);
        } else {
            try (GZIPOutputStream gzip = new GZIPOutputStream(scratch, 1 << 16)) {
                signal.encode(options.encoding(), records, gzip);
            }
        }
        return new Payload(scratch.array(), scratch.size(), records.size());
    }

    private static UncheckedIOException encodingFailed(OtlpSignal<?> signal, IOException e) {
        // Only encoding throws it, into memory: a bug or a record the encoder cannot write.
        return new UncheckedIOException("encoding a batch of " + signal.name() + " failed: " + e.getMessage(), e);
    }

    /** A server's reply to one attempt: its status, the two headers the sender reads, and its whole body. */
    private record Reply(int status, String contentTypeOrNull, String retryAfterOrNull, byte[] body) {
    }

    /** One request body to post: the first {@code length} bytes of {@code bytes}, holding {@code records} records. */
    private record Payload(byte[] bytes, int length, int records) {
    }

    /** Where the workers of one send take their requests from, one at a time, until it hands out null. */
    private interface Requests {

        /** The next request, encoded now (maybe into {@code scratch}) if it was not ahead; null when there are no more. */
        Payload next(ByteSink scratch) throws IOException;

        /** Hands out no more requests; those already taken are still finished by their workers. */
        void stop();
    }

    /** Requests encoded from batches of records as they are taken. */
    private final class Encoding<T> implements Requests {
        private final OtlpSignal<T> signal;
        private final BatchQueue<T> queue;

        Encoding(OtlpSignal<T> signal, Iterator<? extends List<T>> batches) {
            this.signal = signal;
            this.queue = new BatchQueue<>(batches);
        }

        @Override
        public Payload next(ByteSink scratch) throws IOException {
            Batch<T> batch = queue.take();
            return batch == null ? null : encode(signal, batch.records(), scratch);
        }

        @Override
        public void stop() {
            queue.stop();
        }
    }

    /** Requests encoded ahead, handed out in order. */
    private static final class Encoded implements Requests {
        private final List<EncodedRequests.Body> bodies;
        private final AtomicInteger next = new AtomicInteger();
        private volatile boolean stopped;

        Encoded(List<EncodedRequests.Body> bodies) {
            this.bodies = bodies;
        }

        @Override
        public Payload next(ByteSink scratch) {
            int i = next.getAndIncrement();
            if (stopped || i >= bodies.size()) {
                return null;
            }
            EncodedRequests.Body body = bodies.get(i);
            return new Payload(body.bytes(), body.bytes().length, body.records());
        }

        @Override
        public void stop() {
            stopped = true;
        }
    }

    /** One send: the shared source of requests, pacer and counters. */
    private final class Run {
        private final OtlpSignal<?> signal;
        private final Requests source;
        private final LongConsumer recordsDone;
        private final Object recordsDoneLock = new Object();
        private final URI endpoint;
        private final Pacer pacer = new Pacer(options.targetRecordsPerSecond());
        private final LongAdder requests = new LongAdder();
        private final LongAdder retried = new LongAdder();
        private final LongAdder recordsSent = new LongAdder();
        private final LongAdder accepted = new LongAdder();
        private final LongAdder rejected = new LongAdder();
        private final LongAdder failed = new LongAdder();
        private final LongAdder bytesSent = new LongAdder();
        /** Per attempt that got a reply, in nanoseconds; auto-resizing, so no highest value to guess. */
        private final Recorder latency = new Recorder(3);
        private final Map<String, LongAdder> statuses = new ConcurrentHashMap<>();
        private final AtomicReference<String> firstError = new AtomicReference<>();
        private final AtomicReference<String> stoppedBecause = new AtomicReference<>();
        private final AtomicInteger failedInARow = new AtomicInteger();
        /** Started for this send and stopped at its end; null in a dry run, which makes no connection. */
        private final HttpClient client;

        Run(OtlpSignal<?> signal, Requests source, LongConsumer recordsDone) {
            this.signal = signal;
            this.source = source;
            this.recordsDone = Objects.requireNonNull(recordsDone, "recordsDone");
            this.endpoint = options.endpoint(signal.path());
            this.client = options.dryRun() ? null : startClient();
        }

        SendReport run() throws InterruptedException {
            long started = System.nanoTime();
            try {
                Workers.run("otlp-send-" + signal.name(), options.concurrency(), source::stop, this::work);
            } catch (IOException e) {
                throw encodingFailed(signal, e);
            } finally {
                if (client != null) {
                    try {
                        client.stop();
                    } catch (Exception e) {
                        firstError.compareAndSet(null, "stopping the HTTP client failed: " + e);
                    }
                }
            }
            double elapsed = (System.nanoTime() - started) / 1e9;
            Histogram h = latency.getIntervalHistogram();
            Map<String, Long> byStatus = new TreeMap<>();
            statuses.forEach((status, count) -> byStatus.put(status, count.sum()));
            return new SendReport(signal.name(), options.dryRun(), requests.sum(), retried.sum(), recordsSent.sum(),
                    accepted.sum(), rejected.sum(), failed.sum(), bytesSent.sum(), elapsed,
                    millis(h, h.getValueAtPercentile(50)), millis(h, h.getValueAtPercentile(99)), millis(h, h.getMaxValue()),
                    byStatus, firstError.get(), stoppedBecause.get());
        }

        private static double millis(Histogram h, long nanos) {
            return h.getTotalCount() == 0 ? 0 : nanos / 1e6;
        }

        /** One worker: take (encoding it if need be), pace, send, until the source hands out null. */
        private void work() throws IOException, InterruptedException {
            ByteSink scratch = new ByteSink();
            for (Payload payload = source.next(scratch); payload != null; payload = source.next(scratch)) {
                int n = payload.records();
                pacer.acquire(n);
                recordsSent.add(n);
                if (options.dryRun()) {
                    bytesSent.add(payload.length());
                } else {
                    post(payload);
                }
                // One call at a time, so that a progress bar need not be thread-safe.
                synchronized (recordsDoneLock) {
                    recordsDone.accept(n);
                }
            }
        }

        /** Posts one request until it is accepted, rejected or failed; counts every attempt. */
        private void post(Payload body) throws InterruptedException {
            int records = body.records();
            for (int attempt = 1; ; attempt++) {
                requests.increment();
                bytesSent.add(body.length());
                if (attempt > 1) {
                    retried.increment();
                }
                long started = System.nanoTime();
                Reply reply;
                try {
                    reply = exchange(body);
                } catch (IOException | TimeoutException e) {
                    count(e.getClass().getSimpleName());
                    String problem = "POST " + endpoint + " got no reply: " + describe(e);
                    if (attempt < options.maxAttempts()) {
                        TimeUnit.NANOSECONDS.sleep(backoffNanos(attempt));
                        continue;
                    }
                    giveUp(records, attempt, problem);
                    return;
                }
                latency.recordValue(System.nanoTime() - started);
                int status = reply.status();
                count(Integer.toString(status));
                if (status / 100 == 2) {
                    accept(reply, records);
                    return;
                }
                String problem = "HTTP " + status + " from " + endpoint + ": " + OtlpSignal.errorMessage(
                        replyEncoding(reply), reply.body());
                if (retryable(status)) {
                    if (attempt < options.maxAttempts()) {
                        TimeUnit.NANOSECONDS.sleep(retryDelayNanos(attempt, reply.retryAfterOrNull()));
                        continue;
                    }
                    giveUp(records, attempt, problem);
                } else if (status / 100 == 4) {
                    // The server read the request and refused its records: sending them again cannot help.
                    rejected.add(records);
                    firstError.compareAndSet(null, problem);
                    failedInARow.set(0);
                } else {
                    failed(records, problem + " (not retryable)");
                }
                return;
            }
        }

        /**
         * Sends one attempt and reads the whole reply.
         *
         * @throws IOException      when the connection failed (such as a {@code ConnectException})
         * @throws TimeoutException when no whole reply came within {@link #REQUEST_TIMEOUT}
         */
        private Reply exchange(Payload body) throws IOException, TimeoutException, InterruptedException {
            Request request = client.newRequest(endpoint)
                    .method(HttpMethod.POST)
                    .timeout(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .headers(h -> {
                        if (options.gzip()) {
                            h.put(HttpHeader.CONTENT_ENCODING, "gzip");
                        }
                        if (options.tenantOrNull() != null) {
                            h.put(TENANT_HEADER, options.tenantOrNull());
                        }
                    })
                    // The bytes as they are: wrapped, not copied.
                    .body(new ByteBufferRequestContent(options.encoding().mediaType(),
                            ByteBuffer.wrap(body.bytes(), 0, body.length())));
            ContentResponse response;
            try {
                response = request.send();
            } catch (ExecutionException e) {
                // The client's failure wraps what went wrong on the connection: that is what is counted and told.
                Throwable cause = e.getCause();
                if (cause instanceof IOException io) {
                    throw io;
                }
                if (cause instanceof TimeoutException timeout) {
                    throw timeout;
                }
                throw new IOException(cause);
            }
            return new Reply(response.getStatus(), response.getHeaders().get(HttpHeader.CONTENT_TYPE),
                    response.getHeaders().get(HttpHeader.RETRY_AFTER), response.getContent());
        }

        private void accept(Reply reply, int records) {
            failedInARow.set(0);
            PartialSuccess partial;
            try {
                partial = signal.partialSuccess(replyEncoding(reply), reply.body());
            } catch (IOException | RuntimeException e) {
                // The server said 2xx: the records are in. Only the count of rejections is unknown.
                accepted.add(records);
                firstError.compareAndSet(null, "HTTP " + reply.status() + " from " + endpoint
                        + " with a reply that is not an export response (counted as all accepted): " + describe(e));
                return;
            }
            long refused = Math.max(0, Math.min(records, partial.rejected()));
            accepted.add(records - refused);
            if (refused > 0) {
                rejected.add(refused);
                firstError.compareAndSet(null, "partial success from " + endpoint + ": "
                        + (partial.message().isEmpty() ? refused + " of " + records + " rejected" : partial.message()));
            }
        }

        private void giveUp(int records, int attempts, String lastProblem) {
            failed(records, "gave up after " + attempts + (attempts == 1 ? " attempt" : " attempts")
                    + "; the last: " + lastProblem);
        }

        private void failed(int records, String problem) {
            failed.add(records);
            firstError.compareAndSet(null, problem);
            if (failedInARow.incrementAndGet() >= STOP_AFTER_FAILED_BATCHES
                    && stoppedBecause.compareAndSet(null, STOP_AFTER_FAILED_BATCHES
                            + " batches in a row failed; the last: " + problem)) {
                source.stop();
            }
        }

        private void count(String status) {
            statuses.computeIfAbsent(status, s -> new LongAdder()).increment();
        }

        /** The encoding the reply says it is in; the request's when it names neither. */
        private OtlpEncoding replyEncoding(Reply reply) {
            OtlpEncoding e = OtlpEncoding.ofContentType(reply.contentTypeOrNull());
            return e != null ? e : options.encoding();
        }
    }

    /** The statuses OTLP/HTTP says a client retries: the server is overloaded or briefly unreachable. */
    static boolean retryable(int status) {
        return status == 429 || status == 502 || status == 503 || status == 504;
    }

    /** Retry-After when the reply has a usable one (cut to a minute, plus up to 10% jitter), else the backoff. */
    private static long retryDelayNanos(int attempt, String retryAfterOrNull) {
        long retryAfter = retryAfterNanos(retryAfterOrNull);
        if (retryAfter < 0) {
            return backoffNanos(attempt);
        }
        long delay = Math.min(retryAfter, MAX_RETRY_AFTER_NANOS);
        // Workers refused together would otherwise all come back in the same instant.
        return delay + ThreadLocalRandom.current().nextLong(delay / 10 + 1);
    }

    /**
     * The wait a Retry-After value asks for: delay-seconds or an HTTP date (RFC 9110), in
     * nanoseconds; -1 when absent or unreadable, so that the backoff applies.
     */
    static long retryAfterNanos(String value) {
        if (value == null || value.isBlank()) {
            return -1;
        }
        String v = value.trim();
        if (v.chars().allMatch(Character::isDigit)) {
            // More digits than a long holds is "a very long time": the cap applies.
            return v.length() > 9 ? Long.MAX_VALUE : TimeUnit.SECONDS.toNanos(Long.parseLong(v));
        }
        try {
            Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME));
            return Math.max(0, until.toNanos());
        } catch (DateTimeParseException | ArithmeticException e) {
            return -1;
        }
    }

    /** Exponential backoff with jitter: attempt n waits between half and all of min(5 s, 100 ms · 2^(n−1)). */
    static long backoffNanos(int attempt) {
        long ceiling = Math.min(MAX_BACKOFF_NANOS, INITIAL_BACKOFF_NANOS << Math.min(attempt - 1, 20));
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }

    private static String describe(Exception e) {
        return e.getMessage() != null ? e.getClass().getSimpleName() + ": " + e.getMessage() : e.getClass().getSimpleName();
    }
}
