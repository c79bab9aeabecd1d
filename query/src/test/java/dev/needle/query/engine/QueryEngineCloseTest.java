package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.ForwardingBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.reads.RequestCounter;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Closing the engine while a query reads blocks: the read finishes with its whole answer before the memory is freed. */
class QueryEngineCloseTest {

    private static final TenantId TENANT = TenantId.of("team-a");

    @TempDir
    Path dir;

    /** The real store, whose first block read waits until the test lets it go on. */
    private static final class HeldStore extends ForwardingBlockStore {
        final CountDownLatch reading = new CountDownLatch(1);
        final CountDownLatch goOn = new CountDownLatch(1);

        HeldStore(BlockStore store) {
            super(store);
        }

        @Override
        public SeekableByteChannel open(BlockRef block, String file) throws IOException {
            hold();
            return store.open(block, file);
        }

        @Override
        public SeekableByteChannel open(BlockRef block, String file, RequestCounter counter) throws IOException {
            hold();
            return store.open(block, file, counter);
        }

        @Override
        public SeekableByteChannel openKnown(BlockRef block, String file, long size, RequestCounter counter)
                throws IOException {
            hold();
            return store.openKnown(block, file, size, counter);
        }

        private void hold() throws IOException {
            reading.countDown();
            try {
                goOn.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }
    }

    @Test
    void close_whileABlockIsRead_waitsForTheReadAndLaterQueriesFail() throws Exception {
        Corpus corpus;
        try (RootAllocator allocator = new RootAllocator()) {
            corpus = Corpus.write(new FsBlockStore(dir), allocator, TENANT, 3, 1, 200);
        }
        Bytes trace = corpus.traceIds.get(0);
        long expected = corpus.spans.stream().filter(s -> s.traceId().equals(trace)).count();
        HeldStore store = new HeldStore(new FsBlockStore(dir));
        QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);

        CompletableFuture<List<SpanRecord>> query = CompletableFuture.supplyAsync(() -> {
            try {
                return engine.trace(TENANT, trace, TimeRange.ALL, Mechanisms.ALL, false).spans();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        assertTrue(store.reading.await(30, TimeUnit.SECONDS), "the query reads a block");
        CompletableFuture<Void> close = CompletableFuture.runAsync(engine::close);
        Thread.sleep(200);
        assertFalse(close.isDone(), "close waits for the read in flight");

        store.goOn.countDown();
        assertEquals(expected, query.get(30, TimeUnit.SECONDS).size(), "the read in flight answers whole");
        close.get(30, TimeUnit.SECONDS);
        IllegalStateException closed = assertThrows(IllegalStateException.class,
                () -> engine.trace(TENANT, trace, TimeRange.ALL, Mechanisms.ALL, false));
        assertEquals("the query engine is closed", closed.getMessage());
    }
}
