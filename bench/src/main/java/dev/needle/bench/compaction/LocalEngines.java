package dev.needle.bench.compaction;

import dev.needle.bench.server.SwappedEngines;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;

/**
 * The query API on a port of 127.0.0.1 over a data directory, in front of an engine that
 * {@link #renew} replaces: warm, as {@code needle serve} makes it ready (index and sidecars read,
 * one lookup made), or cold, as it is just after it starts (no index read, no listing, no sidecar
 * cached). The operating system's page cache is left as it is.
 */
final class LocalEngines implements Closeable {

    private final Path data;
    private final SwappedEngines engines;

    /** Starts serving {@code data}; the first {@link #renew} makes the first engine. */
    LocalEngines(Path data) throws IOException {
        this.data = data;
        this.engines = new SwappedEngines("the engines over " + data);
    }

    /** The query API's address. */
    URI endpoint() {
        return engines.endpoint();
    }

    /** Closes the engine in use and serves a new one, made ready as a server makes it when {@code warm}. */
    void renew(boolean warm) throws IOException {
        QueryEngine engine = new QueryEngine(new FsBlockStore(data), HeadSource.EMPTY,
                QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES, Math.max(2, Runtime.getRuntime().availableProcessors()));
        if (warm) {
            engine.preloadSidecars();
            engine.warmUp();
        }
        engines.serve(engine);
    }

    @Override
    public void close() throws IOException {
        engines.close();
    }
}
