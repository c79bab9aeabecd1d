package dev.needle.query.engine;

import dev.needle.blocks.store.BlockStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The engine's threads: the pool that reads blocks, as many at once as the store serves well
 * ({@link BlockStore#blocksReadAtOnce}), and the one that runs a trace search's whole-trace lookups.
 * Each of those lookups waits for its block reads in the first pool, so they run in the second,
 * never in the first, whose threads would then wait on each other.
 */
final class QueryPools implements AutoCloseable {

    private final ExecutorService pool;
    private final ExecutorService lookups;
    /** The blocks of a search's first wave. */
    private final int threads;
    /** How many blocks are read at once: the size of {@link #pool}, and of a search's widest waves. */
    private final int readers;

    /** Pools reading up to {@code threads} blocks at once, more on an object store. */
    QueryPools(BlockStore store, int threads) {
        this.threads = threads;
        this.readers = store.blocksReadAtOnce(threads);
        this.pool = daemonPool(readers, "needle-query");
        this.lookups = daemonPool(readers, "needle-trace-lookup");
    }

    private static ExecutorService daemonPool(int threads, String name) {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** The blocks of a search's first wave: the threads the engine was given. */
    int firstWave() {
        return Math.max(1, threads);
    }

    /** How many blocks are read at once, the most a search's wave reads. */
    int readers() {
        return readers;
    }

    /** Runs {@code work} on each block in the pool, each task first checking that the query may go on. */
    <X, T> List<T> runAll(List<X> blocks, Function<X, T> work, QueryBudget budget) {
        List<Future<T>> futures = new ArrayList<>(blocks.size());
        try {
            for (X block : blocks) {
                futures.add(pool.submit(() -> {
                    budget.check();
                    return work.apply(block);
                }));
            }
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the query engine is closed", e);
        }
        return awaitAll(futures);
    }

    /** Runs each of {@code tasks} at once in the lookups' pool and gives their results in order, as {@link #awaitAll}. */
    <T> List<T> runLookups(List<Callable<T>> tasks) {
        List<Future<T>> futures = new ArrayList<>(tasks.size());
        try {
            for (Callable<T> task : tasks) {
                futures.add(lookups.submit(task));
            }
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the query engine is closed", e);
        }
        return awaitAll(futures);
    }

    /**
     * The results of every future, in order, once all are done: a query whose task failed (or that
     * passed a limit, which makes its other tasks stop at their next check) answers only when none of
     * its tasks still reads, so that nothing of it is left running. Rethrows the first failure as it
     * was thrown, but for a checked exception, which is wrapped.
     */
    private static <T> List<T> awaitAll(List<Future<T>> futures) {
        List<T> results = new ArrayList<>(futures.size());
        Throwable failure = null;
        for (Future<T> f : futures) {
            try {
                results.add(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.forEach(g -> g.cancel(true));
                throw new IllegalStateException("interrupted while reading blocks", e);
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
                results.add(null);
            }
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        return results;
    }

    /** Waits (up to a minute each) for the trace lookups and block reads in flight; later tasks are refused. */
    @Override
    public void close() {
        // The trace lookups first: those in flight still hand block reads to the pool.
        finish(lookups);
        finish(pool);
    }

    private static void finish(ExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(1, TimeUnit.MINUTES)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
    }
}
