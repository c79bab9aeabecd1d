package dev.needle.query.metrics;

import dev.needle.blocks.model.Signal;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.QueryAbortedException;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SidecarCache;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The query API's Prometheus metrics, summed from each lookup's EXPLAIN totals.
 *
 * <table>
 * <caption>Metrics</caption>
 * <tr><th>name</th><th>type</th><th>labels</th><th>counts</th></tr>
 * <tr><td>{@code needle_query_lookups_total}</td><td>counter</td><td>signal, kind</td>
 *     <td>lookups run; a trace lookup with {@code logs=true} counts once per signal, a search once for its
 *     span search and once per trace it looks up whole</td></tr>
 * <tr><td>{@code needle_query_latency_seconds}</td><td>histogram</td><td>kind</td>
 *     <td>time the engine took for one request's lookups</td></tr>
 * <tr><td>{@code needle_query_blocks_listed_total}</td><td>counter</td><td>signal</td><td>blocks considered</td></tr>
 * <tr><td>{@code needle_query_blocks_pruned_total}</td><td>counter</td><td>signal, mechanism</td>
 *     <td>blocks skipped without reading a batch, by the step that skipped them:
 *     time, trace_idx, attr_idx, zone_maps, batch_attr_idx or limit</td></tr>
 * <tr><td>{@code needle_query_blocks_opened_total}</td><td>counter</td><td>signal</td><td>blocks opened</td></tr>
 * <tr><td>{@code needle_query_blocks_opened_for_nothing_total}</td><td>counter</td><td>signal</td>
 *     <td>blocks opened that held no match: sidecar false positives, or no sidecar to help</td></tr>
 * <tr><td>{@code needle_query_sidecars_failed_open_total}</td><td>counter</td><td>signal, reason</td>
 *     <td>sidecars that could not be trusted (missing, crc, length, …; a BATCH_ATTR_IDX's as
 *     batch_attr_idx:missing, …), so their block, or every batch of it, was scanned</td></tr>
 * <tr><td>{@code needle_query_blocks_unreadable_total}</td><td>counter</td><td>signal</td>
 *     <td>blocks that could not be read: each made an answer PARTIAL</td></tr>
 * <tr><td>{@code needle_query_rows_scanned_total}</td><td>counter</td><td>signal</td><td>rows tested</td></tr>
 * <tr><td>{@code needle_query_read_bytes_total}</td><td>counter</td><td>signal</td><td>bytes read from blocks</td></tr>
 * <tr><td>{@code needle_query_aborted_total}</td><td>counter</td><td>reason</td>
 *     <td>queries stopped at a limit: timeout, memory (one query's), busy (all queries' memory)</td></tr>
 * <tr><td>{@code needle_query_held_bytes}</td><td>gauge</td><td></td>
 *     <td>heap the records of the queries running now hold, as their memory limits count it</td></tr>
 * <tr><td>{@code needle_query_sidecar_cache_bytes}</td><td>gauge</td><td></td><td>decoded sidecars held in memory</td></tr>
 * <tr><td>{@code needle_query_sidecar_cache_hits_total}</td><td>counter</td><td></td><td>sidecars found in the cache</td></tr>
 * <tr><td>{@code needle_query_sidecar_cache_misses_total}</td><td>counter</td><td></td><td>sidecars read from their file</td></tr>
 * </table>
 *
 * <p>{@code signal} is spans or logs; {@code kind} is trace ({@code /api/traces}, {@code /api/v2/traces}),
 * search ({@code /api/search}) or logs ({@code /api/logs}). The cache metrics are read from the
 * engine's {@link SidecarCache} at scrape time. No label carries a tenant, so that the number of
 * series stays fixed. A registry holds one instance: registering a second fails on the names.
 */
public final class QueryMetrics {

    /** The kind of lookup, the label {@code kind}. */
    public enum Kind {
        TRACE("trace"), SEARCH("search"), LOGS("logs");

        private final String label;

        Kind(String label) {
            this.label = label;
        }
    }

    private static final List<String> MECHANISMS = List.of("time", "trace_idx", "attr_idx", "zone_maps", "batch_attr_idx", "limit");

    private final Counter lookups;
    private final Histogram latency;
    private final Counter listed;
    private final Counter pruned;
    private final Counter opened;
    private final Counter openedForNothing;
    private final Counter failedOpen;
    private final Counter unreadable;
    private final Counter rowsScanned;
    private final Counter bytesRead;
    private final Counter aborted;

