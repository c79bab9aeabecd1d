package dev.needle.ingest.server;

import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.S3BlockStore;
import dev.needle.blocks.store.S3Location;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.IngestPipeline;
import dev.needle.ingest.http.DecodeBudget;
import dev.needle.ingest.http.OtlpReceiver;
import dev.needle.ingest.http.ReceiverMetrics;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.MetricsHandler;
import dev.needle.query.http.QueryApi;
import dev.needle.query.http.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The needle server: ingest (OTLP/HTTP receiver, write-ahead log, head, publisher) and the query
 * API over one data directory, {@code <data>/<tenant>/<signal>/<block>/} for blocks and
 * {@code <data>/wal/} for the log.
 *
 * <p>One Jetty {@link Server} with two connectors, named {@value #OTLP} and {@value #QUERY}. Each
 * port's handlers sit in a {@link ContextHandler} whose only virtual host is {@code @name}, which
 * Jetty matches against the connector a request arrived on; so an OTLP path on the query port, or
 * a query path on the OTLP port, is a 404. One server rather than two means one thread pool, one
 * lifecycle, and one graceful stop that drains both ports together.
 *
 * <pre>
 * OTLP port   /v1/traces, /v1/logs   {@link OtlpReceiver}
 * query port  /ready                 200 once recovery is done, both ports listen and the query path is
 *                                    prepared; 503 before and while stopping
 *             /metrics               Prometheus text: receiver, query and ingest metrics
 *             anything else          {@link QueryApi}
 * </pre>
 *
 * <p>{@link #start} binds both ports first and then recovers: while the log is replayed,
 * {@code /ready} says 503 and so do the receiver and the query API (with a Retry-After), instead of
 * refusing connections. Then both serve while the query engine reads sidecars into its cache and
 * runs one lookup to warm the read path, and {@code /ready} says 200 once that is done, so that a
 * load balancer's first query does not pay for it (about half a second on the seed corpus). {@link #close} stops accepting, lets requests in flight finish, publishes
 * the head, checkpoints and closes the log.
 */
public final class NeedleServer implements Closeable {

    /** The OTLP connector's name, and its context's virtual host {@code @otlp}. */
    static final String OTLP = "otlp";
    /** The query connector's name, and its context's virtual host {@code @query}. */
    static final String QUERY = "query";

    private static final Logger LOG = LoggerFactory.getLogger(NeedleServer.class);
    /** How long a request waits for room to decode before it is answered 503. */
    private static final long DECODE_WAIT_MILLIS = 10_000;
    /** How long a graceful stop waits for requests in flight. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    /** Where, under the data directory, blocks bound for a bucket are written before they are uploaded. */
    static final String S3_STAGING_DIR = "s3-staging";

    /**
     * How to run the server.
     *
     * @param data            the data directory; created if missing
     * @param bind            the address both ports bind, such as {@code 127.0.0.1} or {@code 0.0.0.0}
     * @param otlpPort        the OTLP/HTTP port; 0 picks a free one
     * @param queryPort       the query API port; 0 picks a free one
     * @param limits          when the head is cut, and the bounds of the head and the log
     * @param maxRequestBytes the largest OTLP request body, after decompression
     * @param retention       blocks whose every record is older than this are deleted; null keeps everything
     * @param s3              the bucket that holds the blocks; null keeps them in the data directory, which
     *                        then holds only the write-ahead log and the blocks being uploaded
     */
    public record Config(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits,
                         long maxRequestBytes, Duration retention, S3Location s3) {

        /** The defaults the README lists: {@code data} in the working directory, 127.0.0.1, ports 4318 and 3200. */
        public static final Config DEFAULTS = new Config(Path.of("data"), "127.0.0.1", 4318, 3200,
                IngestLimits.DEFAULTS, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, null);

        public Config {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(bind, "bind");
            Objects.requireNonNull(limits, "limits");
            if (otlpPort < 0 || otlpPort > 65535 || queryPort < 0 || queryPort > 65535) {
                throw new IllegalArgumentException("ports are 0 to 65535, got otlp " + otlpPort + " and query " + queryPort);
            }
            if (otlpPort != 0 && otlpPort == queryPort) {
                throw new IllegalArgumentException("the OTLP and query ports must differ, both are " + otlpPort);
            }
            if (maxRequestBytes < 1) {
                throw new IllegalArgumentException("maxRequestBytes must be positive, got " + maxRequestBytes);
            }
            // Bounded so that the cutoff in nanoseconds cannot overflow (a long holds ~292 years).
            if (retention != null && (retention.isNegative() || retention.isZero()
                    || retention.compareTo(Duration.ofDays(100 * 365)) > 0)) {
                throw new IllegalArgumentException("retention must be positive and at most 100 years, got " + retention);
            }
        }

        /** A config with the blocks in the data directory. */
        public Config(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                      Duration retention) {
            this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, null);
        }

        /** This config with another data directory. */
        public Config withData(Path data) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3);
        }

        /** This config with other ports. */
        public Config withPorts(int otlpPort, int queryPort) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3);
        }

        /** This config with other ingest limits. */
        public Config withLimits(IngestLimits limits) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3);
        }

        /** This config with the blocks in a bucket. */
        public Config withS3(S3Location s3) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3);
        }
    }

    private final Config config;
    private final Server server;
    private final ServerConnector otlpConnector;
    private final ServerConnector queryConnector;
    private final RecoveryGate otlpGate = new RecoveryGate();
    private final RecoveryGate queryGate = new RecoveryGate();
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final IngestMetrics ingestMetrics = new IngestMetrics(registry);
    /** Runs retention every minute. */
    private final ScheduledExecutorService background = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "needle-background");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean ready;
    private InetSocketAddress otlpAddress;
    private InetSocketAddress queryAddress;
    private MemoryPlan memory;
    private DataDirectoryLock lock;
    private BlockStore store;
    private IngestPipeline pipeline;
    private QueryEngine engine;
    private boolean closed;

    private NeedleServer(Config config) {
        this.config = config;
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("needle-http");
        this.server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        this.otlpConnector = connector(OTLP, config.otlpPort(), http);
        this.queryConnector = connector(QUERY, config.queryPort(), http);

        PathMappingsHandler queryPaths = new PathMappingsHandler();
        queryPaths.addMapping(PathSpec.from("/ready"), new ReadyHandler(() -> ready));
        queryPaths.addMapping(PathSpec.from("/metrics"), new MetricsHandler(registry));
        queryPaths.addMapping(PathSpec.from("/"), queryGate);
        // GracefulHandler: on stop, requests in flight (an OTLP request waiting for its fsync) finish.
        server.setHandler(new GracefulHandler(new ContextHandlerCollection(
                onConnector(OTLP, otlpGate), onConnector(QUERY, queryPaths))));
        server.setStopTimeout(STOP_TIMEOUT.toMillis());
    }

    private ServerConnector connector(String name, int port, HttpConfiguration http) {
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
        connector.setName(name);
        connector.setHost(config.bind());
        connector.setPort(port);
        server.addConnector(connector);
        return connector;
    }

    /** A context at {@code /} that takes only the requests arriving on the connector named {@code connector}. */
    private static ContextHandler onConnector(String connector, org.eclipse.jetty.server.Handler handler) {
        ContextHandler context = new ContextHandler(handler, "/");
        context.setVirtualHosts(List.of("@" + connector));
        context.setDisplayName(connector);
        return context;
    }

    /**
     * Locks the data directory, binds both ports, opens the store (removing stale {@code .tmp-*} directories), recovers the
     * write-ahead log into the head, and starts serving; returns once {@code /ready} says 200.
     */
    public static NeedleServer start(Config config) throws IOException {
        NeedleServer s = new NeedleServer(config);
        try {
            s.memory = MemoryPlan.of(Runtime.getRuntime().maxMemory(), config.limits().maxHeadBytes(),
                    QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES, config.maxRequestBytes());
            s.lock = DataDirectoryLock.acquire(config.data().toAbsolutePath().normalize());
            s.listen();
            s.recover();
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
        return s;
    }

    private void listen() throws IOException {
        try {
            server.start();
        } catch (Exception e) {
            // Binding is what fails in practice: a port in use, an address this host does not have.
            throw new IOException("cannot listen on " + config.bind() + " (OTLP port " + config.otlpPort()
                    + ", query port " + config.queryPort() + "): " + e.getMessage(), e);
        }
        // Kept, because a stopped connector no longer reports its port.
        otlpAddress = new InetSocketAddress(config.bind(), otlpConnector.getLocalPort());
        queryAddress = new InetSocketAddress(config.bind(), queryConnector.getLocalPort());
        LOG.info("listening for OTLP on {}", hostPort(otlpAddress));
        LOG.info("query API on {}", hostPort(queryAddress));
    }

    private void recover() throws IOException {
        Path data = config.data().toAbsolutePath().normalize();
        if (config.s3() == null) {
            LOG.info("opening {}", data);
            FsBlockStore local = new FsBlockStore(data);
            for (Path stale : local.removedAtStartup()) {
                LOG.info("removed {}, left behind by a block write or delete that did not finish", stale);
            }
            store = local;
        } else {
            LOG.info("opening {}, with the write-ahead log in {}", config.s3(), data);
            store = S3BlockStore.open(config.s3(), data.resolve(S3_STAGING_DIR));
        }
        long started = System.nanoTime();
        pipeline = IngestPipeline.open(store, data.resolve(FsBlockStore.WAL_DIR), config.limits(), ingestMetrics::fsynced);
        LOG.info("recovered in {} ms: the head holds {} records ({} bytes) from the write-ahead log",
                (System.nanoTime() - started) / 1_000_000, pipeline.head().rows(), pipeline.head().heapBytes());
        ingestMetrics.watch(pipeline);
        engine = new QueryEngine(store, pipeline.head(), QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(2, Runtime.getRuntime().availableProcessors()));
        LOG.info(memory.describe());
        otlpGate.setHandler(new OtlpReceiver(pipeline, new ReceiverMetrics(registry), config.maxRequestBytes(),
                new DecodeBudget(memory.decodeBytes(), DECODE_WAIT_MILLIS)));
        queryGate.setHandler(new QueryApi(engine, new QueryMetrics(registry, engine.sidecarCache())));
        prepareQueries();
        if (config.retention() != null) {
            background.scheduleWithFixedDelay(this::applyRetention, 0, 1, TimeUnit.MINUTES);
            LOG.info("retention: blocks older than {} are deleted, checked every minute",
                    Units.formatDuration(config.retention()));
        }
        ready = true;
    }

    private void prepareQueries() {
        long started = System.nanoTime();
        try {
            int held = engine.preloadSidecars();
            engine.warmUp();
            LOG.info("query: {} sidecars held ({} MiB in the cache, {} MiB from the indexes) and the read path warmed up"
                    + " in {} ms", held, engine.sidecarCache().bytes() >> 20, engine.indexBytes() >> 20,
                    (System.nanoTime() - started) / 1_000_000);
        } catch (IOException | RuntimeException e) {
            // Only the first queries are slower: each reads the sidecars it needs.
            LOG.warn("query: preparing for queries failed ({}); queries read the sidecars they need themselves",
                    e.toString());
        }
    }

    private void applyRetention() {
        long cutoff = System.currentTimeMillis() * 1_000_000L - config.retention().toNanos();
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

    /** Whether recovery is done, both ports listen and the query path is prepared: what {@code /ready} answers. */
    public boolean ready() {
        return ready;
    }

    /** The address the OTLP port is bound to, with the actual port when 0 was asked for. */
    public InetSocketAddress otlpAddress() {
        return otlpAddress;
    }

    /** The address the query port is bound to, with the actual port when 0 was asked for. */
    public InetSocketAddress queryAddress() {
        return queryAddress;
    }

    /** The ingest pipeline: its head and counters. */
    public IngestPipeline pipeline() {
        return pipeline;
    }

    /** The block store: the data directory, or the bucket of {@link Config#s3}. */
    public BlockStore store() {
        return store;
    }

    /** {@code host:port}, with an IPv6 host in brackets, as a URL writes it. */
    static String hostPort(InetSocketAddress address) {
        String host = address.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + address.getPort();
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
        boolean served = server.isRunning();
        if (served) {
            LOG.info("shutting down: no new requests; finishing those in flight");
        }
        try {
            server.stop();
        } catch (Exception e) {
            LOG.error("stopping the HTTP server failed; publishing the head all the same", e);
        }
        background.shutdownNow();
        try {
            if (pipeline != null) {
                LOG.info("shutting down: publishing the head ({} records)", pipeline.head().rows());
                pipeline.close();
                LOG.info("shutting down: head published, write-ahead log checkpointed and closed");
            }
        } finally {
            if (engine != null) {
                engine.close();
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
