package dev.needle.blocks.golden;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.ColumnChecksums;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowBuffer;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The golden blocks of writer versions 1 ({@code golden/data}), 2 ({@code golden/data-v2}), 3
 * ({@code golden/data-v3}) and 4 ({@code golden/data-v4}),
 * written once from the same records and never regenerated, still read back as those records: a
 * change to the schema, the value encoding, meta.json, the checksums or the sidecar keys that would
 * make old blocks unreadable or wrongly pruned fails here.
 */
class GoldenBlockTest {

    private static final Path DATA_V1 = Path.of("src/test/resources/golden/data");
    private static final Path DATA_V2 = Path.of("src/test/resources/golden/data-v2");
    private static final Path DATA_V3 = Path.of("src/test/resources/golden/data-v3");
    private static final Path DATA_V4 = Path.of("src/test/resources/golden/data-v4");
    private BufferAllocator allocator;

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    /** Each writer version's golden data directory. */
    static Stream<Path> versions() {
        return Stream.of(DATA_V1, DATA_V2, DATA_V3, DATA_V4);
    }

    @ParameterizedTest
    @MethodSource("versions")
    void spansBlock_decodesToItsRecordsInTraceOrder(Path data) throws IOException {
        List<SpanRecord> expected = new ArrayList<>(GoldenBlocks.spans());
        expected.sort(Comparator.comparing(SpanRecord::traceId).thenComparingLong(SpanRecord::startTimeUnixNano));
        FsBlockStore store = FsBlockStore.readOnly(data);
        try (BlockReader reader = BlockReader.open(store, only(store, Signal.SPANS), allocator)) {
            assertEquals(3, reader.batchCount());
            assertEquals(20, reader.meta().orElseThrow().rows());
            assertEquals(!data.equals(DATA_V1), reader.meta().orElseThrow().hasChecksums());
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

    @ParameterizedTest
    @MethodSource("versions")
    void logsBlock_decodesToItsRecordsInTimeOrder(Path data) throws IOException {
        List<LogRecord> expected = new ArrayList<>(GoldenBlocks.logs());
        expected.sort(Comparator.comparingLong(LogRecord::eventTimeUnixNano));
        FsBlockStore store = FsBlockStore.readOnly(data);
        try (BlockReader reader = BlockReader.open(store, only(store, Signal.LOGS), allocator)) {
            assertEquals(!data.equals(DATA_V1), reader.meta().orElseThrow().hasChecksums());
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

    @ParameterizedTest
    @EnumSource(Signal.class)
    void version2_eachChecksumIsTheCrcOfItsBatchAndDataArrowIsVersion1s(Signal signal) throws IOException {
        FsBlockStore v1 = FsBlockStore.readOnly(DATA_V1);
        FsBlockStore v2 = FsBlockStore.readOnly(DATA_V2);
        Path data = v2.blockDir(only(v2, signal)).resolve(BlockLayout.DATA);
        byte[] file = Files.readAllBytes(data);
        assertArrayEquals(Files.readAllBytes(v1.blockDir(only(v1, signal)).resolve(BlockLayout.DATA)), file,
                "version 2 changed meta.json only");
        List<ArrowBlock> places;
        try (ArrowFileReader arrow = new ArrowFileReader(FileChannel.open(data, StandardOpenOption.READ), allocator)) {
            places = List.copyOf(arrow.getRecordBlocks());
        }
        List<BatchMeta> batches = BlockMetaJson.read(Files.readAllBytes(data.resolveSibling(BlockLayout.META))).batches();
        assertEquals(places.size(), batches.size());
        for (int b = 0; b < places.size(); b++) {
            CRC32C crc = new CRC32C();
            crc.update(file, (int) places.get(b).getOffset(),
                    places.get(b).getMetadataLength() + (int) places.get(b).getBodyLength());
            assertEquals(crc.getValue(), batches.get(b).crc32c(), "batch " + b);
        }
    }

    /**
     * Version 3 keeps version 2's data.arrow and checksums and adds one per header and per column:
     * each is the CRC-32C of the bytes FORMAT.md names, found here from the Arrow reader's own view
     * of each batch's buffers, and reading one column reads its header and its range only.
     */
    @ParameterizedTest
    @EnumSource(Signal.class)
    void version3_eachColumnChecksumIsTheCrcOfItsRangeAndDataArrowIsVersion2s(Signal signal) throws IOException {
        FsBlockStore v2 = FsBlockStore.readOnly(DATA_V2);
        FsBlockStore v3 = FsBlockStore.readOnly(DATA_V3);
        Path data = v3.blockDir(only(v3, signal)).resolve(BlockLayout.DATA);
        byte[] file = Files.readAllBytes(data);
        assertArrayEquals(Files.readAllBytes(v2.blockDir(only(v2, signal)).resolve(BlockLayout.DATA)), file,
                "version 3 changed meta.json only");
        List<BatchMeta> v2Batches = BlockMetaJson.read(Files.readAllBytes(
                v2.blockDir(only(v2, signal)).resolve(BlockLayout.META))).batches();
        List<BatchMeta> batches = BlockMetaJson.read(Files.readAllBytes(data.resolveSibling(BlockLayout.META))).batches();
        Schema schema = signal == Signal.SPANS ? SpanColumns.SCHEMA : LogColumns.SCHEMA;
        try (FileChannel channel = FileChannel.open(data, StandardOpenOption.READ);
             ArrowFileReader arrow = new ArrowFileReader(FileChannel.open(data, StandardOpenOption.READ), allocator)) {
            List<ArrowBlock> places = List.copyOf(arrow.getRecordBlocks());
            assertEquals(places.size(), batches.size());
            for (int b = 0; b < places.size(); b++) {
                ArrowBlock place = places.get(b);
                assertEquals(v2Batches.get(b).crc32c(), batches.get(b).crc32c(), "batch " + b);
                ColumnChecksums columns = batches.get(b).columns();
                assertEquals(crc32c(file, place.getOffset(), place.getMetadataLength()), columns.headerCrc32c());
                List<ArrowBuffer> buffers;
                channel.position(place.getOffset());
                try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(new ReadChannel(channel), place,
                        allocator)) {
                    buffers = batch.getBuffersLayout();
                }
                long bodyStart = place.getOffset() + place.getMetadataLength();
                int buffer = 0;
                for (int c = 0; c < schema.getFields().size(); c++) {
                    assertEquals(buffers.get(buffer).getOffset(), columns.offsets().get(c), "batch " + b + " column " + c);
                    buffer += bufferCount(schema.getFields().get(c));
                    long end = buffer < buffers.size() ? buffers.get(buffer).getOffset() : place.getBodyLength();
                    assertEquals(crc32c(file, bodyStart + columns.offsets().get(c), end - columns.offsets().get(c)),
                            columns.crc32c().get(c), "batch " + b + " column " + c);
                }
                assertEquals(buffers.size(), buffer);
            }
        }
    }

    /**
     * Version 4 keeps version 3's data.arrow and sidecars, and its meta.json but for the version and the
     * {@code metaCrc32c} after it: the CRC-32C of the file's other bytes, recomputed here from the file.
     */
    @ParameterizedTest
    @EnumSource(Signal.class)
    void version4_metaIsVersion3sWithTheChecksumOfItsOwnBytes(Signal signal) throws IOException {
        FsBlockStore v3 = FsBlockStore.readOnly(DATA_V3);
        FsBlockStore v4 = FsBlockStore.readOnly(DATA_V4);
        Path dir3 = v3.blockDir(only(v3, signal));
        Path dir4 = v4.blockDir(only(v4, signal));
        for (String file : List.of(BlockLayout.DATA, BloomSidecar.TRACE_IDX, BloomSidecar.ATTR_IDX,
                BloomSidecar.BATCH_ATTR_IDX)) {
            assertArrayEquals(Files.readAllBytes(dir3.resolve(file)), Files.readAllBytes(dir4.resolve(file)), file);
        }
        String meta3 = Files.readString(dir3.resolve(BlockLayout.META));
        String meta4 = Files.readString(dir4.resolve(BlockLayout.META));
        long stored = signal == Signal.SPANS ? 1070472297L : 460572757L;
        String line = "\n  \"metaCrc32c\": " + stored + ",";
        assertEquals(meta3.replace("\"writerVersion\": 3,", "\"writerVersion\": 4," + line), meta4);
        byte[] bytes = meta4.getBytes(StandardCharsets.UTF_8);
        int digits = meta4.indexOf(line) + line.indexOf(": ") + 2;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, digits);
        int end = digits + Long.toString(stored).length();
        crc.update(bytes, end, bytes.length - end);
        assertEquals(stored, crc.getValue());
        assertEquals(BlockMetaJson.read(meta3.getBytes(StandardCharsets.UTF_8)).batches(),
                BlockMetaJson.read(bytes).batches());
    }

    /**
     * The writer of today, given the golden records, the golden block's creation time and id, writes
     * version 4's data.arrow, meta.json and Bloom sidecars byte for byte: a change to how blocks are
     * written that would change those bytes fails here, whether the sidecars are built on the writing thread
     * or on their own. (BlockTagsTest holds TAGS's bytes.)
     */
    @ParameterizedTest
    @EnumSource(Signal.class)
    void writer_reproducesVersion4BytesFromTheSameRecords(Signal signal, @TempDir Path dir) throws IOException {
        FsBlockStore golden = FsBlockStore.readOnly(DATA_V4);
        Path goldenDir = golden.blockDir(only(golden, signal));
        long created = BlockMetaJson.read(Files.readAllBytes(goldenDir.resolve(BlockLayout.META))).createdUnixMillis();
        ExecutorService sidecarThread = Executors.newSingleThreadExecutor();
        try {
            for (boolean ownThread : new boolean[] {false, true}) {
                FsBlockStore store = new FsBlockStore(dir.resolve(ownThread ? "sidecars-on-own-thread" : "one-thread"));
                BlockWriter writer = new BlockWriter(store, allocator, BlockWriter.Options.DEFAULT.withBatchRows(8),
                        Clock.fixed(Instant.ofEpochMilli(created), ZoneOffset.UTC));
                if (ownThread) {
                    writer = writer.withSidecarsOn(sidecarThread);
                }
                String name = goldenDir.getFileName().toString();
                String id = name.substring(name.lastIndexOf('_') + 1);
                if (signal == Signal.SPANS) {
                    writer.writeSpans(TenantId.DEFAULT, GoldenBlocks.spans(), id);
                } else {
                    writer.writeLogs(TenantId.DEFAULT, GoldenBlocks.logs(), id);
                }
                Path written = store.blockDir(only(store, signal));
                assertEquals(goldenDir.getFileName(), written.getFileName());
                for (String file : List.of(BlockLayout.DATA, BlockLayout.META, BloomSidecar.TRACE_IDX,
                        BloomSidecar.ATTR_IDX, BloomSidecar.BATCH_ATTR_IDX)) {
                    assertArrayEquals(Files.readAllBytes(goldenDir.resolve(file)),
                            Files.readAllBytes(written.resolve(file)), signal + " " + file + " ownThread=" + ownThread);
                }
            }
        } finally {
            sidecarThread.shutdown();
        }
    }

    private static int bufferCount(Field field) {
        return TypeLayout.getTypeBufferCount(field.getType())
                + field.getChildren().stream().mapToInt(GoldenBlockTest::bufferCount).sum();
    }

    private static long crc32c(byte[] file, long from, long length) {
        CRC32C crc = new CRC32C();
        crc.update(file, (int) from, (int) length);
        return crc.getValue();
    }

    @ParameterizedTest
    @MethodSource("versions")
    void spansBlock_sidecarsHoldItsTraceIdsAndPairsUnderDocumentedKeys(Path data) throws IOException {
        FsBlockStore store = FsBlockStore.readOnly(data);
        try (BlockReader reader = BlockReader.open(store, only(store, Signal.SPANS), allocator)) {
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

    private static BlockRef only(FsBlockStore store, Signal signal) throws IOException {
        List<BlockRef> blocks = store.list(TenantId.DEFAULT, signal);
        assertEquals(1, blocks.size());
        return blocks.get(0);
    }
}
