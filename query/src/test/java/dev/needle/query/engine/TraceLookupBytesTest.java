package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Looking up one trace in a 300,000-span block through the engine reads one batch, once, not the
 * block: zone maps pick the batch, which is read whole (its header and every column, each checked
 * against its checksum), its trace-id column picks the rows, which are decoded from the same read.
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

    private QueryEngine engine;

    @BeforeAll
    static void writeBlock() throws IOException {
        store = new FsBlockStore(dir);
        List<SpanRecord> spans = generate(new SplittableRandom(300_000));
        try (BufferAllocator writing = new RootAllocator()) {
            block = new BlockWriter(store, writing).writeSpans(TenantId.DEFAULT, spans);
        }
        sorted = new ArrayList<>(spans);
        sorted.sort(BlockWriter.SPAN_ORDER);
    }

    @AfterAll
    static void forget() {
        sorted = null;
    }

    @BeforeEach
    void setUp() {
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 1);
    }

    @AfterEach
    void closeEngine() {
        engine.close();
    }

    @Test
    void trace_notOnABatchBoundary_readsOneBatchOnce() throws IOException {
        // A trace whose ten rows sit in the middle of batch 17.
        int batch = 17;
        int rank = (batch * BlockLayout.MAX_BATCH_ROWS + 4_000) / SPANS_PER_TRACE;
        Bytes traceId = sorted.get(rank * SPANS_PER_TRACE).traceId();
        List<SpanRecord> expected = spansOf(traceId);
        assertEquals(SPANS_PER_TRACE, expected.size());
        int batches = block.meta().batches().size();
        assertEquals((SPANS + BlockLayout.MAX_BATCH_ROWS - 1) / BlockLayout.MAX_BATCH_ROWS, batches);

        TraceResult result = engine.trace(TenantId.DEFAULT, traceId, TimeRange.ALL, Mechanisms.ALL, false);
        assertEquals(expected, result.spans(), "the spans of trace " + traceId);
        BlockDecision decision = result.spanPlan().blocks().get(0);
        assertEquals(1, decision.batchesRead(), "zone maps must pick exactly the one batch holding the trace: " + decision);
        assertEquals(batches - 1, decision.batchesSkipped(), decision.toString());
        long lookupBytes = decision.bytesRead() - decision.bytesToDecide();

        long idsBytes;
        long batchBytes;
        long wholeBlock;
        try (BufferAllocator allocator = new RootAllocator();
             BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long before = reader.bytesRead();
            try (VectorSchemaRoot ids = reader.read(batch, Set.of(SpanColumns.TRACE_ID))) {
                assertEquals(BlockLayout.MAX_BATCH_ROWS, ids.getRowCount());
            }
            idsBytes = reader.bytesRead() - before;
            before = reader.bytesRead();
            try (VectorSchemaRoot all = reader.readAll(batch)) {
                assertEquals(BlockLayout.MAX_BATCH_ROWS, all.getRowCount());
            }
            batchBytes = reader.bytesRead() - before;
            assertTrue(idsBytes * 10 < batchBytes, "the trace ids are a small part of the batch: " + idsBytes);
            before = reader.bytesRead();
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot all = reader.readAll(b)) {
                    all.getRowCount();
                }
            }
            wholeBlock = reader.bytesRead() - before;
        }

        long dataBytes = block.meta().dataBytes();
        System.out.printf("trace lookup in a %,d-span block of %d batches (data.arrow %,d bytes):%n"
                        + "  to decide (TRACE_IDX, meta.json, footer)  %,12d bytes%n"
                        + "  batches read by the lookup              %,12d bytes%n"
                        + "  batch %d: header and trace ids %,d, whole %,12d bytes%n"
                        + "  whole block (readAll x %d)              %,12d bytes%n",
                SPANS, batches, dataBytes, decision.bytesToDecide(), lookupBytes, batch, idsBytes, batchBytes, batches,
                wholeBlock);

        assertEquals(batchBytes, lookupBytes, "the lookup reads the one batch once");
        assertTrue(batchBytes * 30 < dataBytes, batchBytes + " of " + dataBytes + " bytes");
        assertTrue(decision.bytesRead() < dataBytes / 10, "the lookup read " + decision.bytesRead() + " of " + dataBytes);
        assertTrue(wholeBlock >= dataBytes * 9 / 10, "reading every batch reads about the whole file");
    }

    @Test
    void trace_straddlingABatchBoundary_readsBothBatchesAndFindsAllSpans() throws IOException {
        // The trace whose rows run from the end of batch 3 into batch 4 (rows 32,760..32,769).
        int firstRow = 4 * BlockLayout.MAX_BATCH_ROWS - 3;
        Bytes traceId = sorted.get(firstRow).traceId();
        List<SpanRecord> expected = spansOf(traceId);
        int start = sorted.indexOf(expected.get(0));
        assertTrue(start / BlockLayout.MAX_BATCH_ROWS != (start + SPANS_PER_TRACE - 1) / BlockLayout.MAX_BATCH_ROWS,
                "the chosen trace must straddle a boundary");

        TraceResult result = engine.trace(TenantId.DEFAULT, traceId, TimeRange.ALL, Mechanisms.ALL, false);
        assertEquals(expected, result.spans());
        assertFalse(result.partial());
        assertEquals(2, result.spanPlan().blocks().get(0).batchesRead(), result.spanPlan().toString());
    }

    @Test
    void zoneMaps_everyTrace_batchesHoldingItAreNotRuledOut() {
        List<BatchMeta> batches = block.meta().batches();
        for (int row = 0; row < sorted.size(); row += SPANS_PER_TRACE) {
            Bytes id = sorted.get(row).traceId();
            TraceTarget<SpanRecord> target = TraceTarget.spans(id, TimeRange.ALL);
            long first = row;
            long last = row + SPANS_PER_TRACE - 1;
            for (BatchMeta b : batches) {
                if (b.firstRow() <= last && first < b.endRow()) {
                    assertNull(target.ruledOutBy(b), "batch " + b.index() + " holds trace " + id);
                }
            }
        }
    }

    /** The spans of one trace in the engine's order: by start time (the writer's order within a trace). */
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
                out.add(SpanRecord.builder().resource(resource).scope(scope).traceId(traceId)
                        .spanId(s == 0 ? root : spanId(random)).parentSpanId(s == 0 ? Bytes.EMPTY : root).flags(1)
                        .name(names[random.nextInt(names.length)]).kind(1 + random.nextInt(3))
                        .startTimeUnixNano(start).endTimeUnixNano(start + random.nextInt(5_000_000))
                        .attributes(attributes).statusCode(random.nextInt(10) == 0 ? 2 : 0).build());
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
