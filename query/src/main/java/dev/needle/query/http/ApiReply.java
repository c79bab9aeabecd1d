package dev.needle.query.http;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The reply of one query API request (an answer, an error, /ready or /metrics): built whole before
 * anything is written, so that a failure while building it can still become an error reply and
 * the callback is completed by exactly one write.
 *
 * @param status      the HTTP status
 * @param contentType the Content-Type, or null for an empty body
 * @param body        the body
 * @param headers     more response headers, by name
 */
public record ApiReply(int status, String contentType, byte[] body, Map<String, String> headers) {

    public static final String JSON = "application/json";
    public static final String PROTOBUF = "application/protobuf";
    public static final String TEXT = "text/plain; charset=utf-8";
    /** Long enough for dozens of block names, short enough for any proxy's header limit. */
    private static final int MAX_MESSAGE_HEADER = 4000;

    public ApiReply {
        // In the order added, so that a reply reads the same every time.
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    /** A reply without headers of its own. */
    public ApiReply(int status, String contentType, byte[] body) {
        this(status, contentType, body, Map.of());
    }

    /** This reply with one more header; the value must be printable ASCII, as HTTP/1.1 header values are. */
    public ApiReply withHeader(String name, String value) {
        for (int i = 0; i < value.length(); i++) {
            if (value.charAt(i) < 0x20 || value.charAt(i) > 0x7e) {
                throw new IllegalArgumentException("header " + name + ": not printable ASCII at " + i + ": " + value);
            }
        }
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(name, value);
        return new ApiReply(status, contentType, body, more);
    }

    /**
     * This reply with {@code X-Needle-Status} ({@code COMPLETE}, or {@code PARTIAL} when blocks could
     * not be read) and, when partial, {@code X-Needle-Message} naming them: for answers in a shape of
     * Tempo's that has no field for it.
     */
    public ApiReply withStatusHeaders(List<String> problems) {
        ApiReply out = withHeader(QueryApi.STATUS_HEADER, problems.isEmpty() ? "COMPLETE" : "PARTIAL");
        return problems.isEmpty() ? out : out.withHeader(QueryApi.MESSAGE_HEADER, headerText(JsonReplies.partialMessage(problems)));
    }

    /** {@code text} as a header value can hold it: printable ASCII (others become '?'), cut short. */
    static String headerText(String text) {
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_MESSAGE_HEADER));
        for (int i = 0; i < text.length() && out.length() < MAX_MESSAGE_HEADER; i++) {
            char c = text.charAt(i);
            out.append(c >= 0x20 && c <= 0x7e ? c : '?');
        }
        return out.toString();
    }

    /** A plain-text reply. */
    public static ApiReply text(int status, String text) {
        return new ApiReply(status, TEXT, text.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the reply and completes {@code callback}, once, through the write. */
    public void send(Response response, Callback callback) {
        response.setStatus(status);
        if (status == HttpStatus.METHOD_NOT_ALLOWED_405) {
            // Every handler answering with an ApiReply serves GET only.
            response.getHeaders().put(HttpHeader.ALLOW, "GET");
        }
        if (contentType != null) {
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
        }
        headers.forEach((name, value) -> response.getHeaders().put(name, value));
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
