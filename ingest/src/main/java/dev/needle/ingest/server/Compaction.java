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
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's compactor in the background: one pass every interval (the next starts an interval after
 * the last ended, so one at a time), on a thread of its own at the lowest priority, so that ingest's
 * threads come first where the operating system honours Java priorities. A failed pass is logged and
 * the next one tries again; an interrupted one is finished by the next (see {@link Compactor}).
 *
 * <p><b>Ingest first.</b> While ingest is busy (its head was above half its bound in the last seconds)
 * a pass merges nothing unless a tenant's signal has {@link #MAX_DEFERRED_BACKLOG} small blocks or more
 * waiting: on two cores a merge took a fifth of the CPU from the publisher, whose pace is what ingest
 * is bounded by, to rewrite blocks ingest had just published. Once ingest is quiet the next pass merges
 * the backlog; under load that never ends, merges go on as soon as the backlog reaches the cap, so the
 * block count stays bounded either way. Deferring whole passes was chosen over writing larger cuts or
 * raising the size below which blocks are merged: both would change which blocks exist when ingest is
 * quiet, which a deferral leaves as it was.
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
 * <tr><td>{@code needle_compaction_deferred_merges_total}</td><td>counter</td><td>merges a pass left to a later one
 *     while ingest was busy (each counted at every pass that left it)</td></tr>
 * <tr><td>{@code needle_compaction_paused}</td><td>gauge</td><td>1 when the last pass left merges to a later one
 *     while ingest was busy, else 0</td></tr>
 * </table>
 */
final class Compaction implements Closeable {

    /**
     * Small blocks of one tenant's signal past which a pass merges while ingest is busy: a lookup then
     * reads at most this many more blocks' sidecars than after a pass, and a pass at the cap merges
     * only down to it again.
     */
    static final int MAX_DEFERRED_BACKLOG = 32;

    private static final Logger LOG = LoggerFactory.getLogger(Compaction.class);

    private final Compactor compactor;
    private final Duration grace;
    private final BooleanSupplier ingestBusy;
    private final AtomicLong failures = new AtomicLong();
    /** Whether the last pass left merges to a later one because ingest was busy. */
    private volatile boolean paused;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "needle-compactor");
        t.setDaemon(true);
        t.setPriority(Thread.MIN_PRIORITY);
        return t;
    });

    /**
     * Starts passes of {@code compactor} every {@code every}, the first one after {@code every}, deferring
     * merges while {@code ingestBusy} says so (see above); a pass that leaves replaced blocks waiting deletes
     * them once their {@code grace} has passed.
     */
    Compaction(Compactor compactor, Duration every, Duration grace, BooleanSupplier ingestBusy,
               PrometheusRegistry registry) {
        this.compactor = compactor;
        this.grace = grace;
        this.ingestBusy = ingestBusy;
        register(registry);
        thread.scheduleWithFixedDelay(this::pass, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void pass() {
        try {
            long deferredBefore = compactor.mergesDeferred();
            compactor.run(false, backlog -> backlog < MAX_DEFERRED_BACKLOG && ingestBusy.getAsBoolean());
            paused = compactor.mergesDeferred() > deferredBefore;
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
        CounterWithCallback.builder().name("needle_compaction_deferred_merges_total")
                .help("Merges a compaction pass left to a later one while ingest was busy")
                .callback(cb -> cb.call(compactor.mergesDeferred())).register(registry);
        GaugeWithCallback.builder().name("needle_compaction_paused")
                .help("1 when the last compaction pass left merges to a later one while ingest was busy, else 0")
                .callback(cb -> cb.call(paused ? 1 : 0)).register(registry);
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
