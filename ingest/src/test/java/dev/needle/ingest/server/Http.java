package dev.needle.ingest.server;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.otlp.OtlpWireWriter;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

/** Real HTTP calls to a running server, with java.net.http, for the tests. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private static final JsonFactory JSON = new JsonFactory();

    /** What {@code GET /api/v2/traces/{id}?logs=true} answered: its status and the records it held. */
    record Trace(int status, List<SpanRecord> spans, List<LogRecord> logs) {
    }

    private Http() {
    }

    static URI uri(InetSocketAddress at, String path) {
        return URI.create("http://" + HttpPorts.hostPort(at) + path);
    }

    /** GET {@code path}; {@code headers} are name, value pairs. */
    static HttpResponse<byte[]> get(InetSocketAddress at, String path, String... headers) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(at, path)).timeout(Duration.ofSeconds(30)).GET();
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b.build());
    }

    /** POST {@code body} as {@code contentType} to {@code path}; {@code headers} are name, value pairs. */
    static HttpResponse<byte[]> post(InetSocketAddress at, String path, String contentType, byte[] body,
                                     String... headers) throws IOException {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(at, path)).timeout(Duration.ofSeconds(30))
                .header("Content-Type", contentType).POST(HttpRequest.BodyPublishers.ofByteArray(body));
        if (headers.length > 0) {
            b.headers(headers);
        }
        return send(b.build());
    }

    static String text(HttpResponse<byte[]> response) {
        return new String(response.body(), java.nio.charset.StandardCharsets.UTF_8);
    }

    private static HttpResponse<byte[]> send(HttpRequest request) throws IOException {
        try {
            return CLIENT.send(request, HttpResponse.BodyHandlers.ofByteArray());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** POSTs spans as OTLP JSON to {@code /v1/traces}; returns the HTTP status. */
    static int postSpans(InetSocketAddress otlp, List<SpanRecord> spans, String... headers) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        OtlpJson.encodeSpans(spans, body);
        return post(otlp, "/v1/traces", "application/json", body.toByteArray(), headers).statusCode();
    }

    /** Posts spans as one OTLP protobuf request; returns the status. */
    static int postSpansProtobuf(InetSocketAddress otlp, List<SpanRecord> spans) throws IOException {
        return post(otlp, "/v1/traces", "application/x-protobuf", OtlpWireWriter.encodeSpans(spans)).statusCode();
    }

    /**
     * {@code GET /api/v2/traces/{id}?logs=true} through the query API, its {@code trace} and
     * {@code logs} objects read back into records with the OTLP JSON reader.
     */
    static Trace trace(InetSocketAddress query, String traceHex, String... headers) throws IOException {
        HttpResponse<byte[]> response = get(query, "/api/v2/traces/" + traceHex + "?logs=true", headers);
        if (response.statusCode() == 404) {
            return new Trace(404, List.of(), List.of());
        }
        if (response.statusCode() != 200) {
            throw new IOException("GET " + traceHex + ": " + response.statusCode() + " " + text(response));
        }
        List<SpanRecord> spans = List.of();
        List<LogRecord> logs = List.of();
        try (JsonParser p = JSON.createParser(response.body())) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("not a JSON object: " + text(response));
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                p.nextToken();
                switch (field) {
                    case "trace" -> spans = OtlpJson.decodeSpans(new ByteArrayInputStream(copy(p))).records();
                    case "logs" -> logs = OtlpJson.decodeLogs(new ByteArrayInputStream(copy(p))).records();
                    case "status" -> {
                        if (!p.getText().equals("COMPLETE")) {
                            throw new IOException("the answer is not complete: " + text(response));
                        }
                    }
                    default -> p.skipChildren();
                }
            }
        }
        return new Trace(200, spans, logs);
    }

    private static byte[] copy(JsonParser p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.copyCurrentStructure(p);
        }
        return out.toByteArray();
    }
}
