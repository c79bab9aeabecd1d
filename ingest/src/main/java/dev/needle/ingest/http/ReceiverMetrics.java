package dev.needle.ingest.http;

import dev.needle.blocks.model.Signal;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The OTLP receiver's Prometheus metrics.
 *
 * <table>
 * <caption>Metrics</caption>
 * <tr><th>name</th><th>type</th><th>labels</th><th>counts</th></tr>
 * <tr><td>{@code needle_ingest_requests_total}</td><td>counter</td><td>signal, encoding, status</td>
 *     <td>requests answered, by HTTP status</td></tr>
 * <tr><td>{@code needle_ingest_request_duration_seconds}</td><td>histogram</td><td>signal</td>
 *     <td>time from the request's arrival to its reply, the write-ahead log's fsync included</td></tr>
 * <tr><td>{@code needle_ingest_request_bytes_total}</td><td>counter</td><td>signal</td>
 *     <td>request body bytes received, before decompression</td></tr>
 * <tr><td>{@code needle_ingest_records_accepted_total}</td><td>counter</td><td>signal</td>
 *     <td>spans or log records acknowledged</td></tr>
 * <tr><td>{@code needle_ingest_records_rejected_total}</td><td>counter</td><td>signal, reason</td>
 *     <td>decoded records not kept: {@code invalid} (reported in a partial_success) or
 *     {@code refused} (a 429 or 503)</td></tr>
 * <tr><td>{@code needle_ingest_requests_rejected_total}</td><td>counter</td><td>signal, reason</td>
 *     <td>requests not taken: {@code undecodable}, {@code invalid_tenant}, {@code too_large},
 *     {@code unsupported_media_type} or {@code refused}</td></tr>
 * </table>
 *
 * <p>{@code signal} is spans or logs ({@code other} for a path that is neither); {@code encoding}
 * is protobuf, json or {@code other}. The records of a request that cannot be decoded cannot be
 * counted, so such requests are counted by reason on their own counter rather than as records. No
 * label carries a tenant, so that the number of series stays fixed. A registry holds one instance:
 * registering a second fails on the names.
 */
public final class ReceiverMetrics {

    /** Why a request or some of its records were not kept: the label {@code reason}. */
    enum Rejection {
        INVALID("invalid"), REFUSED("refused"), UNDECODABLE("undecodable"), INVALID_TENANT("invalid_tenant"),
        TOO_LARGE("too_large"), UNSUPPORTED_MEDIA_TYPE("unsupported_media_type");

        private final String label;

        Rejection(String label) {
            this.label = label;
        }
    }

    /** The label value for a request that is not for a known signal or not in a known encoding. */
    static final String OTHER = "other";

    private final Counter requests;
    private final Histogram latency;
    private final Counter bytes;
    private final Counter accepted;
    private final Counter rejectedRecords;
    private final Counter rejectedRequests;

    /** Registers the metrics in {@code registry}. */
    public ReceiverMetrics(PrometheusRegistry registry) {
        requests = Counter.builder().name("needle_ingest_requests_total")
                .help("OTLP requests answered, per signal, encoding and HTTP status")
                .labelNames("signal", "encoding", "status").register(registry);
        latency = Histogram.builder().name("needle_ingest_request_duration_seconds")
                .help("Time from an OTLP request's arrival to its reply, the write-ahead log's fsync included")
                .labelNames("signal")
                // 0.5 ms to 16 s: a small request waits for one group-commit fsync, a large one decodes for seconds.
                .classicOnly().classicExponentialUpperBounds(0.0005, 2, 16).register(registry);
        bytes = counter(registry, "needle_ingest_request_bytes_total",
                "OTLP request body bytes received, before decompression", "signal");
        accepted = counter(registry, "needle_ingest_records_accepted_total",
                "Spans and log records acknowledged", "signal");
        rejectedRecords = counter(registry, "needle_ingest_records_rejected_total",
                "Decoded spans and log records not kept: invalid (partial success) or refused (429/503) once decoded",
                "signal", "reason");
        rejectedRequests = counter(registry, "needle_ingest_requests_rejected_total",
                "OTLP requests not taken, by reason", "signal", "reason");
        // Series that exist from the start read 0 instead of being absent, so rates work from the first scrape.
        for (Signal signal : Signal.values()) {
            String s = signal.dirName();
            latency.initLabelValues(s);
            bytes.initLabelValues(s);
            accepted.initLabelValues(s);
            rejectedRecords.initLabelValues(s, Rejection.INVALID.label);
            rejectedRecords.initLabelValues(s, Rejection.REFUSED.label);
            for (Rejection r : Rejection.values()) {
                if (r != Rejection.INVALID) {
                    rejectedRequests.initLabelValues(s, r.label);
                }
            }
        }
    }

    private static Counter counter(PrometheusRegistry registry, String name, String help, String... labels) {
        return Counter.builder().name(name).help(help).labelNames(labels).register(registry);
    }

    /** Counts one answered request that took {@code nanos}. */
    void answered(String signal, String encoding, int status, long nanos) {
        requests.labelValues(signal, encoding, Integer.toString(status)).inc();
        latency.labelValues(signal).observe(nanos / 1e9);
    }

    /** Counts body bytes received. */
    void received(Signal signal, long n) {
        bytes.labelValues(signal.dirName()).inc(n);
    }

    /** Counts acknowledged records. */
    void accepted(Signal signal, int n) {
        accepted.labelValues(signal.dirName()).inc(n);
    }

    /** Counts decoded records not kept, for {@code why}: {@link Rejection#INVALID} or {@link Rejection#REFUSED}. */
    void rejectedRecords(Signal signal, Rejection why, int n) {
        rejectedRecords.labelValues(signal.dirName(), why.label).inc(n);
    }

    /** Counts a request that was not taken. */
    void rejectedRequest(Signal signal, Rejection why) {
        rejectedRequests.labelValues(signal.dirName(), why.label).inc();
    }
}
