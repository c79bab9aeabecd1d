package dev.needle.corpus.output;

import dev.needle.corpus.Corpus;
import dev.needle.corpus.Tally;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * A corpus's records of one signal as batches of at most {@code batch} records, in chunk order,
 * with the next chunks made ahead on a pool so that a sender or file writer never waits for the
 * generator longer than it must. Each chunk's tally is merged into the totals once it is made.
 * Not thread-safe: callers that share it synchronize {@link #next()}, as the OTLP outputs do.
 */
public final class Batches<R> implements Iterator<List<R>> {

    private final int chunks;
    private final IntFunction<Corpus.Chunk<R>> make;
    private final int batch;
    private final int ahead;
    private final ExecutorService pool;
    private final Tally totals;
    private final ArrayDeque<Future<Corpus.Chunk<R>>> pending = new ArrayDeque<>();
    private int submitted;
    private List<R> current = List.of();
    private int offset;

    /** Batches over chunks {@code 0 .. chunks-1} made by {@code make}, {@code ahead} chunks in flight on {@code pool}. */
    public Batches(int chunks, IntFunction<Corpus.Chunk<R>> make, int batch, int ahead, ExecutorService pool, Tally totals) {
        if (batch < 1 || ahead < 1) {
            throw new IllegalArgumentException("batch and ahead must be ≥ 1");
        }
        this.chunks = chunks;
        this.make = make;
        this.batch = batch;
        this.ahead = ahead;
        this.pool = pool;
        this.totals = totals;
        fill();
    }

    @Override
    public boolean hasNext() {
        while (offset >= current.size()) {
            if (pending.isEmpty()) {
                return false;
            }
            current = await(pending.removeFirst()).records();
            offset = 0;
            fill();
        }
        return true;
    }

    @Override
    public List<R> next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        int end = Math.min(current.size(), offset + batch);
        List<R> out = current.subList(offset, end);
        offset = end;
        return out;
    }

    private void fill() {
        while (pending.size() < ahead && submitted < chunks) {
            int chunk = submitted++;
            pending.addLast(pool.submit(() -> {
                Corpus.Chunk<R> made = make.apply(chunk);
                totals.merge(made.tally());
                return made;
            }));
        }
    }

    private static <T> T await(Future<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CancellationException("interrupted while waiting for the generator");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException("generating a chunk failed", e.getCause());
        }
    }
}
