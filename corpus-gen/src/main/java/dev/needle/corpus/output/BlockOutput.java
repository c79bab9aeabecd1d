package dev.needle.corpus.output;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.Tally;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.LongConsumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Writes a corpus straight into a data directory as published blocks, one per chunk, chunks made
 * and written on several threads. Block ids and meta.json's write time come from the spec, so the
 * same spec gives the same bytes; a server started on the directory serves them as its own.
 */
public final class BlockOutput {

    /** What was written: the merged tallies and the blocks' bytes. */
    public record Result(Tally spans, Tally logs, int blocks, long dataBytes, long sidecarBytes) {
    }

    private BlockOutput() {
    }

    /**
     * Writes every span and log chunk of {@code corpus} as blocks of {@code tenant} under {@code data},
     * on {@code threads} threads; {@code progress} hears how many records each finished block held.
     */
    public static Result write(Corpus corpus, Path data, TenantId tenant, int threads, BlockWriter.Options options,
                               LongConsumer progress) throws IOException, InterruptedException {
        FsBlockStore store = new FsBlockStore(data);
        long end = corpus.spec().startUnixNano() + corpus.spec().windowNanos();
        Clock writtenAt = Clock.fixed(Instant.ofEpochSecond(0, end), ZoneOffset.UTC);
        String prefix = "gen" + String.format("%016x", corpus.spec().seed());
        Tally spans = corpus.spanTally();
        Tally logs = corpus.logTally();
        List<Callable<WrittenBlock>> tasks = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "needle-gen");
            t.setDaemon(true);
            return t;
        });
        try (BufferAllocator allocator = new RootAllocator()) {
            BlockWriter writer = new BlockWriter(store, allocator, options, writtenAt);
            for (int c = 0; c < corpus.spanChunks(); c++) {
                int chunk = c;
                tasks.add(task(writer, SignalKind.SPANS, tenant, () -> corpus.spans(chunk),
                        prefix + "s" + (corpus.firstSpanChunk() + chunk), spans, progress));
            }
            for (int c = 0; c < corpus.logChunks(); c++) {
                int chunk = c;
                tasks.add(task(writer, SignalKind.LOGS, tenant, () -> corpus.logs(chunk),
                        prefix + "l" + (corpus.firstLogChunk() + chunk), logs, progress));
            }
            List<Future<WrittenBlock>> futures = new ArrayList<>();
            for (Callable<WrittenBlock> task : tasks) {
                futures.add(pool.submit(task));
            }
            long dataBytes = 0;
            long sidecarBytes = 0;
            for (Future<WrittenBlock> future : futures) {
                WrittenBlock block = await(future);
                dataBytes += block.meta().dataBytes();
                sidecarBytes += block.sidecarBytes();
            }
            return new Result(spans, logs, futures.size(), dataBytes, sidecarBytes);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Makes a chunk with {@code make} and writes it as block {@code id}, merging what it holds into {@code tally}. */
    private static <R> Callable<WrittenBlock> task(BlockWriter writer, SignalKind<R> kind, TenantId tenant,
                                                   Callable<Corpus.Chunk<R>> make, String id, Tally tally,
                                                   LongConsumer progress) {
        return () -> {
            Corpus.Chunk<R> made = make.call();
            WrittenBlock block = writer.write(kind, tenant, made.records(), id, List.of());
            tally.merge(made.tally());
            progress.accept(made.records().size());
            return block;
        };
    }

    private static WrittenBlock await(Future<WrittenBlock> future) throws IOException, InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException("writing a block failed", e.getCause());
        }
    }
}
