package dev.needle.ingest.server;

import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.http.OtlpReceiver;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * How to run the server: what {@link NeedleServer#start} is given, in groups by what each part of the server
 * uses. Each group checks its own values; this record checks what depends on the role.
 *
 * @param storage    where the blocks and the write-ahead log live, and how blocks are kept
 * @param listen     the two ports and what they take
 * @param limits     when the head is cut, and the bounds of the head and the log
 * @param cluster    what the process does, and a query node's ingest nodes
 * @param compaction how often the compactor runs and how long replaced blocks stay
 * @param queries    how long a query may run and how much it may hold
 */
public record ServerConfig(Storage storage, Listen listen, IngestLimits limits, Cluster cluster,
                           CompactionSchedule compaction, Queries queries) {

    /** How often a server compacts unless told otherwise. */
    public static final Duration DEFAULT_COMPACT_EVERY = Duration.ofSeconds(30);
    /** How long a query may run unless told otherwise: Grafana's own data source timeout is 30 s by default. */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(60);

    /** The defaults docs/OPERATIONS.md lists: {@code data} in the working directory, 127.0.0.1, ports 4318 and 3200. */
    public static final ServerConfig DEFAULTS = new ServerConfig(
            new Storage(Path.of("data"), null, null, null),
            new Listen("127.0.0.1", 4318, 3200, OtlpReceiver.DEFAULT_MAX_BODY_BYTES),
            IngestLimits.DEFAULTS,
            new Cluster(Role.ALL, List.of()),
            new CompactionSchedule(DEFAULT_COMPACT_EVERY, Compactor.DEFAULT_GRACE),
            new Queries(DEFAULT_QUERY_TIMEOUT, null));

    public ServerConfig {
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(listen, "listen");
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(compaction, "compaction");
        Objects.requireNonNull(queries, "queries");
        if (storage.retention() != null && cluster.role() == Role.QUERY) {
            throw new IllegalArgumentException("--retention is for the node that writes the store, not --role query");
        }
        if (cluster.role().ingests() && listen.otlpPort() != 0 && listen.otlpPort() == listen.queryPort()) {
            throw new IllegalArgumentException("the OTLP and query ports must differ, both are " + listen.otlpPort());
        }
    }

    /**
     * Where the blocks live and how they are kept.
     *
     * @param data        the data directory (created if missing): the blocks, or with {@code s3} only the write-ahead
     *                    log and the blocks being uploaded
     * @param s3          the bucket that holds the blocks; null keeps them in the data directory
     * @param compression how published blocks' record batches are compressed; null: the store's default
     *                    ({@link #effectiveCompression})
     * @param retention   blocks whose every record is older than this are deleted; null keeps everything
     */
    public record Storage(Path data, S3Location s3, BlockWriter.Codec compression, Duration retention) {
        public Storage {
            Objects.requireNonNull(data, "data");
            // Bounded so that the cutoff in nanoseconds cannot overflow (a long holds ~292 years).
            if (retention != null && (retention.isNegative() || retention.isZero()
                    || retention.compareTo(Duration.ofDays(100 * 365)) > 0)) {
                throw new IllegalArgumentException("retention must be positive and at most 100 years, got " + retention);
            }
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

    /**
     * The two ports and what they take.
     *
     * @param bind            the address both ports bind, such as {@code 127.0.0.1} or {@code 0.0.0.0}
     * @param otlpPort        the OTLP/HTTP port; 0 picks a free one
     * @param queryPort       the query API port; 0 picks a free one
     * @param maxRequestBytes the largest OTLP request body, after decompression
     */
    public record Listen(String bind, int otlpPort, int queryPort, long maxRequestBytes) {
        public Listen {
            Objects.requireNonNull(bind, "bind");
            if (otlpPort < 0 || otlpPort > 65535 || queryPort < 0 || queryPort > 65535) {
                throw new IllegalArgumentException("ports are 0 to 65535, got otlp " + otlpPort + " and query " + queryPort);
            }
            if (maxRequestBytes < 1) {
                throw new IllegalArgumentException("maxRequestBytes must be positive, got " + maxRequestBytes);
            }
        }
    }

    /**
     * What the process does.
     *
     * @param role      all, ingest or query
     * @param ingesters a query node's ingest nodes, each the URL of its query port; empty for other roles
     */
    public record Cluster(Role role, List<URI> ingesters) {
        public Cluster {
            Objects.requireNonNull(role, "role");
            ingesters = List.copyOf(ingesters);
            if (!ingesters.isEmpty() && role != Role.QUERY) {
                throw new IllegalArgumentException("--ingester goes with --role query: the " + role.word()
                        + " role queries its own head");
            }
        }
    }

    /**
     * When the compactor runs.
     *
     * @param every how often it runs on a node that ingests; null: never
     * @param grace how long blocks a compaction replaced stay before they are deleted (see {@link Compactor})
     */
    public record CompactionSchedule(Duration every, Duration grace) {
        public CompactionSchedule {
            if (every != null && (every.isNegative() || every.isZero())) {
                throw new IllegalArgumentException("the compaction interval must be positive, got " + every);
            }
            Objects.requireNonNull(grace, "grace");
            if (grace.isNegative()) {
                throw new IllegalArgumentException("the compaction grace must not be negative, got " + grace);
            }
        }
    }

    /**
     * What one query may take.
     *
     * @param timeout  how long one query may run
     * @param maxBytes the heap one query's records may hold; null: the memory plan's ({@link MemoryPlan#queryBytes})
     */
    public record Queries(Duration timeout, Long maxBytes) {
        public Queries {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("the query timeout must be positive, got " + timeout);
            }
            if (maxBytes != null && maxBytes < 1) {
                throw new IllegalArgumentException("a query's memory must be positive, got " + maxBytes);
            }
        }
    }

    /** This config with another data directory. */
    public ServerConfig withData(Path data) {
        return withStorage(new Storage(data, storage.s3(), storage.compression(), storage.retention()));
    }

    /** This config with the blocks in a bucket. */
    public ServerConfig withS3(S3Location s3) {
        return withStorage(new Storage(storage.data(), s3, storage.compression(), storage.retention()));
    }

    /** This config with another compression of published blocks; null for the store's default. */
    public ServerConfig withCompression(BlockWriter.Codec compression) {
        return withStorage(new Storage(storage.data(), storage.s3(), compression, storage.retention()));
    }

    /** This config deleting blocks whose every record is older than {@code retention}; null keeps everything. */
    public ServerConfig withRetention(Duration retention) {
        return withStorage(new Storage(storage.data(), storage.s3(), storage.compression(), retention));
    }

    private ServerConfig withStorage(Storage storage) {
        return new ServerConfig(storage, listen, limits, cluster, compaction, queries);
    }

    /** This config with other ports. */
    public ServerConfig withPorts(int otlpPort, int queryPort) {
        return new ServerConfig(storage, new Listen(listen.bind(), otlpPort, queryPort, listen.maxRequestBytes()), limits,
                cluster, compaction, queries);
    }

    /** This config with another largest OTLP request body. */
    public ServerConfig withMaxRequestBytes(long maxRequestBytes) {
        return new ServerConfig(storage, new Listen(listen.bind(), listen.otlpPort(), listen.queryPort(), maxRequestBytes),
                limits, cluster, compaction, queries);
    }

    /** This config with other ingest limits. */
    public ServerConfig withLimits(IngestLimits limits) {
        return new ServerConfig(storage, listen, limits, cluster, compaction, queries);
    }

    /** This config with another role, and for a query node the ingest nodes it asks. */
    public ServerConfig withRole(Role role, List<URI> ingesters) {
        return new ServerConfig(storage, listen, limits, new Cluster(role, ingesters), compaction, queries);
    }

    /** This config compacting every {@code every} (null: never), replaced blocks deleted after {@code grace}. */
    public ServerConfig withCompaction(Duration every, Duration grace) {
        return new ServerConfig(storage, listen, limits, cluster, new CompactionSchedule(every, grace), queries);
    }

    /** This config with queries stopped after {@code timeout} or past {@code maxBytes} (null: the plan's). */
    public ServerConfig withQueryLimits(Duration timeout, Long maxBytes) {
        return new ServerConfig(storage, listen, limits, cluster, compaction, new Queries(timeout, maxBytes));
    }
}
