package dev.needle.ingest.server;

import dev.needle.blocks.compact.Compactor;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's compactor in the background: one pass every interval (the next starts an interval after
 * the last ended, so one at a time), on a thread of its own at the lowest priority, so that ingest's
 * threads come first where the operating system honours Java priorities. A failed pass is logged and
 * the next one tries again; an interrupted one is finished by the next (see {@link Compactor}).
 *
 * <table>
 * <caption>Metrics</caption>
 * <tr><th>name</th><th>type</th><th>counts</th></tr>
 * <tr><td>{@code needle_compaction_blocks{tenant,signal}}</td><td>gauge</td><td>blocks that answer queries, after the last pass</td></tr>
 * <tr><td>{@code needle_compaction_backlog_blocks{tenant,signal}}</td><td>gauge</td><td>small blocks a pass would merge, after the last pass</td></tr>
 * <tr><td>{@code needle_compactions_total}</td><td>counter</td><td>merges done (each writes one block)</td></tr>
 * <tr><td>{@code needle_compaction_blocks_rewritten_total}</td><td>counter</td><td>blocks merged into others</td></tr>
 * <tr><td>{@code needle_compaction_rows_rewritten_total}</td><td>counter</td><td>rows written again</td></tr>
 * <tr><td>{@code needle_compaction_bytes_rewritten_total}</td><td>counter</td><td>data.arrow bytes written again</td></tr>
 * <tr><td>{@code needle_compaction_failures_total}</td><td>counter</td><td>passes that failed</td></tr>
 * </table>
 */
final class Compaction implements Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(Compaction.class);

    private final Compactor compactor;
    private final Duration grace;
    private final AtomicLong failures = new AtomicLong();
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "needle-compactor");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        return t;
    });

    /**
     * Starts passes of {@code compactor} every {@code every}, the first one after {@code every}; a pass
     * that leaves replaced blocks waiting deletes them once their {@code grace} has passed.
     */
    Compaction(Compactor compactor, Duration every, Duration grace, PrometheusRegistry registry) {
        this.compactor = compactor;
        this.grace = grace;
        register(registry);
        thread.scheduleWithFixedDelay(this::pass, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void pass() {
        try {
            compactor.run(false);
            if (compactor.deletionsDue()) {
                // Deleted then rather than an interval later: replaced blocks only take room meanwhile.
                thread.schedule(this::deleteDue, grace.toMillis() + 1, TimeUnit.MILLISECONDS);
            }
        } catch (IOException | RuntimeException e) {
            failures.incrementAndGet();
            LOG.error("compaction: the pass failed ({}); the next one finishes what it left", e.toString());
        }
    }

    private void deleteDue() {
        try {
            compactor.deleteDue();
        } catch (IOException | RuntimeException e) {
            LOG.warn("compaction: deleting replaced blocks failed ({}); the next pass tries again", e.toString());
        }
    }

    private void register(PrometheusRegistry registry) {
        GaugeWithCallback.builder().name("needle_compaction_blocks").labelNames("tenant", "signal")
                .help("Blocks that answer queries, per tenant and signal, after the last compaction pass")
                .callback(cb -> compactor.signals().forEach(s ->
                        cb.call(s.blocks(), s.tenant().value(), s.signal().dirName())))
                .register(registry);
        GaugeWithCallback.builder().name("needle_compaction_backlog_blocks").labelNames("tenant", "signal")
                .help("Small blocks a compaction pass would merge, per tenant and signal, after the last pass")
                .callback(cb -> compactor.signals().forEach(s ->
                        cb.call(s.backlog(), s.tenant().value(), s.signal().dirName())))
                .register(registry);
        CounterWithCallback.builder().name("needle_compactions_total").help("Compaction merges done (one block written each)")
                .callback(cb -> cb.call(compactor.compactions())).register(registry);
        CounterWithCallback.builder().name("needle_compaction_blocks_rewritten_total").help("Blocks merged into others")
                .callback(cb -> cb.call(compactor.blocksRewritten())).register(registry);
        CounterWithCallback.builder().name("needle_compaction_rows_rewritten_total").help("Rows written again by compaction")
                .callback(cb -> cb.call(compactor.rowsRewritten())).register(registry);
        CounterWithCallback.builder().name("needle_compaction_bytes_rewritten_total")
                .help("data.arrow bytes written again by compaction")
                .callback(cb -> cb.call(compactor.bytesRewritten())).register(registry);
        CounterWithCallback.builder().name("needle_compaction_failures_total").help("Compaction passes that failed")
                .callback(cb -> cb.call(failures.get())).register(registry);
    }

    /**
     * Waits for a pass in flight (up to a minute), then out the grace of the blocks it replaced, deletes
     * them (so that a stopped server leaves no replaced blocks behind), and frees the compactor.
     */
    @Override
    public void close() {
        // Periodic passes end here; a deletion already scheduled still runs.
        thread.shutdown();
        try {
            if (thread.awaitTermination(1, TimeUnit.MINUTES) && compactor.deletionsDue()) {
                Thread.sleep(grace.toMillis() + 1);
                compactor.deleteDue();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException | RuntimeException e) {
            LOG.warn("compaction: deleting replaced blocks at shutdown failed ({}); the next start does it", e.toString());
        }
        compactor.close();
    }
}