    /** Registers the metrics in {@code registry}, reading cache sizes, hits and the memory queries hold from {@code engine}. */
    public QueryMetrics(PrometheusRegistry registry, QueryEngine engine) {
        SidecarCache cache = engine.sidecarCache();
        lookups = Counter.builder().name("needle_query_lookups_total")
                .help("Lookups run, per signal and kind of lookup").labelNames("signal", "kind").register(registry);
        latency = Histogram.builder().name("needle_query_latency_seconds")
                .help("Time the engine took for one request's lookups, per kind of lookup").labelNames("kind")
                // 0.5 ms to 16 s: a warm trace lookup is a few ms, a scan of a large store seconds.
                .classicOnly().classicExponentialUpperBounds(0.0005, 2, 16).register(registry);
        listed = counter(registry, "needle_query_blocks_listed_total", "Blocks considered by lookups", "signal");
        pruned = counter(registry, "needle_query_blocks_pruned_total",
                "Blocks skipped without reading a record batch, by the mechanism that skipped them", "signal", "mechanism");
        opened = counter(registry, "needle_query_blocks_opened_total", "Blocks opened by lookups", "signal");
        openedForNothing = counter(registry, "needle_query_blocks_opened_for_nothing_total",
                "Blocks opened that held no match (sidecar false positives, or no sidecar to help)", "signal");
        failedOpen = counter(registry, "needle_query_sidecars_failed_open_total",
                "Sidecars that could not be trusted, so that their block was scanned, by reason", "signal", "reason");
        unreadable = counter(registry, "needle_query_blocks_unreadable_total",
                "Blocks that could not be read, each making an answer partial", "signal");
        rowsScanned = counter(registry, "needle_query_rows_scanned_total", "Rows tested by lookups", "signal");
        bytesRead = counter(registry, "needle_query_read_bytes_total", "Bytes read from blocks by lookups", "signal");
        aborted = counter(registry, "needle_query_aborted_total",
                "Queries stopped at a limit: timeout, memory (one query's) or busy (all queries' memory)", "reason");
        for (QueryAbortedException.Reason reason : QueryAbortedException.Reason.values()) {
            aborted.initLabelValues(label(reason));
        }
        GaugeWithCallback.builder().name("needle_query_held_bytes")
                .help("Heap the records of the queries running now hold").callback(cb -> cb.call(engine.queryBytes()))
                .register(registry);
        GaugeWithCallback.builder().name("needle_query_sidecar_cache_bytes")
                .help("Bytes of decoded sidecars held in memory").callback(cb -> cb.call(cache.bytes())).register(registry);
        CounterWithCallback.builder().name("needle_query_sidecar_cache_hits_total")
                .help("Sidecar reads answered from memory").callback(cb -> cb.call(cache.hits())).register(registry);
        CounterWithCallback.builder().name("needle_query_sidecar_cache_misses_total")
                .help("Sidecar reads that read the file").callback(cb -> cb.call(cache.misses())).register(registry);
        // Series that exist from the start read 0 instead of being absent, so rates work from the first scrape.
        for (Signal signal : Signal.values()) {
            String s = signal.dirName();
            for (Kind kind : Kind.values()) {
                lookups.initLabelValues(s, kind.label);
            }
            for (String mechanism : MECHANISMS) {
                pruned.initLabelValues(s, mechanism);
            }
            for (Counter c : List.of(listed, opened, openedForNothing, unreadable, rowsScanned, bytesRead)) {
                c.initLabelValues(s);
            }
        }
        for (Kind kind : Kind.values()) {
            latency.initLabelValues(kind.label);
        }
    }

    private static Counter counter(PrometheusRegistry registry, String name, String help, String... labels) {
        return Counter.builder().name(name).help(help).labelNames(labels).register(registry);
    }

    /** Counts a query stopped at a limit. */
    public void aborted(QueryAbortedException.Reason reason) {
        aborted.labelValues(label(reason)).inc();
    }

    private static String label(QueryAbortedException.Reason reason) {
        return reason.name().toLowerCase(Locale.ROOT);
    }

    /** Counts one request's lookups: {@code nanos} the engine took and the plan of each signal looked up. */
    public void record(Kind kind, long nanos, List<Explain> plans) {
        latency.labelValues(kind.label).observe(nanos / 1e9);
        for (Explain plan : plans) {
            String s = plan.signal();
            Explain.Totals t = plan.totals();
            lookups.labelValues(s, kind.label).inc();
            listed.labelValues(s).inc(t.listed());
            pruned.labelValues(s, "time").inc(t.prunedByTime());
            pruned.labelValues(s, "trace_idx").inc(t.prunedByTraceIdx());
            pruned.labelValues(s, "attr_idx").inc(t.prunedByAttrIdx());
            pruned.labelValues(s, "zone_maps").inc(t.prunedByZoneMaps());
            pruned.labelValues(s, "batch_attr_idx").inc(t.prunedByBatchAttrIdx());
            pruned.labelValues(s, "limit").inc(t.skippedByLimit());
            opened.labelValues(s).inc(t.opened());
            openedForNothing.labelValues(s).inc(t.openedForNothing());
            for (Map.Entry<String, Integer> e : t.failedOpen().entrySet()) {
                failedOpen.labelValues(s, e.getKey()).inc(e.getValue());
            }
            unreadable.labelValues(s).inc(t.errors());
            rowsScanned.labelValues(s).inc(t.rowsScanned());
            bytesRead.labelValues(s).inc(t.bytesRead());
        }
    }
}
