package dev.needle.ingest.server;

import dev.needle.ingest.IngestPipeline;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The server's metrics of the write-ahead log, the head and publishing. All but the fsync
 * histogram are read from the pipeline when scraped, so they cannot drift from it.
 *
 * <table>
 * <caption>Metrics</caption>
 * <tr><th>name</th><th>type</th><th>counts</th></tr>
 * <tr><td>{@code needle_ingest_wal_bytes}</td><td>gauge</td><td>bytes of write-ahead log segments on disk</td></tr>
 * <tr><td>{@code needle_ingest_wal_pending_bytes}</td><td>gauge</td><td>bytes of accepted records waiting for the next fsync</td></tr>
 * <tr><td>{@code needle_ingest_wal_damaged_segments}</td><td>gauge</td><td>damaged write-ahead log segments recovery found at start (entries after the damage dropped; copies in {@code wal/damaged/})</td></tr>
 * <tr><td>{@code needle_ingest_wal_fsync_seconds}</td><td>histogram</td><td>time of each group-commit fsync</td></tr>
 * <tr><td>{@code needle_ingest_head_rows}</td><td>gauge</td><td>spans and log records acknowledged and not yet in a listed block</td></tr>
 * <tr><td>{@code needle_ingest_head_bytes}</td><td>gauge</td><td>heap bytes those records hold, estimated: what the head bound counts</td></tr>
 * <tr><td>{@code needle_ingest_blocks_published_total}</td><td>counter</td><td>blocks published since start</td></tr>
 * <tr><td>{@code needle_ingest_sidecar_bytes_published_total}</td><td>counter</td><td>TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX bytes of those blocks</td></tr>
 * <tr><td>{@code needle_ingest_publish_failures_total}</td><td>counter</td><td>publish attempts that failed (the store down, a full disk); their records stay in the head and the log</td></tr>
 * <tr><td>{@code needle_ingest_publish_backoff_seconds}</td><td>gauge</td><td>the wait before the next attempt after a failure; 0 while publishing succeeds</td></tr>
 * </table>
 */
final class IngestMetrics {

    private final PrometheusRegistry registry;
    private final Histogram fsync;

    /**
     * Registers the fsync histogram, which must exist before the pipeline opens (recovery already
     * writes the log); {@link #watch} registers the rest once it has.
     */
    IngestMetrics(PrometheusRegistry registry) {
        this.registry = registry;
        // 50 µs to 1.6 s: an SSD fsyncs in well under a millisecond, a busy disk can take a second.
        this.fsync = Histogram.builder().name("needle_ingest_wal_fsync_seconds")
                .help("Time of each write-ahead log fsync (one per group commit)")
                .classicOnly().classicExponentialUpperBounds(0.00005, 2, 16).register(registry);
    }

    /** The pipeline's fsync callback. */
    void fsynced(long nanos) {
        fsync.observe(nanos / 1e9);
    }

    /** Registers the gauges and counters read from {@code pipeline}. */
    void watch(IngestPipeline pipeline) {
        GaugeWithCallback.builder().name("needle_ingest_wal_bytes").help("Bytes of write-ahead log segments on disk")
                .callback(cb -> cb.call(walBytes(pipeline))).register(registry);
        GaugeWithCallback.builder().name("needle_ingest_wal_pending_bytes")
                .help("Bytes of accepted records waiting for the next write-ahead log fsync")
                .callback(cb -> cb.call(pipeline.wal().pendingBytes())).register(registry);
        GaugeWithCallback.builder().name("needle_ingest_wal_damaged_segments")
                .help("Damaged write-ahead log segments found at start, whose entries after the damage were dropped")
                .callback(cb -> cb.call(pipeline.recoveryProblems().size())).register(registry);
        GaugeWithCallback.builder().name("needle_ingest_head_rows")
                .help("Spans and log records acknowledged and not yet in a published block")
                .callback(cb -> cb.call(pipeline.head().rows())).register(registry);
        GaugeWithCallback.builder().name("needle_ingest_head_bytes")
                .help("Heap bytes the records in the head hold, estimated; the head bound counts them")
                .callback(cb -> cb.call(pipeline.head().heapBytes())).register(registry);
        CounterWithCallback.builder().name("needle_ingest_blocks_published_total").help("Blocks published since start")
                .callback(cb -> cb.call(pipeline.blocksPublished())).register(registry);
        CounterWithCallback.builder().name("needle_ingest_sidecar_bytes_published_total")
                .help("TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX bytes of the blocks published since start")
                .callback(cb -> cb.call(pipeline.sidecarBytesPublished())).register(registry);
        CounterWithCallback.builder().name("needle_ingest_publish_failures_total")
                .help("Publish attempts that failed; their records stay in the head and the write-ahead log")
                .callback(cb -> cb.call(pipeline.failedPublishes())).register(registry);
        GaugeWithCallback.builder().name("needle_ingest_publish_backoff_seconds")
                .help("The wait before the next publish attempt after a failure; 0 while publishing succeeds")
                .callback(cb -> cb.call(pipeline.publishBackoff().toMillis() / 1000.0)).register(registry);
    }

    private static long walBytes(IngestPipeline pipeline) {
        try {
            return pipeline.wal().bytesOnDisk();
        } catch (IOException e) {
            // MetricsHandler answers a failed scrape with a 500 that names this.
            throw new UncheckedIOException("reading the write-ahead log's size", e);
        }
    }
}
