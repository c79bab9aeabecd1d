package dev.needle.blocks.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The golden blocks of writer version 1, written once and never regenerated, still read back as
 * the records they were written from: a change to the schema, the value encoding, meta.json or
 * the sidecar keys that would make old blocks unreadable or wrongly pruned fails here.
 */
class GoldenBlockTest {

    private static final Path DATA = Path.of("src/test/resources/golden/data");
    private BufferAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
        store = FsBlockStore.readOnly(DATA);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    @Test
    void spansBlock_decodesToItsRecordsInTraceOrder() throws IOException {
        List<SpanRecord> expected = new ArrayList<>(GoldenBlocks.spans());
        expected.sort(Comparator.comparing(SpanRecord::traceId).thenComparingLong(SpanRecord::startTimeUnixNano));
        try (BlockReader reader = BlockReader.open(store, only(Signal.SPANS), allocator)) {
            assertEquals(3, reader.batchCount());
            assertEquals(20, reader.meta().orElseThrow().rows());
            List<SpanRecord> actual = new ArrayList<>();
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    SpanColumns columns = new SpanColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        actual.add(columns.read(row));
                    }
                }
            }
            assertEquals(expected, actual);
        }
    }

    @Test
    void logsBlock_decodesToItsRecordsInTimeOrder() throws IOException {
        List<LogRecord> expected = new ArrayList<>(GoldenBlocks.logs());
        expected.sort(Comparator.comparingLong(LogRecord::eventTimeUnixNano));
        try (BlockReader reader = BlockReader.open(store, only(Signal.LOGS), allocator)) {
            List<LogRecord> actual = new ArrayList<>();
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    LogColumns columns = new LogColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        actual.add(columns.read(row));
                    }
                }
            }
            assertEquals(expected, actual);
        }
    }

    @Test
    void spansBlock_sidecarsHoldItsTraceIdsAndPairsUnderDocumentedKeys() throws IOException {
        try (BlockReader reader = BlockReader.open(store, only(Signal.SPANS), allocator)) {
            Sidecar traceIdx = reader.sidecar(BloomSidecar.TRACE_IDX);
            Sidecar attrIdx = reader.sidecar(BloomSidecar.ATTR_IDX);
            assertTrue(traceIdx.isVerified() && attrIdx.isVerified());
            for (SpanRecord s : GoldenBlocks.spans()) {
                assertTrue(traceIdx.mayContainTraceId(s.traceId().unsafeArray()));
            }
            assertTrue(attrIdx.mayContain(AttributeHash.ofString("resource.service.name", "checkout")));
            assertTrue(attrIdx.mayContain(AttributeHash.ofString("resource.k8s.pod.name", "api-7f9")));
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("span.http.response.status_code", 500)));
            assertTrue(attrIdx.mayContain(AttributeHash.ofDouble("span.sampling.ratio", 0.25)));
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("span.sampling.ratio", 1)));
            assertTrue(attrIdx.mayContain(AttributeHash.ofBool("span.cache.hit", true)));
            assertTrue(attrIdx.mayContain(AttributeHash.ofString("scope.library.language", "java")));
            assertTrue(attrIdx.mayContain(AttributeHash.ofString("intrinsic.name", "GET /api/cart")));
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("intrinsic.status", 2)));
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("intrinsic.kind", 5)));
            assertTrue(attrIdx.mayHoldDoubles());
            assertFalse(attrIdx.mayContain(AttributeHash.ofString("resource.service.name", "payment")),
                    "a four-word filter of ~25 pairs rules this absent value out; if not, pick another");
        }
    }

    private BlockRef only(Signal signal) throws IOException {
        List<BlockRef> blocks = store.list(TenantId.DEFAULT, signal);
        assertEquals(1, blocks.size());
        return blocks.get(0);
    }
}
