package dev.needle.blocks.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.roaringbitmap.RoaringBitmap;

/**
 * Looking up one trace in a 300,000-span block reads one batch's trace-id column plus the rest of
 * that batch, not the block: zone maps pick the batch, the trace-id column picks the rows.
 */
class TraceLookupBytesTest {

    private static final int TRACES = 30_000;
    private static final int SPANS_PER_TRACE = 10;
    private static final int SPANS = TRACES * SPANS_PER_TRACE;

    @TempDir
    static Path dir;
    private static FsBlockStore store;
    private static WrittenBlock block;
    /** The input, in the writer's order: by trace id, then start time. */
    private static List<SpanRecord> sorted;

    private BufferAllocator allocator;

    @BeforeAll
    static void writeBlock() throws IOException {
        store = new FsBlockStore(dir);
        List<SpanRecord> spans = generate(new SplittableRandom(300_000));
        try (BufferAllocator writing = new RootAllocator()) {
            block = new BlockWriter(store, writing).writeSpans(TenantId.DEFAULT, spans);
        }
        sorted = new ArrayList<>(spans);
        sorted.sort(Comparator.comparing(SpanRecord::traceId).thenComparingLong(SpanRecord::startTimeUnixNano));
    }

    @AfterAll
    static void forget() {
        sorted = null;
    }

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    @Test
    void lookUpTrace_notOnABatchBoundary_readsOneBatchTraceIdColumnThenThatBatch() throws IOException {
        // A trace whose ten rows sit in the middle of batch 17.
        int rank = (17 * BlockLayout.MAX_BATCH_ROWS + 4_000) / SPANS_PER_TRACE;
        Bytes traceId = sorted.get(rank * SPANS_PER_TRACE).traceId();
        List<SpanRecord> expected = spansOf(traceId);
        assertEquals(SPANS_PER_TRACE, expected.size());

        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long opened = reader.bytesRead();
            BlockMeta meta = reader.meta().orElseThrow(() -> new AssertionError(reader.metaProblem()));
            assertEquals(SPANS, meta.rows());
            assertEquals((SPANS + BlockLayout.MAX_BATCH_ROWS - 1) / BlockLayout.MAX_BATCH_ROWS, reader.batchCount());

            List<Integer> candidates = candidateBatches(meta, traceId);
            assertEquals(List.of(17), candidates, "zone maps must pick exactly the one batch holding the trace");
            int batch = candidates.get(0);

            long beforeColumn = reader.bytesRead();
            List<SpanRecord> found = new ArrayList<>();
            long columnBytes;
            long restBytes;
            try (VectorSchemaRoot ids = reader.read(batch, List.of(SpanColumns.TRACE_ID))) {
                assertEquals(1, ids.getFieldVectors().size(), "only the trace-id column was read");
                columnBytes = reader.bytesRead() - beforeColumn;
                RoaringBitmap rows = matchingRows((FixedSizeBinaryVector) ids.getVector(SpanColumns.TRACE_ID), traceId);
                assertEquals(SPANS_PER_TRACE, rows.getCardinality());

                long beforeRest = reader.bytesRead();
                List<String> others = reader.schema().getFields().stream().map(Field::getName)
                        .filter(name -> !name.equals(SpanColumns.TRACE_ID)).toList();
                try (VectorSchemaRoot rest = reader.read(batch, others)) {
                    restBytes = reader.bytesRead() - beforeRest;
                    // One root over both reads, for decoding; the two reads own the vectors.
                    List<FieldVector> vectors = new ArrayList<>(rest.getFieldVectors());
                    vectors.add(ids.getVector(SpanColumns.TRACE_ID));
                    List<Field> fields = vectors.stream().map(FieldVector::getField).toList();
                    VectorSchemaRoot both = new VectorSchemaRoot(fields, vectors, rest.getRowCount());
                    SpanColumns columns = new SpanColumns(both);
                    for (int row : rows) {
                        found.add(columns.read(row));
                    }
                }
            }
            assertEquals(expected, found, "the spans of trace " + traceId);

            long wholeBatch;
            try (BlockReader fresh = BlockReader.open(store, block.ref(), allocator)) {
                long before = fresh.bytesRead();
                try (VectorSchemaRoot all = fresh.readAll(batch)) {
                    wholeBatch = fresh.bytesRead() - before;
                    assertEquals(BlockLayout.MAX_BATCH_ROWS, all.getRowCount());
                }
            }
            long wholeBlock;
            try (BlockReader fresh = BlockReader.open(store, block.ref(), allocator)) {
                long before = fresh.bytesRead();
                for (int b = 0; b < fresh.batchCount(); b++) {
                    try (VectorSchemaRoot all = fresh.readAll(b)) {
                        all.getRowCount();
                    }
                }
                wholeBlock = fresh.bytesRead() - before;
            }

            System.out.printf("trace lookup in a %,d-span block of %d batches (data.arrow %,d bytes):%n"
                            + "  open (meta.json + footer)      %,12d bytes%n"
                            + "  trace-id column of batch %d    %,12d bytes%n"
                            + "  other columns of that batch   %,12d bytes%n"
                            + "  whole batch (readAll)         %,12d bytes%n"
                            + "  whole block (readAll x %d)    %,12d bytes%n"
                            + "  total for the lookup          %,12d bytes%n",
                    SPANS, reader.batchCount(), meta.dataBytes(), opened, batch, columnBytes, restBytes, wholeBatch,
                    reader.batchCount(), wholeBlock, reader.bytesRead());

            int batchRows = meta.batches().get(batch).rows();
            assertEquals(BlockLayout.MAX_BATCH_ROWS, batchRows);
            assertTrue(columnBytes >= batchRows * 16L, "read " + columnBytes + " bytes, less than the ids themselves");
            assertTrue(columnBytes < 200_000, "read " + columnBytes + " bytes for one batch's trace-id column");
            assertTrue(columnBytes * 50 < meta.dataBytes(), columnBytes + " of " + meta.dataBytes() + " bytes");
            assertTrue(columnBytes + restBytes <= wholeBatch + 64 * 1024,
                    "column + rest " + (columnBytes + restBytes) + " vs whole batch " + wholeBatch);
            assertTrue(reader.bytesRead() - opened < meta.dataBytes() / 10,
                    "the lookup read " + (reader.bytesRead() - opened) + " of " + meta.dataBytes() + " bytes");
            assertTrue(wholeBlock >= meta.dataBytes() * 9 / 10, "reading every batch reads about the whole file");
        }
    }

    @Test
    void lookUpTrace_straddlingABatchBoundary_zoneMapsPickBothBatchesAndAllSpansAreFound() throws IOException {
        // The trace whose rows run from the end of batch 3 into batch 4 (rows 32,760..32,769).
        int firstRow = 4 * BlockLayout.MAX_BATCH_ROWS - 3;
        Bytes traceId = sorted.get(firstRow).traceId();
        List<SpanRecord> expected = spansOf(traceId);
        int start = sorted.indexOf(expected.get(0));
        assertTrue(start / BlockLayout.MAX_BATCH_ROWS != (start + SPANS_PER_TRACE - 1) / BlockLayout.MAX_BATCH_ROWS,
                "the chosen trace must straddle a boundary");

        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            BlockMeta meta = reader.meta().orElseThrow(() -> new AssertionError(reader.metaProblem()));
            List<Integer> candidates = candidateBatches(meta, traceId);
            assertEquals(List.of(3, 4), candidates);
            List<SpanRecord> found = new ArrayList<>();
            for (int batch : candidates) {
                RoaringBitmap rows;
                try (VectorSchemaRoot ids = reader.read(batch, List.of(SpanColumns.TRACE_ID))) {
                    rows = matchingRows((FixedSizeBinaryVector) ids.getVector(SpanColumns.TRACE_ID), traceId);
                }
                try (VectorSchemaRoot all = reader.readAll(batch)) {
                    SpanColumns columns = new SpanColumns(all);
                    for (int row : rows) {
                        found.add(columns.read(row));
                    }
                }
            }
            assertEquals(expected, found);
        }
    }

    @Test
    void zoneMaps_everyTrace_pickedBatchesHoldAllItsSpans() throws IOException {
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            List<BatchMeta> batches = reader.meta().orElseThrow().batches();
            for (int row = 0; row < sorted.size(); row += SPANS_PER_TRACE) {
                Bytes id = sorted.get(row).traceId();
                long first = row;
                long last = row + SPANS_PER_TRACE - 1;
                for (BatchMeta b : batches) {
                    boolean holds = b.firstRow() <= last && first < b.endRow();
                    boolean picked = b.minTraceId().compareTo(id) <= 0 && id.compareTo(b.maxTraceId()) <= 0;
                    assertTrue(!holds || picked, "batch " + b.index() + " holds trace " + id + " but its zone map skips it");
                }
            }
        }
    }

    private static List<Integer> candidateBatches(BlockMeta meta, Bytes traceId) {
        List<Integer> out = new ArrayList<>();
        for (BatchMeta b : meta.batches()) {
            if (b.minTraceId() != null && b.minTraceId().compareTo(traceId) <= 0 && traceId.compareTo(b.maxTraceId()) <= 0) {
                out.add(b.index());
            }
        }
        return out;
    }

    private static RoaringBitmap matchingRows(FixedSizeBinaryVector ids, Bytes traceId) {
        RoaringBitmap rows = new RoaringBitmap();
        byte[] wanted = traceId.unsafeArray();
        for (int row = 0; row < ids.getValueCount(); row++) {
            if (!ids.isNull(row) && Arrays.equals(ids.get(row), wanted)) {
                rows.add(row);
            }
        }
        return rows;
    }

    private static List<SpanRecord> spansOf(Bytes traceId) {
        return sorted.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    /** 30,000 traces of ten spans, a few resources and scopes shared, three or four attributes a span. */
    private static List<SpanRecord> generate(SplittableRandom random) {
        List<Resource> resources = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            resources.add(new Resource(List.of(KeyValue.of("service.name", "svc-" + i),
                    KeyValue.of("host.name", "host-" + random.nextInt(100))), 0, "https://opentelemetry.io/schemas/1.24.0"));
        }
        Scope scope = new Scope("io.needle.bench", "1.0.0", List.of(), 0, "");
        String[] names = {"GET /api/cart", "POST /api/checkout", "SELECT orders", "redis GET", "render"};
        String[] methods = {"GET", "POST", "PUT"};
        List<SpanRecord> out = new ArrayList<>(SPANS);
        long base = 1_764_446_100_000_000_000L;
        for (int t = 0; t < TRACES; t++) {
            byte[] id = new byte[16];
            random.nextBytes(id);
            Bytes traceId = Bytes.wrap(id);
            Resource resource = resources.get(random.nextInt(resources.size()));
            long traceStart = base + t * 1_000_000L;
            Bytes root = spanId(random);
            for (int s = 0; s < SPANS_PER_TRACE; s++) {
                long start = traceStart + s * 1_000L + random.nextInt(500);
                List<KeyValue> attributes = new ArrayList<>(4);
                attributes.add(KeyValue.of("http.method", methods[random.nextInt(methods.length)]));
                attributes.add(KeyValue.of("http.status_code", 200 + random.nextInt(4) * 100));
                attributes.add(new KeyValue("db.rows", AnyValue.of(random.nextDouble() * 100)));
                if (random.nextInt(4) == 0) {
                    attributes.add(new KeyValue("cache.hit", AnyValue.of(random.nextBoolean())));
                }
                out.add(new SpanRecord(resource, scope, traceId, s == 0 ? root : spanId(random), "",
                        s == 0 ? Bytes.EMPTY : root, 1, names[random.nextInt(names.length)], 1 + random.nextInt(3),
                        start, start + random.nextInt(5_000_000), attributes, 0, List.of(), 0, List.of(), 0,
                        random.nextInt(10) == 0 ? 2 : 0, ""));
            }
        }
        return out;
    }

    private static Bytes spanId(SplittableRandom random) {
        byte[] id = new byte[8];
        random.nextBytes(id);
        return Bytes.wrap(id);
    }
}
