package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A search with a limit decodes only the newest rows of a block, and still returns distinct records. */
class SearchLimitTest {

    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "limit")), 0, "");
    private static final Scope SCOPE = new Scope("limit-test", "1", List.of(), 0, "");
    private static final long T0 = 1_764_446_100_000_000_000L;
    /** Five batches of 8,192 rows: traces are spread over them, start times over the whole block. */
    private static final int SPANS = 40_000;

    @TempDir
    Path dir;

    @Test
    void matchAllWithALimit_decodesTheNewestRowsOnly_andLeavesOlderBatchesUnread() throws Exception {
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < SPANS; i++) {
            // Trace ids in the order of time, so that the writer's sort (by trace id) keeps the
            // newest spans together in the last batch.
            spans.add(span(i, i));
        }
        FsBlockStore store = write(spans);
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 1)) {
            SearchResult<SpanRecord> result = engine.searchSpans(TenantId.DEFAULT,
                    QueryParser.parse("{ }", Signal.SPANS), TimeRange.ALL, 20, Mechanisms.ALL);

            assertEquals(newestTimes(spans, 20), times(result.records()));
            BlockDecision block = result.plan().blocks().get(0);
            assertEquals(1, block.batchesRead(), "the newest batch holds the 20 newest spans: " + block);
            assertEquals(4, block.batchesSkipped(), block.toString());
            assertTrue(block.reason().endsWith("the first 20 decoded"), block.reason());
        }
    }

    @Test
    void aSpanStoredTwice_isOneRecord_andTheLimitStillReturnsThatManyDistinctOnes() throws Exception {
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            spans.add(span(i, i));
        }
        spans.add(span(99, 99));
        FsBlockStore store = write(spans);
        try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 1)) {
            SearchResult<SpanRecord> result = engine.searchSpans(TenantId.DEFAULT,
                    QueryParser.parse("{ }", Signal.SPANS), TimeRange.ALL, 2, Mechanisms.ALL);

            assertEquals(List.of(T0 + 99_000, T0 + 98_000), times(result.records()),
                    "the two newest distinct spans, although the two newest rows are one span");
        }
    }

    private FsBlockStore write(List<SpanRecord> spans) throws Exception {
        FsBlockStore store = new FsBlockStore(dir);
        try (BufferAllocator allocator = new RootAllocator()) {
            new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        }
        return store;
    }

    private static SpanRecord span(int trace, int i) {
        long start = T0 + i * 1_000L;
        return SpanRecord.builder().resource(RESOURCE).scope(SCOPE)
                .traceId(Bytes.fromHex(String.format("%032x", trace + 1)))
                .spanId(Bytes.fromHex(String.format("%016x", i + 1))).flags(1).name("op").kind(2)
                .startTimeUnixNano(start).endTimeUnixNano(start + 500).build();
    }

    private static List<Long> newestTimes(List<SpanRecord> spans, int n) {
        return spans.stream().map(SpanRecord::startTimeUnixNano).sorted(Comparator.reverseOrder()).limit(n).toList();
    }

    private static List<Long> times(List<SpanRecord> spans) {
        return spans.stream().map(SpanRecord::startTimeUnixNano).toList();
    }
}
