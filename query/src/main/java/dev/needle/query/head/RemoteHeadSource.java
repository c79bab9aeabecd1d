package dev.needle.query.head;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.HeadSource;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The unpublished records of ingest nodes, asked over HTTP ({@link HeadEndpoint} on each node's query
 * port): what a query node's engine merges with the blocks, so that a record is queryable from any
 * query node once an ingest node has acknowledged it.
 *
 * <p>Every node is asked at once, and the snapshot is whole when each has answered, before the engine
 * lists blocks, as {@link HeadSource}'s contract wants: each part names the block it is being
 * published as, and the engine drops the parts whose blocks it lists. A node that cannot be reached,
 * answers an error, answers more than {@code maxBytes}, or has not answered whole within
 * {@code timeout} becomes a part that names it and the problem: the answer is partial, never late by
 * more than the timeout, and never wrong about what it does hold.
 */
public final class RemoteHeadSource implements HeadSource, AutoCloseable {

    /** How long a query waits for every ingest node's answer. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
    /** The largest answer read from one ingest node: about a full head at the default cut size. */
    public static final long DEFAULT_MAX_BYTES = 128L << 20;
    /** How much of an error answer's text a problem quotes. */
    private static final int MAX_ERROR_TEXT = 300;

    private final List<URI> ingesters;
    private final Duration timeout;
    private final long maxBytes;
    private final ExecutorService pool;
    private final HttpClient client;

    /**
     * Asks {@code ingesters} (each an ingest node's query port, such as {@code http://10.0.0.5:3200}),
     * waiting up to {@code timeout} for all of them and reading at most {@code maxBytes} from each.
     */
    public RemoteHeadSource(List<URI> ingesters, Duration timeout, long maxBytes) {
        if (ingesters.isEmpty()) {
            throw new IllegalArgumentException("no ingest node to ask");
        }
        if (timeout.isNegative() || timeout.isZero() || maxBytes < 1) {
            throw new IllegalArgumentException("timeout and maxBytes must be positive, got " + timeout + " and " + maxBytes);
        }
        this.ingesters = ingesters.stream().map(RemoteHeadSource::base).toList();
        this.timeout = timeout;
        this.maxBytes = maxBytes;
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "needle-remote-head");
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout)
                .executor(pool).build();
    }

    /** {@code uri} without a trailing slash, checked to be an http(s) URL with a host. */
    private static URI base(URI uri) {
        String scheme = uri.getScheme();
        if (!("http".equals(scheme) || "https".equals(scheme)) || uri.getHost() == null || uri.getQuery() != null) {
            throw new IllegalArgumentException("an ingest node is an http:// URL of its query port, such as "
                    + "http://127.0.0.1:3200, got " + uri);
        }
        String text = uri.toString();
        return URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
    }

    @Override
    public List<Part<SpanRecord>> spanParts(TenantId tenant) {
        return ask(tenant, "spans", null, HeadPartsFormat.SPANS);
    }

    @Override
    public List<Part<LogRecord>> logParts(TenantId tenant) {
        return ask(tenant, "logs", null, HeadPartsFormat.LOGS);
    }

    @Override
    public List<Part<SpanRecord>> traceSpanParts(TenantId tenant, Bytes traceId) {
        return ask(tenant, "spans", traceId, HeadPartsFormat.SPANS);
    }

    @Override
    public List<Part<LogRecord>> traceLogParts(TenantId tenant, Bytes traceId) {
        return ask(tenant, "logs", traceId, HeadPartsFormat.LOGS);
    }

    /** Every node's parts, or a part naming the node and its problem; returns within the timeout. */
    private <R> List<Part<R>> ask(TenantId tenant, String signal, Bytes traceId, HeadPartsFormat<R> format) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Future<List<Part<R>>>> answers = new ArrayList<>(ingesters.size());
        for (URI ingester : ingesters) {
            URI uri = URI.create(ingester + HeadEndpoint.PATH + signal + (traceId == null ? "" : "?trace=" + traceId.hex()));
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(timeout).header("X-Scope-OrgID", tenant.value())
                    .header("Accept", HeadPartsFormat.MEDIA_TYPE).GET().build();
            answers.add(pool.submit(() -> read(request, format)));
        }
        List<Part<R>> parts = new ArrayList<>();
        for (int i = 0; i < answers.size(); i++) {
            String node = "ingest node " + ingesters.get(i);
            Future<List<Part<R>>> answer = answers.get(i);
            String late = node + " did not answer within " + timeout.toMillis() + " ms; its unpublished records are missing";
            try {
                parts.addAll(answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            } catch (TimeoutException e) {
                // Interrupting the reader aborts its request and closes the connection.
                answer.cancel(true);
                parts.add(Part.unreadable(late));
            } catch (ExecutionException e) {
                if (e.getCause() instanceof HttpTimeoutException) {
                    parts.add(Part.unreadable(late));
                    continue;
                }
                parts.add(Part.unreadable(node + " could not be asked for its unpublished records: "
                        + describe(e.getCause())));
            } catch (InterruptedException e) {
                answer.cancel(true);
                Thread.currentThread().interrupt();
                parts.add(Part.unreadable(node + ": interrupted while asking for its unpublished records"));
            }
        }
        return parts;
    }

    private <R> List<Part<R>> read(HttpRequest request, HeadPartsFormat<R> format) throws IOException, InterruptedException {
        HttpResponse<InputStream> response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream body = new Bounded(response.body(), maxBytes)) {
            if (response.statusCode() != 200) {
                String text = new String(body.readNBytes(MAX_ERROR_TEXT), StandardCharsets.UTF_8).strip();
                throw new IOException("HTTP " + response.statusCode() + (text.isEmpty() ? "" : " " + text));
            }
            return format.read(body);
        }
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        if (e instanceof ConnectException) {
            // The JDK's client says nothing more when the port is closed.
            return "cannot connect" + (message == null || message.isBlank() ? " (connection refused)" : ": " + message);
        }
        return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
    }

    /** Stops the threads that read answers; asking afterwards fails. */
    @Override
    public void close() {
        pool.shutdownNow();
    }

    /** A stream that fails once more than its bound has been read. */
    private static final class Bounded extends FilterInputStream {
        private final long max;
        private long read;

        Bounded(InputStream in, long max) {
            super(in);
            this.max = max;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            count(b < 0 ? 0 : 1);
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            count(Math.max(0, n));
            return n;
        }

        private void count(int n) throws IOException {
            read += n;
            if (read > max) {
                throw new IOException("its answer is larger than " + max + " bytes");
            }
        }
    }
}
