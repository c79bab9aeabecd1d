package dev.needle.corpus.otlp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * A tiny real HTTP server (the JDK's) that answers OTLP requests from a script: for replies no
 * needle server gives on demand, such as a 429 that clears after one retry.
 */
final class ScriptedServer implements AutoCloseable {

    /** One scripted reply; {@code retryAfter} null for none. */
    record Reply(int status, String contentType, byte[] body, String retryAfter) {

        static Reply status(int status, String retryAfter) {
            return new Reply(status, "application/json", "{\"code\":14,\"message\":\"scripted\"}"
                    .getBytes(StandardCharsets.UTF_8), retryAfter);
        }

        static Reply json(int status, String body) {
            return new Reply(status, "application/json", body.getBytes(StandardCharsets.UTF_8), null);
        }
    }

    /** One request as received. */
    record Received(long nanoTime, String path, String contentType, String contentEncoding, String tenant, int bodyBytes) {
    }

    private final HttpServer server;
    private final Deque<Reply> script = new ArrayDeque<>();
    private final List<Received> received = new ArrayList<>();
    private final Reply otherwise;

    /** A server that answers with {@code script} in order, then with {@code otherwise} to every request. */
    ScriptedServer(List<Reply> script, Reply otherwise) throws IOException {
        this.script.addAll(script);
        this.otherwise = otherwise;
        this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", this::handle);
        server.start();
    }

    private void handle(HttpExchange exchange) throws IOException {
        long now = System.nanoTime();
        int bodyBytes;
        try (InputStream in = exchange.getRequestBody()) {
            bodyBytes = in.readAllBytes().length;
        }
        Reply reply;
        synchronized (this) {
            received.add(new Received(now, exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("Content-Type"),
                    exchange.getRequestHeaders().getFirst("Content-Encoding"),
                    exchange.getRequestHeaders().getFirst("X-Scope-OrgID"), bodyBytes));
            reply = script.isEmpty() ? otherwise : script.poll();
        }
        exchange.getResponseHeaders().set("Content-Type", reply.contentType());
        if (reply.retryAfter() != null) {
            exchange.getResponseHeaders().set("Retry-After", reply.retryAfter());
        }
        exchange.sendResponseHeaders(reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(reply.body());
        }
    }

    URI baseUrl() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    synchronized List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
