package dev.needle.ingest.http;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The reply to one OTLP export request: an export response, or an error as a {@code google.rpc.Status},
 * in the request's encoding. Built whole before anything is written, so that a failure while
 * building it can still become an error reply and the callback is completed by exactly one write.
 *
 * @param status   the HTTP status
 * @param encoding the body's encoding, which gives the Content-Type
 * @param body     the body
 * @param header   one more header (Allow, Retry-After), or null
 */
record ExportReply(int status, Encoding encoding, byte[] body, HttpField header) {

    /** gRPC codes for the {@code google.rpc.Status} of an error reply, as gRPC maps HTTP statuses. */
    private static final int INVALID_ARGUMENT = 3;
    private static final int RESOURCE_EXHAUSTED = 8;
    private static final int UNIMPLEMENTED = 12;
    private static final int INTERNAL = 13;
    private static final int UNAVAILABLE = 14;

    /** A 200 with {@code body}. */
    static ExportReply ok(Encoding encoding, byte[] body) {
        return new ExportReply(200, encoding, body, null);
    }

    /** An error reply: a {@code google.rpc.Status} with {@code message} and the gRPC code that fits {@code status}. */
    static ExportReply error(int status, Encoding encoding, String message) {
        return new ExportReply(status, encoding, encoding.status(rpcCode(status), message), null);
    }

    /** This reply with one more header. */
    ExportReply with(HttpHeader name, String value) {
        return new ExportReply(status, encoding, body, new HttpField(name, value));
    }

    private static int rpcCode(int status) {
        return switch (status) {
            case 400, 415 -> INVALID_ARGUMENT;
            case 404, 405 -> UNIMPLEMENTED;
            case 413, 429 -> RESOURCE_EXHAUSTED;
            case 503 -> UNAVAILABLE;
            default -> INTERNAL;
        };
    }

    /** Writes the reply and completes {@code callback}, once, through the write. */
    void send(Response response, Callback callback) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, encoding.mediaType());
        if (header != null) {
            response.getHeaders().put(header);
        }
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
