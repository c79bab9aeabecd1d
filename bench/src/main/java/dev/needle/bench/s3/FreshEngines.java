package dev.needle.bench.s3;

import dev.needle.bench.server.SwappedEngines;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;

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
    private final SwappedEngines engines;

    /** Starts serving; the first {@link #renew} makes the first engine. */
    FreshEngines(S3Location location) throws IOException {
        this.location = location;
        this.engines = new SwappedEngines("the fresh engines");
    }

    /** The query API's address. */
    URI endpoint() {
        return engines.endpoint();
    }

    /** Closes the engine and store in use, and serves a new engine over a new store. */
    void renew() throws IOException {
        S3BlockStore store = S3BlockStore.openReadOnly(location);
        engines.serve(new QueryEngine(store, HeadSource.EMPTY, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(2, Runtime.getRuntime().availableProcessors())), store::close);
    }

    @Override
    public void close() throws IOException {
        engines.close();
    }
}
