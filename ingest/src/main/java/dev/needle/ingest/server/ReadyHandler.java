package dev.needle.ingest.server;

import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code /ready}: 200 once recovery is done and both ports listen, 503 before that, while shutting
 * down and once ingest has stopped for good, so that a load balancer or an orchestrator sends traffic
 * only to a server that takes it. The 503's body says why.
 */
final class ReadyHandler extends Handler.Abstract.NonBlocking {

    /** Why the server is not ready, or null when it is. */
    private final Supplier<String> notReady;

    ReadyHandler(Supplier<String> notReady) {
        this.notReady = notReady;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        if (!HttpMethod.GET.is(request.getMethod()) && !HttpMethod.HEAD.is(request.getMethod())) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, HEAD");
            PlainText.send(response, callback, 405, request.getMethod() + " is not allowed: use GET");
        } else {
            String why = notReady.get();
            PlainText.send(response, callback, why == null ? 200 : 503, why == null ? "ready" : "not ready: " + why);
        }
        return true;
    }
}
