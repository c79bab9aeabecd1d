package dev.needle.bench.server;

import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The query API on a port of 127.0.0.1 in front of an engine that {@link #serve} replaces between
 * two lookups, so that a benchmark can ask a node with empty caches over HTTP without starting a
 * process per lookup.
 */
public final class SwappedEngines implements Closeable {

    private final String what;
    private final Server server = new Server();
    // Dynamic: its handler is replaced while it serves.
    private final Handler.Wrapper api = new Handler.Wrapper(true);
    private final URI endpoint;
    private QueryEngine engine;
    private Runnable closeStore;

    /** Starts serving; {@code what} names it in errors. The first {@link #serve} gives it an engine. */
    public SwappedEngines(String what) throws IOException {
        this.what = what;
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(api);
        try {
            server.start();
        } catch (Exception e) {
            throw new IOException("cannot start the query API of " + what + ": " + e.getMessage(), e);
        }
        endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    /** The query API's address. */
    public URI endpoint() {
        return endpoint;
    }

    /** Closes the engine in use (and what it was served with) and serves {@code next}. */
    public void serve(QueryEngine next) {
        serve(next, () -> { });
    }

    /** Closes the engine in use (and what it was served with) and serves {@code next}; {@code closeStore} runs when it is replaced. */
    public void serve(QueryEngine next, Runnable closeStore) {
        closeEngine();
        engine = next;
        this.closeStore = closeStore;
        api.setHandler(new QueryApi(next, new QueryMetrics(new PrometheusRegistry(), next)));
    }

    private void closeEngine() {
        if (engine != null) {
            engine.close();
            closeStore.run();
            engine = null;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IOException("stopping the query API of " + what + ": " + e.getMessage(), e);
        } finally {
            closeEngine();
        }
    }
}
