package dev.needle.bench.server;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** GET requests to a server's query API over one kept-alive HTTP/1.1 connection, as a dashboard makes them. */
public final class QueryClient {

    private static final Duration TIMEOUT = Duration.ofMinutes(2);

    /**
     * One reply, read whole.
     *
     * @param status       the HTTP status
     * @param body         the body's bytes
     * @param elapsedNanos from sending the request to the body's last byte
     */
    public record Reply(int status, byte[] body, long elapsedNanos) {

        /** The body as UTF-8 text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    private final URI base;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** A client of the query API at {@code base}, such as {@code http://127.0.0.1:3200}. */
    public QueryClient(URI base) {
        this.base = base;
    }

    /**
     * GETs {@code pathAndQuery} (already encoded, see {@link #encode}) and reads the whole reply.
     * An interrupt is an {@link InterruptedIOException}, with the thread's flag set again, so that a
     * timed lookup throws one kind of exception.
     */
    public Reply get(String pathAndQuery) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(pathAndQuery)).timeout(TIMEOUT).GET().build();
        long start = System.nanoTime();
        try {
            HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
            return new Reply(response.statusCode(), response.body(), System.nanoTime() - start);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            InterruptedIOException io = new InterruptedIOException("interrupted waiting for " + request.uri());
            io.initCause(e);
            throw io;
        }
    }

    /** {@code value} encoded for a query string. */
    public static String encode(String value) {
        return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
