package dev.needle.blocks.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.sidecar.AttrIdxBuilder;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sidecars of a published block hold every trace id and every indexed pair of the block,
 * checked against the rows decoded from data.arrow, not against what the writer says it put in.
 *
 * <p>The indexed pairs are enumerated here from IndexedPairs' documented rule, re-implemented on
 * purpose rather than called: resource, scope and record attributes with scalar values under
 * {@code resource.}, {@code scope.}, {@code span.}/{@code log.} + key, and the intrinsics
 * {@code intrinsic.name} (string), {@code intrinsic.status}, {@code intrinsic.kind} (ints) for spans,
 * {@code intrinsic.severity} (int) for logs. NaN is never inserted; an integral double is the int.
 */
class SidecarContentsTest {

    private static final double TWO_TO_63 = 0x1p63;

    @TempDir
    Path dir;
    private BufferAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    static Stream<Arguments> seedsAndBatchSizes() {
        List<Arguments> out = new ArrayList<>();
        for (long seed : new long[] {11, 12, 13}) {
            for (int batchRows : new int[] {1, 37, 500, BlockLayout.MAX_BATCH_ROWS}) {
                out.add(Arguments.of(seed, batchRows));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "seed {0}, {1} rows a batch")
    @MethodSource("seedsAndBatchSizes")
    void writeSpans_randomRecords_sidecarsHoldEveryDecodedTraceIdAndPair(long seed, int batchRows) throws IOException {
        List<SpanRecord> spans = new RandomRecords(seed).spans(batchRows == 1 ? 300 : 1_200);
        WrittenBlock block = new BlockWriter(store, allocator, batchRows).writeSpans(TenantId.DEFAULT, spans);

        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            List<SpanRecord> decoded = decodeSpans(reader);
            assertEquals(spans.size(), decoded.size());
            Expected expected = new Expected();
            List<Expected> perBatch = new ArrayList<>();
            for (int b = 0; b < reader.batchCount(); b++) {
                perBatch.add(new Expected());
            }
            for (int i = 0; i < decoded.size(); i++) {
                SpanRecord s = decoded.get(i);
                for (Expected e : List.of(expected, perBatch.get(i / batchRows))) {
                    e.traceId(s.traceId());
                    e.attributes("resource.", s.resource().attributes());
                    e.attributes("scope.", s.scope().attributes());
                    e.attributes("span.", s.attributes());
                    e.string("intrinsic.name", s.name());
                    e.integer("intrinsic.status", s.statusCode());
                    e.integer("intrinsic.kind", s.kind());
                }
            }
            checkSidecars(reader, expected);
            checkBatchAttrIdx(reader, perBatch, expected.anyDouble);
            assertAttrIdxIsWhatOnePassOverTheBlockBuilds(block.ref(), pairs -> decoded.forEach(pairs::span));
        }
    }

    @ParameterizedTest(name = "seed {0}, {1} rows a batch")
    @MethodSource("seedsAndBatchSizes")
    void writeLogs_randomRecords_sidecarsHoldEveryDecodedTraceIdAndPair(long seed, int batchRows) throws IOException {
        List<LogRecord> logs = new RandomRecords(seed + 100).logs(batchRows == 1 ? 300 : 1_200);
        WrittenBlock block = new BlockWriter(store, allocator, batchRows).writeLogs(TenantId.of("team-b"), logs);

        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            List<LogRecord> decoded = decodeLogs(reader);
            assertEquals(logs.size(), decoded.size());
            Expected expected = new Expected();
            List<Expected> perBatch = new ArrayList<>();
            for (int b = 0; b < reader.batchCount(); b++) {
                perBatch.add(new Expected());
            }
            for (int i = 0; i < decoded.size(); i++) {
                LogRecord r = decoded.get(i);
                for (Expected e : List.of(expected, perBatch.get(i / batchRows))) {
                    e.traceId(r.traceId());
                    e.attributes("resource.", r.resource().attributes());
                    e.attributes("scope.", r.scope().attributes());
                    e.attributes("log.", r.attributes());
                    e.integer("intrinsic.severity", r.severityNumber());
                }
            }
            assertTrue(expected.traceIds.size() > 0, "RandomRecords correlates about half the logs with a trace");
            checkSidecars(reader, expected);
            checkBatchAttrIdx(reader, perBatch, expected.anyDouble);
            assertAttrIdxIsWhatOnePassOverTheBlockBuilds(block.ref(), pairs -> decoded.forEach(pairs::log));
        }
    }

