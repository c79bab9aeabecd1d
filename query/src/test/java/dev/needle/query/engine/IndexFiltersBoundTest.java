package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filters the engine holds of the store's index count under the sidecar cache's bound: the
 * cache keeps only what they leave, and they are held whole, answering, when they alone pass it.
 */
class IndexFiltersBoundTest {

    private static final TenantId TENANT = TenantId.DEFAULT;

    @TempDir
    Path dir;

    @Test
    void cacheKeepsWhatTheIndexLeaves_andAnIndexPastTheBoundIsStillHeldWhole() throws Exception {
        try (RootAllocator allocator = new RootAllocator()) {
            FsBlockStore store = new FsBlockStore(dir);
            Corpus corpus = Corpus.write(store, allocator, TENANT, 17, 5, 300);
            Corpus.writeIndex(store, TENANT);
            Bytes traceId = corpus.traceIds.get(corpus.traceIds.size() / 3);
            List<SpanRecord> expected = corpus.spans.stream().filter(s -> s.traceId().equals(traceId))
                    .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
            long index;
            long sidecars;
            try (QueryEngine roomy = new QueryEngine(store, HeadSource.EMPTY, 64L << 20, 1)) {
                roomy.preloadSidecars();
                index = roomy.indexBytes();
                sidecars = roomy.sidecarCache().bytes();
            }
            assertTrue(index > 0 && sidecars > 0, index + " bytes of index filters, " + sidecars + " of sidecars");

            long bound = index + sidecars / 2;
            try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, bound, 1)) {
                engine.preloadSidecars();
                engine.searchSpans(TENANT, QueryParser.parse("{ span.user.id = \"u17\" }", Signal.SPANS), TimeRange.ALL,
                        20, Mechanisms.ALL);
                assertEquals(expected, engine.trace(TENANT, traceId, TimeRange.ALL, Mechanisms.ALL, false).spans());
                assertEquals(index, engine.indexBytes());
                long cached = engine.sidecarCache().bytes();
                assertTrue(cached > 0 && cached + index <= bound, cached + " bytes cached beside " + index + " of"
                        + " index filters, bound " + bound);
            }

            try (QueryEngine tight = new QueryEngine(store, HeadSource.EMPTY, index / 2, 1)) {
                tight.preloadSidecars();
                TraceResult found = tight.trace(TENANT, traceId, TimeRange.ALL, Mechanisms.ALL, false);
                assertEquals(expected, found.spans());
                assertTrue(found.spanPlan().source().startsWith("the index"), found.spanPlan().source());
                assertEquals(index, tight.indexBytes(), "held whole");
                assertEquals(0, tight.sidecarCache().bytes(), "nothing is left for the cache");
            }
        }
    }
}
