package dev.needle.ingest.server;

import dev.needle.blocks.cli.Units;
import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.ingest.IngestLimits;
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
import dev.needle.query.metrics.MetricsHandler;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.eclipse.jetty.http.pathmap.PathSpec;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.server.handler.ContextHandlerCollection;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.server.handler.PathMappingsHandler;
import org.eclipse.jetty.util.Callback;
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

    /** The OTLP connector's name, and its context's virtual host {@code @otlp}. */
    static final String OTLP = "otlp";
    /** The query connector's name, and its context's virtual host {@code @query}. */
    static final String QUERY = "query";

    private static final Logger LOG = LoggerFactory.getLogger(NeedleServer.class);
    /** How long a request waits for room to decode before it is answered 503. */
    private static final long DECODE_WAIT_MILLIS = 10_000;
    /** Blocks retention deletes within this long are not compacted: a pass and a retention run never race. */
    private static final Duration RETENTION_MARGIN = Duration.ofMinutes(5);
    /** How long a graceful stop waits for requests in flight. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    /** How often the watchdog looks whether ingest stopped for good. */
    private static final Duration WATCH_EVERY = Duration.ofMillis(500);
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
     * @param role            what the process does
     * @param ingesters       a query node's ingest nodes, each the URL of its query port; empty for other roles
     * @param compression     how published blocks' record batches are compressed; null: the store's default
     *                        ({@link #effectiveCompression})
     * @param compactEvery    how often the compactor runs on a node that ingests; null: never
     * @param compactGrace    how long blocks a compaction replaced stay before they are deleted (see {@link Compactor})
     * @param queryTimeout    how long one query may run
     * @param maxQueryBytes   the heap one query's records may hold; null: the memory plan's ({@link MemoryPlan#queryBytes})
     */
    public record Config(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits,
                         long maxRequestBytes, Duration retention, S3Location s3, Role role, List<URI> ingesters,
                         BlockWriter.Codec compression, Duration compactEvery, Duration compactGrace,
                         Duration queryTimeout, Long maxQueryBytes) {

        /** How often a server compacts unless told otherwise. */
        public static final Duration DEFAULT_COMPACT_EVERY = Duration.ofSeconds(30);
        /** How long a query may run unless told otherwise: Grafana's own data source timeout is 30 s by default. */
        public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(60);

        /** The defaults docs/OPERATIONS.md lists: {@code data} in the working directory, 127.0.0.1, ports 4318 and 3200. */
        public static final Config DEFAULTS = new Config(Path.of("data"), "127.0.0.1", 4318, 3200,
                IngestLimits.DEFAULTS, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, null);

        public Config {
            Objects.requireNonNull(data, "data");
            Objects.requireNonNull(bind, "bind");
            Objects.requireNonNull(limits, "limits");
            Objects.requireNonNull(role, "role");
            ingesters = List.copyOf(ingesters);
            if (!ingesters.isEmpty() && role != Role.QUERY) {
                throw new IllegalArgumentException("--ingester goes with --role query: the " + role.word()
                        + " role queries its own head");
            }
            if (retention != null && role == Role.QUERY) {
                throw new IllegalArgumentException("--retention is for the node that writes the store, not --role query");
            }
            if (otlpPort < 0 || otlpPort > 65535 || queryPort < 0 || queryPort > 65535) {
                throw new IllegalArgumentException("ports are 0 to 65535, got otlp " + otlpPort + " and query " + queryPort);
            }
            if (role.ingests() && otlpPort != 0 && otlpPort == queryPort) {
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
            if (compactEvery != null && (compactEvery.isNegative() || compactEvery.isZero())) {
                throw new IllegalArgumentException("the compaction interval must be positive, got " + compactEvery);
            }
            Objects.requireNonNull(compactGrace, "compactGrace");
            if (compactGrace.isNegative()) {
                throw new IllegalArgumentException("the compaction grace must not be negative, got " + compactGrace);
            }
            Objects.requireNonNull(queryTimeout, "queryTimeout");
            if (queryTimeout.isNegative() || queryTimeout.isZero()) {
                throw new IllegalArgumentException("the query timeout must be positive, got " + queryTimeout);
            }
            if (maxQueryBytes != null && maxQueryBytes < 1) {
                throw new IllegalArgumentException("a query's memory must be positive, got " + maxQueryBytes);
            }
        }

        /** A config that compacts every {@link #DEFAULT_COMPACT_EVERY}. */
        public Config(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                      Duration retention, S3Location s3, Role role, List<URI> ingesters, BlockWriter.Codec compression) {
            this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters, compression,
                    DEFAULT_COMPACT_EVERY, Compactor.DEFAULT_GRACE, DEFAULT_QUERY_TIMEOUT, null);
        }

        /** A config of the {@code all} role. */
        public Config(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                      Duration retention, S3Location s3) {
            this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, Role.ALL, List.of(), null);
        }

        /** A config of the {@code all} role with the blocks in the data directory. */
        public Config(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                      Duration retention) {
            this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, null);
        }

        /** This config with another data directory. */
        public Config withData(Path data) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config with other ports. */
        public Config withPorts(int otlpPort, int queryPort) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config with other ingest limits. */
        public Config withLimits(IngestLimits limits) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config with another role, and for a query node the ingest nodes it asks. */
        public Config withRole(Role role, List<URI> ingesters) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config with the blocks in a bucket. */
        public Config withS3(S3Location s3) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config with another compression of published blocks; null for the store's default. */
        public Config withCompression(BlockWriter.Codec compression) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config compacting every {@code compactEvery} (null: never), replaced blocks deleted after {@code compactGrace}. */
        public Config withCompaction(Duration compactEvery, Duration compactGrace) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /** This config with queries stopped after {@code queryTimeout} or past {@code maxQueryBytes} (null: the plan's). */
        public Config withQueryLimits(Duration queryTimeout, Long maxQueryBytes) {
            return new Config(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                    compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
        }

        /**
         * The compression blocks are published with: the one asked for, else ZSTD on a bucket, where
         * bytes are paid for and every byte read is a slower GET, and none on a local disk, where the
         * page cache serves uncompressed batches faster than they decompress (see docs/COMPRESSION.md).
         */
        public BlockWriter.Codec effectiveCompression() {
            return compression != null ? compression : s3 != null ? BlockWriter.Codec.ZSTD : BlockWriter.Codec.NONE;
        }
    }

    private final Config config;
    private final Server server;
    private final ServerConnector otlpConnector;
    private final ServerConnector queryConnector;
    private final RecoveryGate otlpGate = new RecoveryGate();
    private final RecoveryGate queryGate = new RecoveryGate();
    private final RecoveryGate headGate = new RecoveryGate();
    private final PrometheusRegistry registry = new PrometheusRegistry();
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
    private InetSocketAddress otlpAddress;
    private InetSocketAddress queryAddress;
    private MemoryPlan memory;
    private QueryLimits queryLimits;
    private DataDirectoryLock lock;
    private BlockStore store;
    private IngestPipeline pipeline;
    private RemoteHeadSource remoteHeads;
    private QueryEngine engine;
    private Compaction compaction;
    private boolean closed;

    private NeedleServer(Config config) {
        this.config = config;
        QueuedThreadPool threads = new QueuedThreadPool();
        threads.setName("needle-http");
        this.server = new Server(threads);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        this.otlpConnector = config.role().ingests() ? connector(OTLP, config.otlpPort(), http) : null;
        this.queryConnector = connector(QUERY, config.queryPort(), http);

        PathMappingsHandler queryPaths = new PathMappingsHandler();
        queryPaths.addMapping(PathSpec.from("/ready"), new ReadyHandler(this::notReady));
        ProcessMetrics.register(registry);
        queryPaths.addMapping(PathSpec.from("/metrics"), new MetricsHandler(registry));
        if (config.role().ingests()) {
            queryPaths.addMapping(PathSpec.from(HeadEndpoint.PATH + "*"), headGate);
        }
        queryPaths.addMapping(PathSpec.from("/"), queryGate);
        ContextHandlerCollection contexts = new ContextHandlerCollection(onConnector(QUERY, queryPaths));
        if (otlpConnector != null) {
            contexts.addHandler(onConnector(OTLP, otlpGate));
        }
        // GracefulHandler: on stop, requests in flight (an OTLP request waiting for its fsync) finish.
        server.setHandler(new GracefulHandler(contexts));
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
    private static ContextHandler onConnector(String connector, Handler handler) {
        ContextHandler context = new ContextHandler(handler, "/");
        context.setVirtualHosts(List.of("@" + connector));
        context.setDisplayName(connector);
        return context;
    }

    /**
     * Locks the data directory, opens the store (removing stale {@code .tmp-*} directories; checking that
     * a bucket answers), binds both ports, recovers the write-ahead log into the head, and starts
     * serving; returns once {@code /ready} says 200.
     */
    public static NeedleServer start(Config config) throws IOException {
        NeedleServer s = new NeedleServer(config);
        try {
            long heap = Runtime.getRuntime().maxMemory();
            s.memory = config.role().ingests()
                    ? MemoryPlan.of(heap, config.limits().maxHeadBytes(),
                            config.role().queries() ? QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES : 0, config.maxRequestBytes())
                    : MemoryPlan.ofQueryNode(heap, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES);
            s.queryLimits = s.queryLimits();
            if (config.role().ingests()) {
                // A query node takes no lock: it only reads, beside the one process that writes.
                s.lock = DataDirectoryLock.acquire(config.data().toAbsolutePath().normalize());
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
        try {
            server.start();
        } catch (Exception e) {
            // Binding is what fails in practice: a port in use, an address this host does not have.
            throw new IOException("cannot listen on " + config.bind() + " (OTLP port " + config.otlpPort()
                    + ", query port " + config.queryPort() + "): " + e.getMessage(), e);
        }
        // Kept, because a stopped connector no longer reports its port.
        queryAddress = new InetSocketAddress(config.bind(), queryConnector.getLocalPort());
        if (otlpConnector != null) {
            otlpAddress = new InetSocketAddress(config.bind(), otlpConnector.getLocalPort());
            LOG.info("listening for OTLP on {}", hostPort(otlpAddress));
        }
        LOG.info(switch (config.role()) {
            case ALL -> "query API on {}";
            case INGEST -> "the head for query nodes, /ready and /metrics on {}";
            case QUERY -> "query API (a query node: no write-ahead log, the store read-only) on {}";
        }, hostPort(queryAddress));
    }

    private void openStore() throws IOException {
        Path data = config.data().toAbsolutePath().normalize();
        if (!config.role().ingests()) {
            // A query node writes nothing: no staging, no sweep, no removal of a writer's .tmp-* directories.
            LOG.info("reading {} (read-only)", config.s3() == null ? data : config.s3());
            store = config.s3() == null ? FsBlockStore.readOnly(data) : S3BlockStore.openReadOnly(config.s3());
            return;
        }
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
    }

    private void recover() throws IOException {
        if (!config.role().ingests()) {
            serveQueriesOnly();
            return;
        }
        Path data = config.data().toAbsolutePath().normalize();
        long started = System.nanoTime();
        ingestMetrics = new IngestMetrics(registry);
        // An ingest node may share its store with others, so it names its blocks; an all node is its store's one writer.
        String writerId = config.role() == Role.INGEST ? WriterId.of(data) : "";
        pipeline = IngestPipeline.open(store, data.resolve(FsBlockStore.WAL_DIR), config.limits(), PublishBackoff.DEFAULT,
                ingestMetrics::fsynced, writerId, BlockWriter.Options.DEFAULT.withCodec(config.effectiveCompression()));
        LOG.info("recovered in {} ms: the head holds {} records ({} bytes) from the write-ahead log",
                (System.nanoTime() - started) / 1_000_000, pipeline.head().rows(), pipeline.head().heapBytes());
        ingestMetrics.watch(pipeline);
        watchdog.scheduleWithFixedDelay(this::watchIngest, WATCH_EVERY.toMillis(), WATCH_EVERY.toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info(memory.describe());
        otlpGate.setHandler(new OtlpReceiver(pipeline, new ReceiverMetrics(registry), config.maxRequestBytes(),
                new DecodeBudget(memory.decodeBytes(), DECODE_WAIT_MILLIS)));
        headGate.setHandler(new HeadEndpoint(pipeline.head()));
        if (config.role().queries()) {
            serveQueries(pipeline.head());
        } else {
            queryGate.setHandler(new NotHere());
        }
        if (config.compactEvery() != null) {
            startCompaction(writerId);
        }
        if (config.retention() != null) {
            background.scheduleWithFixedDelay(this::applyRetention, 0, 1, TimeUnit.MINUTES);
            LOG.info("retention: blocks older than {} are deleted, checked every minute",
                    Units.formatDuration(config.retention()));
        }
        ready = true;
    }

    /** A query node's start: the store is open read-only; the ingest nodes' heads are asked over HTTP. */
    private void serveQueriesOnly() {
        HeadSource heads = HeadSource.EMPTY;
        if (config.ingesters().isEmpty()) {
            LOG.info("no --ingester given: answers hold published blocks only");
        } else {
            remoteHeads = new RemoteHeadSource(config.ingesters(), RemoteHeadSource.DEFAULT_TIMEOUT,
                    RemoteHeadSource.DEFAULT_MAX_BYTES);
            heads = remoteHeads;
            LOG.info("unpublished records from {}", config.ingesters());
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
        long one = config.maxQueryBytes() != null ? config.maxQueryBytes() : memory.queryDefaultBytes();
        if (one > memory.queryBytes()) {
            throw new IllegalArgumentException("--max-query-bytes " + Units.formatBytes(one) + " is more than the "
                    + Units.formatBytes(memory.queryBytes()) + " all queries may hold in this heap; lower it or give the"
                    + " server more heap (NEEDLE_HEAP=2g ./needle serve)");
        }
        return new QueryLimits(one, memory.queryBytes(), config.queryTimeout());
    }

    private void serveQueries(HeadSource head) {
        engine = new QueryEngine(store, head, QueryEngine.DEFAULT_SIDECAR_CACHE_BYTES,
                Math.max(2, Runtime.getRuntime().availableProcessors()), queryLimits);
        queryGate.setHandler(new QueryApi(engine, new QueryMetrics(registry, engine)));
        prepareQueries();
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

    /**
     * Runs the compactor in the background: merges of this node's blocks (all blocks, when it is its
     * store's one writer) into blocks of up to {@code --block-rows} rows, written as ingest writes them;
     * never a block retention deletes within the next few minutes.
     */
    private void startCompaction(String writerId) {
        Predicate<BlockRef> ours = pipeline.compactable(config.role() == Role.ALL);
        Duration retention = config.retention();
        Predicate<BlockRef> eligible = retention == null ? ours : ours.and(block -> block.name().endUnixNano()
                > System.currentTimeMillis() * 1_000_000L - retention.toNanos() + RETENTION_MARGIN.toNanos());
        Compactor compactor = new Compactor(store, new Compactor.Options(config.limits().blockRows(),
                BlockWriter.Options.DEFAULT.withCodec(config.effectiveCompression()), config.compactGrace(), writerId,
                eligible));
        compaction = new Compaction(compactor, config.compactEvery(), config.compactGrace(), pipeline::busy, registry);
        LOG.info("compaction: small blocks are merged into blocks of up to {} rows, checked every {}",
                config.limits().blockRows(), Units.formatDuration(config.compactEvery()));
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
        return otlpAddress;
    }

    /** The address the query port is bound to, with the actual port when 0 was asked for. */
    public InetSocketAddress queryAddress() {
        return queryAddress;
    }

    /** The ingest pipeline: its head and counters; null on a query node. */
    public IngestPipeline pipeline() {
        return pipeline;
    }

    /** The block store: the data directory, or the bucket of {@link Config#s3}. */
    public BlockStore store() {
        return store;
    }

    /** The role's process. */
    public Role role() {
        return config.role();
    }

    /** An ingest node's query port, past its head, /ready and /metrics: a 404 that says where queries go. */
    private static final class NotHere extends Handler.Abstract.NonBlocking {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            PlainText.send(response, callback, 404, "this is an ingest node (--role ingest): send queries to a query node");
            return true;
        }
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
        watchdog.shutdownNow();
        if (compaction != null) {
            compaction.close();
        }
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
