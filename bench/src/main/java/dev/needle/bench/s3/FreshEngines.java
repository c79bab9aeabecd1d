package dev.needle.bench.s3;

import dev.needle.blocks.store.S3BlockStore;
import dev.needle.blocks.store.S3Location;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.QueryApi;
import dev.needle.query.http.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A query node whose every cache can be emptied between two lookups: the query API on a port of
 * 127.0.0.1, in front of an engine that {@link #renew} replaces with a new one over a newly opened
 * store. A new engine has an empty catalog (no index read, no listing) and an empty sidecar cache;
 * a new store an empty range cache and a new S3 client, with no connection open. This is what a query
 * node has just after it starts, minus the sidecar preload and warm-up lookup a {@code needle serve}
 * does before it says it is ready.
 */
final class FreshEngines implements Closeable {

    private final S3Location location;
    private final Server server = new Server();
    // Dynamic: its handler is replaced while it serves.
    private final Handler.Wrapper api = new Handler.Wrapper(true);
    private final URI endpoint;
    private S3BlockStore store;
    private QueryEngine engine;

    /** Starts serving; the first {@link #renew} makes the first engine. */
    FreshEngines(S3Location location) throws IOException {
        this.location = location;
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(api);
        try {
            server.start();
        } catch (Exception e) {
            throw new IOException("cannot start the query API of the fresh engines: " + e.getMessage(), e);
        }
        endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    /** The query API's address. */
    URI endpoint() {
        return endpoint;
    }

    /** Closes the engine and store in use, and serves a new engine over a new store. */
    void renew() throws IOException {
        closeEngine();
        store = S3BlockStore.openReadOnly(location);
        engine = new QueryEngine(store, HeadSource.EMPTY, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(2, Runtime.getRuntime().availableProcessors()));
        api.setHandler(new QueryApi(engine, new QueryMetrics(new PrometheusRegistry(), engine.sidecarCache())));
    }

    private void closeEngine() {
        if (engine != null) {
            engine.close();
            engine = null;
        }
        if (store != null) {
            store.close();
            store = null;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IOException("stopping the query API of the fresh engines: " + e.getMessage(), e);
        } finally {
            closeEngine();
        }
    }
}
