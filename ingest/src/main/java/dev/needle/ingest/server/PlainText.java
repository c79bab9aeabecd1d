package dev.needle.ingest.server;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** The server's own short plain-text replies ({@code /ready}, the recovery gate). */
final class PlainText {

    private PlainText() {
    }

    /** Writes {@code text} and a newline with {@code status}; the write completes {@code callback}. */
    static void send(Response response, Callback callback, int status, String text) {
        byte[] body = (text + "\n").getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain; charset=utf-8");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }
}
