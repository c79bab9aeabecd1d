package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An opened block's meta.json and Arrow footer are kept beside the sidecars, so the next lookup
 * that opens the block reads neither; a data.arrow that changed size since is read afresh, and
 * reported damaged, never answered from what was kept.
 */
class BlockFactsCacheTest {

    private static final TenantId TENANT = TenantId.DEFAULT;

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;
    private Corpus corpus;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        corpus = Corpus.write(store, allocator, TENANT, 43, 3, 400);
    }

    @AfterEach
    void tearDown() {
        allocator.close();
    }

    @Test
    void secondLookup_opensTheBlockWithoutReadingMetaOrFooter_andAnswersTheSame() throws IOException {
        Bytes traceId = corpus.traceIds.get(corpus.traceIds.size() / 2);
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 1)) {
            TraceResult first = engine.trace(TENANT, traceId, TimeRange.ALL, Mechanisms.NONE, false);
            TraceResult second = engine.trace(TENANT, traceId, TimeRange.ALL, Mechanisms.NONE, false);

            assertEquals(expected(traceId), first.spans());
            assertEquals(first.spans(), second.spans());
            for (int b = 0; b < first.spanPlan().blocks().size(); b++) {
                BlockDecision opened = first.spanPlan().blocks().get(b);
                BlockDecision reopened = second.spanPlan().blocks().get(b);
                // With no sidecar read (Mechanisms.NONE), deciding is opening: meta.json and the footer.
                assertTrue(opened.bytesToDecide() > 0, opened.toString());
                assertEquals(0, reopened.bytesToDecide(), "the second open reads nothing to decide: " + reopened);
                assertEquals(opened.bytesRead() - opened.bytesToDecide(), reopened.bytesRead(), reopened.toString());
            }
        }
    }

    @Test
    void dataArrowTruncatedAfterItsFactsWereKept_isAFailedBlockNotAnAnswer() throws IOException {
        Bytes traceId = corpus.spans.get(0).traceId();
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 1)) {
            assertEquals(expected(traceId), engine.trace(TENANT, traceId, TimeRange.ALL, Mechanisms.NONE, false).spans());
            Path data = store.blockDir(corpus.spanBlocks.get(0)).resolve(BlockLayout.DATA);
            try (RandomAccessFile file = new RandomAccessFile(data.toFile(), "rw")) {
                file.setLength(file.length() - 100);
            }

            TraceResult after = engine.trace(TENANT, traceId, TimeRange.ALL, Mechanisms.NONE, false);

            assertTrue(after.partial(), "a truncated data.arrow must make the answer partial");
            assertTrue(after.problems().get(0).contains(corpus.spanBlocks.get(0).toString()), after.problems().toString());
        }
    }

    private List<SpanRecord> expected(Bytes traceId) {
        return corpus.spans.stream().filter(s -> s.traceId().equals(traceId))
                .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
    }
}
