package dev.needle.ingest.server;

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Stands in front of a handler that needs recovered state (the OTLP receiver, the query API): the
 * ports listen, and {@code /ready} answers, while the write-ahead log is replayed; until
 * {@link #setHandler} installs the real handler, requests get 503 with a Retry-After, which OTLP
 * clients retry.
 */
final class RecoveryGate extends Handler.Wrapper {

    RecoveryGate() {
        // Dynamic: the handler is set while the server runs, and is started as it is set.
        super(true);
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Handler next = getHandler();
        if (next != null) {
            return next.handle(request, response, callback);
        }
        response.getHeaders().put(HttpHeader.RETRY_AFTER, 1);
        PlainText.send(response, callback, 503, "needle is recovering its write-ahead log; retry shortly");
        return true;
    }
}
