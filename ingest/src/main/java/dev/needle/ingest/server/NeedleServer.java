package dev.needle.ingest.server;

import dev.needle.blocks.cli.Units;
import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.ingest.IngestPipeline;
import dev.needle.ingest.PublishBackoff;
import dev.needle.ingest.http.DecodeBudget;
import dev.needle.ingest.http.OtlpReceiver;
import dev.needle.ingest.http.ReceiverMetrics;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.QueryLimits;
import dev.needle.query.head.HeadEndpoint;
import dev.needle.query.head.RemoteHeadSource;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The needle server: ingest (OTLP/HTTP receiver, write-ahead log, head, publisher) and the query
 * API over one data directory, {@code <data>/<tenant>/<signal>/<block>/} for blocks and
 * {@code <data>/wal/} for the log.
 *
 * <p>Two ports on one Jetty server ({@link HttpPorts}, wired before anything is opened; this class
 * opens, recovers, runs and stops what they serve):
 *
 * <pre>
 * OTLP port   /v1/traces, /v1/logs   {@link OtlpReceiver}
 * query port  /ready                 200 once recovery is done, both ports listen and the query path is
 *                                    prepared; 503 before and while stopping
 *             /metrics               Prometheus text: receiver, query and ingest metrics
 *             /internal/head/…       the unpublished records, for query nodes ({@link HeadEndpoint})
 *             anything else          {@link QueryApi}
 * </pre>
 *
 * <p>Its {@link Role} may leave parts out: an ingest node serves no query API (a 404 says where it
 * is), a query node has no OTLP port, no write-ahead log and no lock on a data directory, opens the
 * store read-only, and merges the heads of the ingest nodes it is given ({@link RemoteHeadSource}).
 *
 * <p>{@link #start} binds both ports first and then recovers: while the log is replayed,
 * {@code /ready} says 503 and so do the receiver and the query API (with a Retry-After), instead of
 * refusing connections. Then both serve while the query engine reads sidecars into its cache and
 * runs one lookup to warm the read path, and {@code /ready} says 200 once that is done, so that a
 * load balancer's first query does not pay for it (about half a second on the seed corpus). {@link #close} stops accepting, lets requests in flight finish, publishes
 * the head, checkpoints and closes the log.
 */
public final class NeedleServer implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(NeedleServer.class);
    /** How long a request waits for room to decode before it is answered 503. */
    private static final long DECODE_WAIT_MILLIS = 10_000;
    /** Blocks retention deletes within this long are not compacted: a pass and a retention run never race. */
    private static final Duration RETENTION_MARGIN = Duration.ofMinutes(5);
    /** How often the watchdog looks whether ingest stopped for good. */
    private static final Duration WATCH_EVERY = Duration.ofMillis(500);
    /** Where, under the data directory, blocks bound for a bucket are written before they are uploaded. */
    static final String S3_STAGING_DIR = "s3-staging";

    private final ServerConfig config;
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final HttpPorts ports;
    private IngestMetrics ingestMetrics;
    /** Runs retention every minute. */
    private final ScheduledExecutorService background = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "needle-background");
        t.setDaemon(true);
        return t;
    });
    /** Looks every {@link #WATCH_EVERY} whether ingest stopped for good; alone, so that no long task delays it. */
    private final ScheduledExecutorService watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "needle-watchdog");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean ready;
    /** Told once when ingest stops for good; the process's command exits on it. */
    private volatile Consumer<Throwable> onIngestFailure = failure -> { };
    private MemoryPlan memory;
    private QueryLimits queryLimits;
    private DataDirectoryLock lock;
    private BlockStore store;
    private IngestPipeline pipeline;
    private RemoteHeadSource remoteHeads;
    private QueryEngine engine;
    private Compaction compaction;
    private boolean closed;

    private NeedleServer(ServerConfig config) {
        this.config = config;
        ProcessMetrics.register(registry);
        this.ports = new HttpPorts(config, this::notReady, registry);
    }

    /**
     * Locks the data directory, opens the store (removing stale {@code .tmp-*} directories; checking that
     * a bucket answers), binds both ports, recovers the write-ahead log into the head, and starts
     * serving; returns once {@code /ready} says 200.
     */
    public static NeedleServer start(ServerConfig config) throws IOException {
        NeedleServer s = new NeedleServer(config);
        try {
            long heap = Runtime.getRuntime().maxMemory();
            s.memory = config.cluster().role().ingests()
                    ? MemoryPlan.of(heap, config.limits().maxHeadBytes(),
                            config.cluster().role().queries() ? QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES : 0, config.listen().maxRequestBytes())
                    : MemoryPlan.ofQueryNode(heap, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES);
            s.queryLimits = s.queryLimits();
            if (config.cluster().role().ingests()) {
                // A query node takes no lock: it only reads, beside the one process that writes.
                s.lock = DataDirectoryLock.acquire(config.storage().data().toAbsolutePath().normalize(),
                        "or give this server another --data");
            }
            // Before the ports: a bucket that is missing, refused or unreachable stops the start in one line.
            s.openStore();
            s.listen();
            s.recover();
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void listen() throws IOException {
        ports.listen();
        if (ports.otlpAddress() != null) {
            LOG.info("listening for OTLP on {}", HttpPorts.hostPort(ports.otlpAddress()));
        }
        LOG.info(switch (config.cluster().role()) {
            case ALL -> "query API on {}";
            case INGEST -> "the head for query nodes, /ready and /metrics on {}";
            case QUERY -> "query API (a query node: no write-ahead log, the store read-only) on {}";
        }, HttpPorts.hostPort(ports.queryAddress()));
    }

    private void openStore() throws IOException {
        Path data = config.storage().data().toAbsolutePath().normalize();
        if (!config.cluster().role().ingests()) {
            // A query node writes nothing: no staging, no sweep, no removal of a writer's .tmp-* directories.
            LOG.info("reading {} (read-only)", config.storage().s3() == null ? data : config.storage().s3());
            store = config.storage().s3() == null ? FsBlockStore.readOnly(data) : S3BlockStore.openReadOnly(config.storage().s3());
            return;
        }
        if (config.storage().s3() == null) {
            LOG.info("opening {}", data);
            FsBlockStore local = new FsBlockStore(data);
            for (Path stale : local.removedAtStartup()) {
                LOG.info("removed {}, left behind by a block write or delete that did not finish", stale);
            }
            store = local;
        } else {
            LOG.info("opening {}, with the write-ahead log in {}", config.storage().s3(), data);
            store = S3BlockStore.open(config.storage().s3(), data.resolve(S3_STAGING_DIR));
        }
    }

    private void recover() throws IOException {
        if (!config.cluster().role().ingests()) {
            serveQueriesOnly();
            return;
        }
        Path data = config.storage().data().toAbsolutePath().normalize();
        long started = System.nanoTime();
        ingestMetrics = new IngestMetrics(registry);
        // An ingest node may share its store with others, so it names its blocks; an all node is its store's one writer.
        String writerId = config.cluster().role() == Role.INGEST ? WriterId.of(data) : "";
        pipeline = IngestPipeline.open(store, data.resolve(FsBlockStore.WAL_DIR), config.limits(), PublishBackoff.DEFAULT,
                ingestMetrics::fsynced, writerId, BlockWriter.Options.DEFAULT.withCodec(config.storage().effectiveCompression()));
        long rows = pipeline.head().rows();
        LOG.info("recovered in {} ms: the head holds {} {} ({} bytes) from the write-ahead log",
                (System.nanoTime() - started) / 1_000_000, rows, Units.plural(rows, "record"), pipeline.head().heapBytes());
        ingestMetrics.watch(pipeline);
        watchdog.scheduleWithFixedDelay(this::watchIngest, WATCH_EVERY.toMillis(), WATCH_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info(memory.describe());
        ports.otlp.setHandler(new OtlpReceiver(pipeline, new ReceiverMetrics(registry), config.listen().maxRequestBytes(),
                new DecodeBudget(memory.decodeBytes(), DECODE_WAIT_MILLIS)));
        ports.head.setHandler(new HeadEndpoint(pipeline.head()));
        if (config.cluster().role().queries()) {
            serveQueries(pipeline.head());
        } else {
            ports.refuseQueries();
        }
        if (config.compaction().every() != null) {
            startCompaction(writerId);
        }
        if (config.storage().retention() != null) {
            background.scheduleWithFixedDelay(this::applyRetention, 0, 1, TimeUnit.MINUTES);
            LOG.info("retention: blocks older than {} are deleted, checked every minute",
                    Units.formatDuration(config.storage().retention()));
        }
        ready = true;
    }

    /** A query node's start: the store is open read-only; the ingest nodes' heads are asked over HTTP. */
    private void serveQueriesOnly() {
        HeadSource heads = HeadSource.EMPTY;
        if (config.cluster().ingesters().isEmpty()) {
            LOG.info("no --ingester given: answers hold published blocks only");
        } else {
            remoteHeads = new RemoteHeadSource(config.cluster().ingesters(), RemoteHeadSource.DEFAULT_TIMEOUT,
                    RemoteHeadSource.DEFAULT_MAX_BYTES);
            heads = remoteHeads;
            LOG.info("unpublished records from {}", config.cluster().ingesters());
        }
        LOG.info(memory.describe());
        serveQueries(heads);
        ready = true;
    }

    /**
     * What queries may use: the plan's share for all of them, the configured share of one (half the plan's
     * unless told), and the configured time.
     */
    private QueryLimits queryLimits() {
        long one = config.queries().maxBytes() != null ? config.queries().maxBytes() : memory.queryDefaultBytes();
        if (one > memory.queryBytes()) {
            throw new IllegalArgumentException("--max-query-bytes " + Units.formatBytes(one) + " is more than the "
                    + Units.formatBytes(memory.queryBytes()) + " all queries may hold in this heap; lower it or give the"
                    + " server more heap (NEEDLE_HEAP=2g ./needle serve)");
        }
        return new QueryLimits(one, memory.queryBytes(), config.queries().timeout());
    }

    private void serveQueries(HeadSource head) {
        engine = new QueryEngine(store, head, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(2, Runtime.getRuntime().availableProcessors()), queryLimits);
        ports.query.setHandler(new QueryApi(engine, new QueryMetrics(registry, engine)));
        prepareQueries();
    }

    private void prepareQueries() {
        long started = System.nanoTime();
        try {
            int held = engine.preloadSidecars();
            engine.warmUp();
            LOG.info("query: {} {} held ({} MiB in the cache, {} MiB from the indexes) and the read path warmed up"
                    + " in {} ms", held, Units.plural(held, "sidecar"), engine.sidecarCache().bytes() >> 20, engine.indexBytes() >> 20,
                    (System.nanoTime() - started) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            // Only the first queries are slower: each reads the sidecars it needs.
            LOG.warn("query: preparing for queries failed ({}); queries read the sidecars they need themselves",
                    e.toString());
        }
    }

    /**
     * Runs the compactor in the background: merges of this node's blocks (all blocks, when it is its
     * store's one writer) into blocks of up to {@code --block-rows} rows, written as ingest writes them;
     * never a block retention deletes within the next few minutes.
     */
    private void startCompaction(String writerId) {
        Predicate<BlockRef> ours = pipeline.compactable(config.cluster().role() == Role.ALL);
        Duration retention = config.storage().retention();
        Predicate<BlockRef> eligible = retention == null ? ours : ours.and(block -> block.name().endUnixNano()
                > System.currentTimeMillis() * 1_000_000L - retention.toNanos() + RETENTION_MARGIN.toNanos());
        Compactor compactor = new Compactor(store, new Compactor.Options(config.limits().blockRows(),
                BlockWriter.Options.DEFAULT.withCodec(config.storage().effectiveCompression()), config.compaction().grace(), writerId,
                eligible));
        compaction = new Compaction(compactor, config.compaction().every(), config.compaction().grace(), pipeline::busy, registry);
        LOG.info("compaction: small blocks are merged into blocks of up to {} rows, checked every {}",
                config.limits().blockRows(), Units.formatDuration(config.compaction().every()));
    }

    private void applyRetention() {
        long cutoff = System.currentTimeMillis() * 1_000_000L - config.storage().retention().toNanos();
        try {
            List<BlockRef> deleted = pipeline.applyRetention(cutoff);
            for (BlockRef block : deleted) {
                LOG.info("retention: deleted {}", block);
            }
        } catch (IOException | RuntimeException e) {
            // The next run tries again; a failed delete leaves the block whole or invisible, never half.
            LOG.error("retention: deleting old blocks failed", e);
        }
    }

    /** Whether recovery is done, both ports listen, the query path is prepared and ingest works: what {@code /ready} answers. */
    public boolean ready() {
        return notReady() == null;
    }

    /** Why {@code /ready} says 503, or null when it says 200. */
    private String notReady() {
        if (!ready) {
            return "recovering the write-ahead log, or shutting down";
        }
        Throwable failure = pipeline == null ? null : pipeline.failure();
        return failure == null ? null : "ingest stopped: " + failure;
    }

    /**
     * Calls {@code handler} once, within {@link #WATCH_EVERY}, if ingest stops for good (the write-ahead
     * log refuses every entry, or the publisher stopped: see {@link IngestPipeline#failure}). Until then
     * and after, {@code /ready} says 503. {@code needle serve} exits on it, so that a supervisor restarts
     * the process and recovery replays the log, rather than leave a live process that acknowledges nothing.
     */
    public void onIngestFailure(Consumer<Throwable> handler) {
        this.onIngestFailure = handler;
    }

    private void watchIngest() {
        Throwable failure = pipeline.failure();
        if (failure != null) {
            LOG.error("ingest stopped for good: {}", failure.toString());
            watchdog.shutdown();
            onIngestFailure.accept(failure);
        }
    }

    /** The address the OTLP port is bound to, with the actual port when 0 was asked for; null on a query node. */
    public InetSocketAddress otlpAddress() {
        return ports.otlpAddress();
    }

    /** The address the query port is bound to, with the actual port when 0 was asked for. */
    public InetSocketAddress queryAddress() {
        return ports.queryAddress();
    }

    /** The ingest pipeline: its head and counters; null on a query node. */
    public IngestPipeline pipeline() {
        return pipeline;
    }

    /** The block store: the data directory, or the bucket of {@link ServerConfig.Storage#s3}. */
    public BlockStore store() {
        return store;
    }

    /** The role's process. */
    public Role role() {
        return config.cluster().role();
    }

    /**
     * Stops accepting, waits (up to 10 seconds) for requests in flight, publishes the head,
     * checkpoints and closes the write-ahead log. Idempotent.
     */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        ready = false;
        // A server refused at start (heap, lock, ports) never served: it only says why, not that it stops.
        boolean served = ports.running();
        if (served) {
            LOG.info("shutting down: no new requests; finishing those in flight");
        }
        try {
            ports.stop();
        } catch (Exception e) {
            LOG.error("stopping the HTTP server failed; publishing the head all the same", e);
        }
        background.shutdownNow();
        watchdog.shutdownNow();
        if (compaction != null) {
            compaction.close();
        }
        try {
            if (pipeline != null) {
                long rows = pipeline.head().rows();
                LOG.info("shutting down: publishing the head ({} {})", rows, Units.plural(rows, "record"));
                pipeline.close();
                LOG.info("shutting down: head published, write-ahead log checkpointed and closed");
            }
        } finally {
            if (engine != null) {
                engine.close();
            }
            if (remoteHeads != null) {
                remoteHeads.close();
            }
            if (store instanceof S3BlockStore s3) {
                s3.close();
            }
            if (lock != null) {
                lock.close();
            }
        }
        if (served) {
            LOG.info("stopped");
        }
    }
}
