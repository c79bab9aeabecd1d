package dev.needle.blocks.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.Version1Blocks;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.ColumnChecksums;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter.Codec;
import dev.needle.blocks.write.BlockWriter.Options;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Random OTLP-shaped records written as a block and read back equal, field by field, in the writer's order. */
class BlockRoundTripTest {

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

    @ParameterizedTest
    @EnumSource(Codec.class)
    void writeSpans_randomRecords_readBackEqualFieldByField(Codec codec) throws IOException {
        List<SpanRecord> spans = new RandomRecords(1).spans(2_500);
        WrittenBlock block = new BlockWriter(store, allocator, new Options(1000, codec)).writeSpans(TenantId.DEFAULT, spans);
        assertEquals(3, block.meta().batches().size());

        List<SpanRecord> expected = new ArrayList<>(spans);
        expected.sort(Comparator.comparing(SpanRecord::traceId).thenComparingLong(SpanRecord::startTimeUnixNano));
        List<SpanRecord> actual = new ArrayList<>();
        readSpanBatches(block).forEach(actual::addAll);
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "row " + i);
        }
    }

    @Test
    void writeSpans_laterBatchesWithMoreAttributesPerRowThanTheFirst_readBackEqual() throws IOException {
        // The writer sizes the vectors for the first batch and keeps them for later ones: later rows with
        // more attributes (and resources and scopes of their own) must grow the attribute entries.
        Resource shared = new Resource(attributes("shared", 0, 1), 0, "");
        Scope sharedScope = new Scope("scope", "1", List.of(), 0, "");
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            int batch = i / 100;
            Resource resource = batch == 0 ? shared : new Resource(attributes("r" + i, i, 6 * batch), 1, "");
            Scope scope = batch == 0 ? sharedScope : new Scope("scope" + i, "2", attributes("s" + i, i, 4 * batch), 2, "");
            byte[] traceId = new byte[16];
            traceId[14] = (byte) (i >> 8);
            traceId[15] = (byte) i;
            spans.add(SpanRecord.builder().resource(resource).scope(scope).traceId(Bytes.wrap(traceId))
                    .spanId(Bytes.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, (byte) i})).flags(i).name("span" + i).kind(1)
                    .startTimeUnixNano(1_000L * i).endTimeUnixNano(1_000L * i + 7)
                    .attributes(attributes("a" + i, i, 1 + 15 * batch)).droppedAttributesCount(i % 3).build());
        }
        WrittenBlock block = new BlockWriter(store, allocator, new Options(100, Codec.NONE)).writeSpans(TenantId.DEFAULT, spans);
        assertEquals(3, block.meta().batches().size());

        List<List<SpanRecord>> batches = readSpanBatches(block);
        assertTrue(attributeCount(batches.get(2)) > attributeCount(batches.get(0)) * 10, "later batches hold more attributes");
        List<SpanRecord> actual = new ArrayList<>();
        batches.forEach(actual::addAll);
        assertEquals(spans, actual);
    }

    private List<List<SpanRecord>> readSpanBatches(WrittenBlock block) throws IOException {
        List<List<SpanRecord>> batches = new ArrayList<>();
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    SpanColumns columns = new SpanColumns(root);
                    List<SpanRecord> rows = new ArrayList<>();
                    for (int row = 0; row < root.getRowCount(); row++) {
                        rows.add(columns.read(row));
                    }
                    batches.add(rows);
                }
            }
        }
        return batches;
    }

    /** {@code count} attributes of every scalar type, their keys and values distinct per {@code prefix}. */
    private static List<KeyValue> attributes(String prefix, int seed, int count) {
        List<KeyValue> out = new ArrayList<>();
        for (int a = 0; a < count; a++) {
            String key = prefix + ".k" + a;
            out.add(new KeyValue(key, switch (a % 5) {
                case 0 -> new AnyValue.Str(prefix + "-" + a);
                case 1 -> new AnyValue.Int(seed * 1_000L + a);
                case 2 -> new AnyValue.Dbl(seed + a / 7.0);
                case 3 -> new AnyValue.Bool((seed + a) % 2 == 0);
                default -> new AnyValue.Blob(Bytes.wrap(new byte[] {(byte) seed, (byte) a}));
            }));
        }
        return out;
    }

    private static int attributeCount(List<SpanRecord> spans) {
        int count = 0;
        for (SpanRecord s : spans) {
            count += s.attributes().size() + s.resource().attributes().size() + s.scope().attributes().size();
        }
        return count;
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void writeLogs_randomRecords_readBackEqualFieldByField(Codec codec) throws IOException {
        List<LogRecord> logs = new RandomRecords(2).logs(2_100);
        WrittenBlock block = new BlockWriter(store, allocator, new Options(700, codec)).writeLogs(TenantId.of("team-a"), logs);
        assertEquals(Signal.LOGS, block.ref().signal());

        List<LogRecord> expected = new ArrayList<>(logs);
        expected.sort(Comparator.comparingLong(LogRecord::eventTimeUnixNano));
        List<LogRecord> actual = new ArrayList<>();
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    LogColumns columns = new LogColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        actual.add(columns.read(row));
                    }
                }
            }
        }
        assertEquals(expected, actual);
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void write_crc32cOfEachBatch_isTheCrcOfTheBytesTheFooterPlacesIt(Codec codec) throws IOException {
        WrittenBlock block = new BlockWriter(store, allocator, new Options(700, codec))
                .writeLogs(TenantId.DEFAULT, new RandomRecords(6).logs(2_000));
        Path data = store.blockDir(block.ref()).resolve(BlockLayout.DATA);
        byte[] file = Files.readAllBytes(data);
        List<ArrowBlock> places = recordBlocks(data);
        assertEquals(3, places.size());
        for (int b = 0; b < places.size(); b++) {
            CRC32C crc = new CRC32C();
            crc.update(file, (int) places.get(b).getOffset(), batchLength(places.get(b)));
            assertEquals(crc.getValue(), block.meta().batches().get(b).crc32c(), "batch " + b);
            ColumnChecksums columns = block.meta().batches().get(b).columns();
            int header = places.get(b).getMetadataLength();
            long bodyStart = places.get(b).getOffset() + header;
            assertEquals(crc32c(file, places.get(b).getOffset(), header), columns.headerCrc32c(), "batch " + b);
            assertEquals(LogColumns.SCHEMA.getFields().size(), columns.columnCount());
            for (int c = 0; c < columns.columnCount(); c++) {
                long from = columns.offsets().get(c);
                long to = columns.end(c, places.get(b).getBodyLength());
                assertEquals(crc32c(file, bodyStart + from, to - from), columns.crc32c().get(c), "batch " + b + " column " + c);
            }
        }
        assertEquals(BlockMeta.WRITER_VERSION_4, block.meta().writerVersion());
    }

    private static long crc32c(byte[] file, long from, long length) {
        CRC32C crc = new CRC32C();
        crc.update(file, (int) from, (int) length);
        return crc.getValue();
    }

    @Test
    void read_oneColumnOfOneBatch_readsItsHeaderAndThatColumnOnlyOnce() throws IOException {
        List<SpanRecord> spans = new RandomRecords(3).spans(20_000);
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        ArrowBlock place = recordBlocks(store.blockDir(block.ref()).resolve(BlockLayout.DATA)).get(1);
        ColumnChecksums columns = block.meta().batches().get(1).columns();
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long opened = reader.bytesRead();
            try (VectorSchemaRoot root = reader.read(1, List.of(SpanColumns.TRACE_ID))) {
                assertEquals(block.meta().batches().get(1).rows(), root.getRowCount());
            }
            assertEquals(place.getMetadataLength() + columns.offsets().get(1), reader.bytesRead() - opened,
                    "the header and the trace-id column, the first, in one read");
            assertTrue(columns.offsets().get(1) * 10 < place.getBodyLength(), "far less than the batch");
        }
    }

    @Test
    void read_oneColumnOfOneBatchOfVersion2_readsThatWholeBatchOnceToCheckIt() throws IOException {
        List<SpanRecord> spans = new RandomRecords(3).spans(20_000);
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        Version1Blocks.toVersion2(store.blockDir(block.ref()));
        long batchBytes = batchLength(recordBlocks(store.blockDir(block.ref()).resolve(BlockLayout.DATA)).get(1));
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long opened = reader.bytesRead();
            try (VectorSchemaRoot root = reader.read(1, List.of(SpanColumns.TRACE_ID))) {
                assertEquals(1, root.getFieldVectors().size());
                assertEquals(block.meta().batches().get(1).rows(), root.getRowCount());
            }
            long oneColumn = reader.bytesRead() - opened;
            assertEquals(batchBytes, oneColumn, "one column of a batch with a checksum costs the whole batch");
            try (VectorSchemaRoot root = reader.readAll(1)) {
                assertEquals(block.meta().batches().get(1).rows(), root.getRowCount());
            }
            assertEquals(oneColumn, reader.bytesRead() - opened, "the checked batch is read once");
            assertTrue(oneColumn * 2 < block.meta().dataBytes(), oneColumn + " of " + block.meta().dataBytes());
        }
    }

    @Test
    void read_oneColumnOfOneBatchWithoutChecksums_readsFarLessThanTheBlock() throws IOException {
        List<SpanRecord> spans = new RandomRecords(3).spans(20_000);
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        Version1Blocks.downgrade(store.blockDir(block.ref()));
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long opened = reader.bytesRead();
            BatchMeta first = block.meta().batches().get(0);
            try (VectorSchemaRoot root = reader.read(1, List.of(SpanColumns.TRACE_ID))) {
                assertEquals(1, root.getFieldVectors().size());
                assertEquals(block.meta().batches().get(1).rows(), root.getRowCount());
            }
            long oneColumn = reader.bytesRead() - opened;
            // 8192 trace ids of 16 bytes, their validity bits, and the batch's message header.
            assertTrue(oneColumn < 8192 * 16 + 64 * 1024, "read " + oneColumn + " bytes for one column");
            assertTrue(oneColumn * 20 < block.meta().dataBytes(), oneColumn + " of " + block.meta().dataBytes());
            assertTrue(first.rows() == BlockLayout.MAX_BATCH_ROWS);
        }
    }

    @Test
    void read_columnSubsetsOfZstdBlock_equalTheSameColumnsOfTheUncompressedBlock() throws IOException {
        List<SpanRecord> spans = new RandomRecords(4).spans(3_000);
        Options options = new Options(800, Codec.NONE);
        WrittenBlock plain = new BlockWriter(store, allocator, options).writeSpans(TenantId.DEFAULT, spans);
        WrittenBlock zstd = new BlockWriter(store, allocator, options.withCodec(Codec.ZSTD)).writeSpans(TenantId.DEFAULT, spans);
        assertTrue(zstd.meta().dataBytes() * 2 < plain.meta().dataBytes(),
                "ZSTD " + zstd.meta().dataBytes() + " bytes, uncompressed " + plain.meta().dataBytes());
        assertEquals(Files.size(store.blockDir(zstd.ref()).resolve(BlockLayout.DATA)), zstd.meta().dataBytes());

        List<List<String>> subsets = new ArrayList<>();
        for (var field : SpanColumns.SCHEMA.getFields()) {
            subsets.add(List.of(field.getName()));
        }
        subsets.add(List.of(SpanColumns.TRACE_ID, SpanColumns.ATTRIBUTES));
        subsets.add(List.of(SpanColumns.NAME, SpanColumns.STATUS_MESSAGE, SpanColumns.EVENTS, SpanColumns.LINKS));
        subsets.add(List.of(SpanColumns.RESOURCE_ATTRIBUTES, SpanColumns.SCOPE_ATTRIBUTES, SpanColumns.DURATION));
        try (BlockReader expected = BlockReader.open(store, plain.ref(), allocator);
             BlockReader actual = BlockReader.open(store, zstd.ref(), allocator)) {
            assertEquals(expected.batchCount(), actual.batchCount());
            for (int b = 0; b < actual.batchCount(); b++) {
                for (List<String> columns : subsets) {
                    try (VectorSchemaRoot want = expected.read(b, Set.copyOf(columns));
                         VectorSchemaRoot got = actual.read(b, Set.copyOf(columns))) {
                        assertEquals(want.getSchema(), got.getSchema());
                        assertTrue(want.equals(got), "batch " + b + " columns " + columns + " differ");
                    }
                }
            }
        }
    }

    @Test
    void read_oneColumnOfZstdBlock_readsLessThanTheSameColumnUncompressed() throws IOException {
        List<SpanRecord> spans = new RandomRecords(5).spans(20_000);
        WrittenBlock plain = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        WrittenBlock zstd = new BlockWriter(store, allocator, Options.DEFAULT.withCodec(Codec.ZSTD))
                .writeSpans(TenantId.DEFAULT, spans);
        long plainBytes = bytesToRead(plain, SpanColumns.ATTRIBUTES);
        long zstdBytes = bytesToRead(zstd, SpanColumns.ATTRIBUTES);
        assertTrue(zstdBytes < plainBytes, "ZSTD read " + zstdBytes + " bytes, uncompressed " + plainBytes);
    }

    /** The record batches' places in data.arrow, from its footer. */
    private List<ArrowBlock> recordBlocks(Path file) throws IOException {
        try (ArrowFileReader reader = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator)) {
            return List.copyOf(reader.getRecordBlocks());
        }
    }

    /** The bytes of a batch's whole IPC message: what its checksum covers. */
    private static int batchLength(ArrowBlock place) {
        return place.getMetadataLength() + (int) place.getBodyLength();
    }

    private long bytesToRead(WrittenBlock block, String column) throws IOException {
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long opened = reader.bytesRead();
            try (VectorSchemaRoot root = reader.read(1, List.of(column))) {
                assertEquals(block.meta().batches().get(1).rows(), root.getRowCount());
            }
            return reader.bytesRead() - opened;
        }
    }
}