    @Test
    void writeSpans_noDoubleAttributes_hasDoubleClearAndIntegralValuesStillFound() throws IOException {
        List<SpanRecord> spans = new RandomRecords(21).spans(800).stream().map(SidecarContentsTest::withoutDoubles).toList();
        WrittenBlock block = new BlockWriter(store, allocator, 256).writeSpans(TenantId.DEFAULT, spans);

        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            Expected expected = new Expected();
            for (SpanRecord s : decodeSpans(reader)) {
                expected.traceId(s.traceId());
                expected.attributes("resource.", s.resource().attributes());
                expected.attributes("scope.", s.scope().attributes());
                expected.attributes("span.", s.attributes());
                expected.string("intrinsic.name", s.name());
                expected.integer("intrinsic.status", s.statusCode());
                expected.integer("intrinsic.kind", s.kind());
            }
            assertFalse(expected.anyDouble, "the records were stripped of double attributes");
            checkSidecars(reader, expected);
            Sidecar attrIdx = reader.sidecar(BloomSidecar.ATTR_IDX);
            assertFalse(attrIdx.mayHoldDoubles(), "HAS_DOUBLE set on a block without double attributes");
            // The doubles became ints: an integral decimal literal must still find them.
            assertTrue(attrIdx.mayContain(AttributeHash.ofDouble("span.marker", 42.0)));
        }
    }

    @Test
    void writeSpans_integralDoubleAndNegativeZero_foundAsTheirInts() throws IOException {
        List<SpanRecord> spans = new ArrayList<>(new RandomRecords(22).spans(50));
        SpanRecord first = spans.get(0);
        spans.set(0, withAttributes(first, List.of(new KeyValue("ratio", AnyValue.of(200.0)),
                new KeyValue("zero", AnyValue.of(-0.0)), new KeyValue("nan", AnyValue.of(Double.NaN)),
                new KeyValue("big", AnyValue.of(-TWO_TO_63)), new KeyValue("frac", AnyValue.of(0.25)))));
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);

        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            Sidecar attrIdx = reader.sidecar(BloomSidecar.ATTR_IDX);
            assertTrue(attrIdx.isVerified(), attrIdx.detail());
            assertTrue(attrIdx.mayHoldDoubles());
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("span.ratio", 200)), "200.0 must hash like 200");
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("span.zero", 0)), "-0.0 must hash like 0");
            assertTrue(attrIdx.mayContain(AttributeHash.ofDouble("span.zero", 0.0)), "-0.0 must hash like 0.0");
            assertTrue(attrIdx.mayContain(AttributeHash.ofLong("span.big", Long.MIN_VALUE)), "-2^63 is an int64");
            assertTrue(attrIdx.mayContain(AttributeHash.ofDouble("span.frac", 0.25)));
            assertNull(AttributeHash.ofDouble("span.nan", Double.NaN), "NaN has no key, so it can never be looked up");
        }
    }

    @Test
    void writeLogs_noRecordHasATraceId_noTraceIdxAndReaderFailsOpenMissing() throws IOException {
        List<LogRecord> logs = new RandomRecords(31).logs(900).stream()
                .map(r -> r.toBuilder().traceId(Bytes.EMPTY).spanId(Bytes.EMPTY).build())
                .toList();
        WrittenBlock block = new BlockWriter(store, allocator, 300).writeLogs(TenantId.DEFAULT, logs);
        BlockRef ref = block.ref();

        assertFalse(Files.exists(store.blockDir(ref).resolve(BloomSidecar.TRACE_IDX)), "a TRACE_IDX with no keys was written");
        assertTrue(Files.exists(store.blockDir(ref).resolve(BloomSidecar.ATTR_IDX)));
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            BlockMeta meta = reader.meta().orElseThrow(() -> new AssertionError(reader.metaProblem()));
            assertEquals(0, meta.distinctTraceIds());
            assertEquals(0, meta.traceIdxBytes());
            for (BatchMeta batch : meta.batches()) {
                assertNull(batch.minTraceId(), "batch " + batch.index());
                assertEquals(batch.rows(), batch.traceIdNullCount(), "batch " + batch.index());
            }
            Sidecar traceIdx = reader.sidecar(BloomSidecar.TRACE_IDX);
            assertFalse(traceIdx.isVerified());
            assertEquals(Optional.of(FailOpenReason.MISSING), traceIdx.failOpenReason());
            assertTrue(traceIdx.detail().contains(BloomSidecar.TRACE_IDX), traceIdx.detail());
            assertTrue(traceIdx.detail().contains(ref.toString()), traceIdx.detail());
            assertTrue(traceIdx.mayContainTraceId(new byte[16]), "a missing sidecar must answer maybe");

            Expected expected = new Expected();
            for (LogRecord r : decodeLogs(reader)) {
                assertTrue(r.traceId().isEmpty());
                expected.attributes("resource.", r.resource().attributes());
                expected.attributes("scope.", r.scope().attributes());
                expected.attributes("log.", r.attributes());
                expected.integer("intrinsic.severity", r.severityNumber());
            }
            checkAttrIdx(reader, expected, meta);
        }
    }

    /** Checks TRACE_IDX, ATTR_IDX and the counts in meta.json against what was decoded. */
    private void checkSidecars(BlockReader reader, Expected expected) {
        BlockMeta meta = reader.meta().orElseThrow(() -> new AssertionError(reader.metaProblem()));
        assertEquals(expected.traceIds.size(), meta.distinctTraceIds(), "distinct trace ids");

        Sidecar traceIdx = reader.sidecar(BloomSidecar.TRACE_IDX);
        assertTrue(traceIdx.isVerified(), traceIdx.detail());
        assertEquals(meta.traceIdxBytes(), traceIdx.bytesRead(), "traceIdxBytes in meta.json");
        for (Bytes id : expected.traceIds) {
            assertTrue(traceIdx.mayContainTraceId(id.toByteArray()), "TRACE_IDX lacks trace id " + id.hex());
        }
        // Not vacuous: the filter rules out most ids it was never given (about 1% false positives).
        SplittableRandom random = new SplittableRandom(expected.traceIds.size());
        int maybe = 0;
        for (int i = 0; i < 2_000; i++) {
            byte[] absent = new byte[16];
            random.nextBytes(absent);
            if (traceIdx.mayContainTraceId(absent)) {
                maybe++;
            }
        }
        assertTrue(maybe < 100, maybe + " of 2000 absent trace ids answered maybe");

        checkAttrIdx(reader, expected, meta);
    }

    private void checkAttrIdx(BlockReader reader, Expected expected, BlockMeta meta) {
        Sidecar attrIdx = reader.sidecar(BloomSidecar.ATTR_IDX);
        assertTrue(attrIdx.isVerified(), attrIdx.detail());
        assertEquals(meta.attrIdxBytes(), attrIdx.bytesRead(), "attrIdxBytes in meta.json");
        assertEquals(expected.anyDouble, (attrIdx.flags() & BloomSidecar.FLAG_HAS_DOUBLE) != 0, "HAS_DOUBLE flag");
        Set<AttributeHash> distinct = new HashSet<>();
        for (Map.Entry<String, AttributeHash> pair : expected.pairs.entrySet()) {
            distinct.add(pair.getValue());
            assertTrue(attrIdx.mayContain(pair.getValue()), "ATTR_IDX lacks " + pair.getKey());
        }
        assertEquals(distinct.size(), meta.distinctAttributePairs(), "distinct attribute pairs");
        SplittableRandom random = new SplittableRandom(distinct.size());
        int maybe = 0;
        for (int i = 0; i < 2_000; i++) {
            if (attrIdx.mayContain(AttributeHash.ofLong("span.absent-" + i, random.nextLong()))) {
                maybe++;
            }
        }
        assertTrue(maybe < 100, maybe + " of 2000 absent pairs answered maybe");
    }

    /**
     * BATCH_ATTR_IDX holds every pair of each batch under that batch's index, with HAS_DOUBLE as
     * ATTR_IDX has it; and, not vacuously, rules out of a batch most pairs that only other batches hold.
     */
    private void checkBatchAttrIdx(BlockReader reader, List<Expected> batches, boolean anyDouble) {
        Sidecar batchIdx = reader.sidecar(BloomSidecar.BATCH_ATTR_IDX);
        assertTrue(batchIdx.isVerified(), batchIdx.detail());
        assertEquals(anyDouble, batchIdx.mayHoldDoubles(), "HAS_DOUBLE flag");
        int elsewhere = 0;
        int maybe = 0;
        for (int b = 0; b < batches.size(); b++) {
            Map<String, AttributeHash> own = batches.get(b).pairs;
            for (Map.Entry<String, AttributeHash> pair : own.entrySet()) {
                assertTrue(batchIdx.mayContain(pair.getValue(), b), "BATCH_ATTR_IDX lacks " + pair.getKey() + " in batch " + b);
            }
            Set<AttributeHash> held = new HashSet<>(own.values());
            for (AttributeHash other : batches.get((b + 1) % batches.size()).pairs.values()) {
                if (!held.contains(other)) {
                    elsewhere++;
                    maybe += batchIdx.mayContain(other, b) ? 1 : 0;
                }
            }
        }
        if (batches.size() == 1) {
            return; // the next batch is this one
        }
        assertTrue(elsewhere > 100, elsewhere + " pairs held by the next batch only");
        assertTrue(maybe * 50 < elsewhere, maybe + " of " + elsewhere + " pairs of the next batch answered maybe");
    }

    /**
     * ATTR_IDX is byte for byte the file that one pass of {@link IndexedPairs} over the block's
     * records into an {@link AttrIdxBuilder} builds: hashing each pair once per batch for
     * BATCH_ATTR_IDX changed nothing in it.
     */
    private void assertAttrIdxIsWhatOnePassOverTheBlockBuilds(BlockRef block, Consumer<IndexedPairs> records)
            throws IOException {
        AttrIdxBuilder builder = new AttrIdxBuilder();
        IndexedPairs pairs = new IndexedPairs(new IndexedPairs.Sink() {
            @Override
            public void string(String key, String value) {
                builder.addString(key, value);
            }

            @Override
            public void integer(String key, long value) {
                builder.addLong(key, value);
            }

            @Override
            public void dbl(String key, double value) {
                builder.addDouble(key, value);
            }

            @Override
            public void bool(String key, boolean value) {
                builder.addBool(key, value);
            }
        });
        records.accept(pairs);
        Path written = store.blockDir(block).resolve(BloomSidecar.ATTR_IDX);
        assertEquals(HexFormat.of().formatHex(builder.build().orElseThrow()),
                HexFormat.of().formatHex(Files.readAllBytes(written)), written.toString());
    }

    /** The trace ids and indexed pairs of decoded records, enumerated by the documented rule. */
    private static final class Expected {
        final Set<Bytes> traceIds = new HashSet<>();
        /** A readable description of each pair, for failure messages, to its key. */
        final Map<String, AttributeHash> pairs = new LinkedHashMap<>();
        boolean anyDouble;

        void traceId(Bytes id) {
            if (!id.isEmpty()) {
                traceIds.add(id);
            }
        }

        void string(String key, String value) {
            pairs.put(key + " = \"" + value + "\"", AttributeHash.ofString(key, value));
        }

        void integer(String key, long value) {
            pairs.put(key + " = " + value, AttributeHash.ofLong(key, value));
        }

        void attributes(String namespace, List<KeyValue> attributes) {
            for (KeyValue kv : attributes) {
                String key = namespace + kv.key();
                AnyValue v = kv.value();
                if (v instanceof AnyValue.Str s) {
                    string(key, s.value());
                } else if (v instanceof AnyValue.Int i) {
                    integer(key, i.value());
                } else if (v instanceof AnyValue.Bool b) {
                    pairs.put(key + " = " + b.value(), AttributeHash.ofBool(key, b.value()));
                } else if (v instanceof AnyValue.Dbl d) {
                    anyDouble = true;
                    double x = d.value();
                    if (Double.isNaN(x)) {
                        assertNull(AttributeHash.ofDouble(key, x));
                        continue;
                    }
                    pairs.put(key + " = " + x + " (as a double)", AttributeHash.ofDouble(key, x));
                    if (x >= -TWO_TO_63 && x < TWO_TO_63 && x == Math.rint(x)) {
                        // An integral double is the int: an integer literal must find it too.
                        integer(key, (long) x);
                    }
                }
                // bytes, arrays, maps and empty values are not indexed
            }
        }
    }

    private static List<SpanRecord> decodeSpans(BlockReader reader) throws IOException {
        List<SpanRecord> out = new ArrayList<>();
        for (int b = 0; b < reader.batchCount(); b++) {
            try (VectorSchemaRoot root = reader.readAll(b)) {
                SpanColumns columns = new SpanColumns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    out.add(columns.read(row));
                }
            }
        }
        return out;
    }

    private static List<LogRecord> decodeLogs(BlockReader reader) throws IOException {
        List<LogRecord> out = new ArrayList<>();
        for (int b = 0; b < reader.batchCount(); b++) {
            try (VectorSchemaRoot root = reader.readAll(b)) {
                LogColumns columns = new LogColumns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    out.add(columns.read(row));
                }
            }
        }
        return out;
    }

    /** The span with every top-level double attribute (resource, scope, span) turned into an int, plus one marker. */
    private static SpanRecord withoutDoubles(SpanRecord s) {
        Resource r = s.resource();
        Scope sc = s.scope();
        List<KeyValue> attributes = new ArrayList<>(noDoubles(s.attributes()));
        attributes.add(KeyValue.of("marker", 42));
        return s.toBuilder().resource(new Resource(noDoubles(r.attributes()), r.droppedAttributesCount(), r.schemaUrl()))
                .scope(new Scope(sc.name(), sc.version(), noDoubles(sc.attributes()), sc.droppedAttributesCount(),
                        sc.schemaUrl()))
                .attributes(attributes).build();
    }

    private static List<KeyValue> noDoubles(List<KeyValue> attributes) {
        return attributes.stream()
                .map(kv -> kv.value() instanceof AnyValue.Dbl d ? KeyValue.of(kv.key(), (long) d.value()) : kv)
                .toList();
    }

    private static SpanRecord withAttributes(SpanRecord s, List<KeyValue> attributes) {
        return s.toBuilder().attributes(attributes).build();
    }
}
