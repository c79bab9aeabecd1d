package dev.needle.bench.scenario;

import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;

/**
 * Times one lookup as a serving process meets it: untimed runs first, so that "warm" means
 * JIT-compiled as well as cached, then timed runs until a count or a time budget is reached.
 */
final class WarmLoop {

    /** Untimed runs before the timed ones, when the budget allows. */
    static final int WARM_UP_RUNS = 20;
    /** Timed runs made whatever the budget, so that a median means something. */
    static final int MIN_RUNS = 3;

    /**
     * Latency of the timed runs.
     *
     * @param runs        how many were timed
     * @param p50Millis   their median
     * @param p99Millis   their 99th percentile
     */
    record Timing(int runs, double p50Millis, double p99Millis) {
    }

    /** One run of the lookup; it checks its own answer and throws when it is wrong. */
    @FunctionalInterface
    interface Run<E extends Exception> {
        void run() throws E;
    }

    private WarmLoop() {
    }

    /**
     * Untimed runs for up to a third of {@code budgetMillis} (a third at most, so that slow full scans
     * are not run for long), then up to {@code maxRuns} timed runs within {@code budgetMillis}.
     */
    static <E extends Exception> Timing time(int maxRuns, long budgetMillis, Run<E> run) throws E {
        long warmUpEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMillis / 3);
        for (int w = 0; w < WARM_UP_RUNS && System.nanoTime() < warmUpEnd; w++) {
            run.run();
        }
        Histogram latency = new Histogram(3);
        long budgetEnd = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(budgetMillis);
        int i = 0;
        while (i < maxRuns && (i < MIN_RUNS || System.nanoTime() < budgetEnd)) {
            long t = System.nanoTime();
            run.run();
            latency.recordValue(Math.max(1, (System.nanoTime() - t) / 1000));
            i++;
        }
        return new Timing(i, latency.getValueAtPercentile(50) / 1000.0, latency.getValueAtPercentile(99) / 1000.0);
    }
}
