package dev.needle.bench.compaction;

import dev.needle.blocks.store.FsBlockStore;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.QueryApi;
import dev.needle.query.http.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The query API on a port of 127.0.0.1 over a data directory, in front of an engine that
 * {@link #renew} replaces: warm, as {@code needle serve} makes it ready (index and sidecars read,
 * one lookup made), or cold, as it is just after it starts (no index read, no listing, no sidecar
 * cached). The operating system's page cache is left as it is.
 */
final class LocalEngines implements Closeable {

    private final Path data;
    private final Server server = new Server();
    // Dynamic: its handler is replaced while it serves.
    private final Handler.Wrapper api = new Handler.Wrapper(true);
    private final URI endpoint;
    private QueryEngine engine;

    /** Starts serving {@code data}; the first {@link #renew} makes the first engine. */
    LocalEngines(Path data) throws IOException {
        this.data = data;
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(api);
        try {
            server.start();
        } catch (Exception e) {
            throw new IOException("cannot start the query API over " + data + ": " + e.getMessage(), e);
        }
        endpoint = URI.create("http://127.0.0.1:" + connector.getLocalPort());
    }

    /** The query API's address. */
    URI endpoint() {
        return endpoint;
    }

    /** Closes the engine in use and serves a new one, made ready as a server makes it when {@code warm}. */
    void renew(boolean warm) throws IOException {
        if (engine != null) {
            engine.close();
        }
        engine = new QueryEngine(new FsBlockStore(data), HeadSource.EMPTY, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(2, Runtime.getRuntime().availableProcessors()));
        if (warm) {
            engine.preloadSidecars();
            engine.warmUp();
        }
        api.setHandler(new QueryApi(engine, new QueryMetrics(new PrometheusRegistry(), engine.sidecarCache())));
    }

    @Override
    public void close() throws IOException {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IOException("stopping the query API over " + data + ": " + e.getMessage(), e);
        } finally {
            if (engine != null) {
                engine.close();
            }
        }
    }
}
