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
 * How to run the server: what {@link NeedleServer#start} is given.
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
public record ServerConfig(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits,
                     long maxRequestBytes, Duration retention, S3Location s3, Role role, List<URI> ingesters,
                     BlockWriter.Codec compression, Duration compactEvery, Duration compactGrace,
                     Duration queryTimeout, Long maxQueryBytes) {

    /** How often a server compacts unless told otherwise. */
    public static final Duration DEFAULT_COMPACT_EVERY = Duration.ofSeconds(30);
    /** How long a query may run unless told otherwise: Grafana's own data source timeout is 30 s by default. */
    public static final Duration DEFAULT_QUERY_TIMEOUT = Duration.ofSeconds(60);

    /** The defaults docs/OPERATIONS.md lists: {@code data} in the working directory, 127.0.0.1, ports 4318 and 3200. */
    public static final ServerConfig DEFAULTS = new ServerConfig(Path.of("data"), "127.0.0.1", 4318, 3200,
            IngestLimits.DEFAULTS, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, null);

    public ServerConfig {
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
    public ServerConfig(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                  Duration retention, S3Location s3, Role role, List<URI> ingesters, BlockWriter.Codec compression) {
        this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters, compression,
                DEFAULT_COMPACT_EVERY, Compactor.DEFAULT_GRACE, DEFAULT_QUERY_TIMEOUT, null);
    }

    /** A config of the {@code all} role. */
    public ServerConfig(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                  Duration retention, S3Location s3) {
        this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, Role.ALL, List.of(), null);
    }

    /** A config of the {@code all} role with the blocks in the data directory. */
    public ServerConfig(Path data, String bind, int otlpPort, int queryPort, IngestLimits limits, long maxRequestBytes,
                  Duration retention) {
        this(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, null);
    }

    /** This config with another data directory. */
    public ServerConfig withData(Path data) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config with other ports. */
    public ServerConfig withPorts(int otlpPort, int queryPort) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config with other ingest limits. */
    public ServerConfig withLimits(IngestLimits limits) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config with another role, and for a query node the ingest nodes it asks. */
    public ServerConfig withRole(Role role, List<URI> ingesters) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config with the blocks in a bucket. */
    public ServerConfig withS3(S3Location s3) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config with another compression of published blocks; null for the store's default. */
    public ServerConfig withCompression(BlockWriter.Codec compression) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config compacting every {@code compactEvery} (null: never), replaced blocks deleted after {@code compactGrace}. */
    public ServerConfig withCompaction(Duration compactEvery, Duration compactGrace) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
                compression, compactEvery, compactGrace, queryTimeout, maxQueryBytes);
    }

    /** This config with queries stopped after {@code queryTimeout} or past {@code maxQueryBytes} (null: the plan's). */
    public ServerConfig withQueryLimits(Duration queryTimeout, Long maxQueryBytes) {
        return new ServerConfig(data, bind, otlpPort, queryPort, limits, maxRequestBytes, retention, s3, role, ingesters,
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
