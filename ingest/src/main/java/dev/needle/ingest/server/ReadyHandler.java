package dev.needle.ingest.server;

import java.util.function.BooleanSupplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code /ready}: 200 once recovery is done and both ports listen, 503 before that and while
 * shutting down, so that a load balancer or an orchestrator sends traffic only to a server that
 * takes it.
 */
final class ReadyHandler extends Handler.Abstract.NonBlocking {

    private final BooleanSupplier ready;

    ReadyHandler(BooleanSupplier ready) {
        this.ready = ready;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!HttpMethod.GET.is(request.getMethod()) && !HttpMethod.HEAD.is(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            PlainText.send(response, callback, 405, request.getMethod() + " is not allowed: use GET");
        } else if (ready.getAsBoolean()) {
            PlainText.send(response, callback, 200, "ready");
        } else {
            PlainText.send(response, callback, 503, "not ready: recovering the write-ahead log, or shutting down");
        }
        return true;
    }
}
