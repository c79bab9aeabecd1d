package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.sidecar.BloomSidecar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Preparing an engine for its first queries: sidecars read ahead (a full cache stops the pass, evicting none), and a warm-up lookup. */
class SidecarPreloadTest {

    private static final Bytes ABSENT = Bytes.fromHex("00000000000000000000000000abcdef");

    @TempDir
    Path dir;

    @Test
    void preloadedSidecars_areNotReadAgainByTheFirstLookups() throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        Corpus corpus = writeCorpus(store);
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 64L << 20, 2)) {
            int blocks = corpus.spanBlocks.size() + corpus.logBlocks.size();
            assertEquals(3 * blocks, engine.preloadSidecars(), "TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX of every block");

            TraceResult result = engine.trace(TenantId.DEFAULT, ABSENT, TimeRange.ALL, Mechanisms.ALL, true);

            assertTrue(result.spans().isEmpty());
            assertEquals(0, result.spanPlan().totals().bytesRead(), "every span block ruled out from memory");
            assertEquals(0, result.logPlan().totals().bytesRead(), "every log block ruled out from memory");
            assertEquals(0, engine.sidecarCache().misses());
        }
    }

    @Test
    void aCacheTooSmallForEverySidecar_holdsTheNewestBlocks_andEvictsNone() throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        Corpus corpus = writeCorpus(store);
        BlockRef newest = corpus.logBlocks.get(corpus.logBlocks.size() - 1);
        long room = 3 * Files.size(store.blockDir(newest).resolve(BloomSidecar.ATTR_IDX));
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, room, 2)) {
            int held = engine.preloadSidecars();
            long bytes = engine.sidecarCache().bytes();

            assertTrue(held >= 1 && held < 3 * (corpus.spanBlocks.size() + corpus.logBlocks.size()), "held " + held);
            assertTrue(bytes > 0 && bytes <= room, bytes + " bytes in a cache of " + room);
            assertEquals(held, engine.preloadSidecars(), "a second pass finds the same sidecars: none was evicted");
            assertEquals(bytes, engine.sidecarCache().bytes());
            TraceResult result = engine.trace(TenantId.DEFAULT, ABSENT, TimeRange.ALL, Mechanisms.ALL, true);
            assertTrue(engine.sidecarCache().hits() >= 1, "the newest blocks' sidecars came from the cache");
            assertTrue(result.spans().isEmpty());
        }
    }

    @Test
    void aCacheForTheBlockSidecarsOnly_holdsTraceIdxAndAttrIdxOfEveryBlock_beforeAnyBatchAttrIdx() throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        Corpus corpus = writeCorpus(store);
        List<BlockRef> blocks = new ArrayList<>(corpus.spanBlocks);
        blocks.addAll(corpus.logBlocks);
        long blockSidecars = 0;
        for (BlockRef ref : blocks) {
            for (String file : List.of(BloomSidecar.TRACE_IDX, BloomSidecar.ATTR_IDX)) {
                blockSidecars += BlockReader.readSidecar(store, ref, file).sizeInBytes();
            }
        }
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, blockSidecars, 2)) {
            assertEquals(2 * blocks.size(), engine.preloadSidecars());
            assertEquals(blockSidecars, engine.sidecarCache().bytes());
        }
    }

    @Test
    void warmUp_looksUpOneTraceOfTheNewestSpanBlock_andOnAnEmptyStoreNothing() throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 64L << 20, 2)) {
            engine.warmUp();
            assertEquals(0, engine.sidecarCache().misses() + engine.sidecarCache().hits());
        }
        Corpus corpus = writeCorpus(store);
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 64L << 20, 2)) {
            engine.warmUp();
            // One TRACE_IDX read per span block and one per log block: a whole trace lookup ran.
            assertEquals(corpus.spanBlocks.size() + corpus.logBlocks.size(), engine.sidecarCache().misses());
        }
    }

    private static Corpus writeCorpus(FsBlockStore store) throws IOException {
        try (BufferAllocator allocator = new RootAllocator()) {
            return Corpus.write(store, allocator, TenantId.DEFAULT, 5, 4, 500);
        }
    }
}
