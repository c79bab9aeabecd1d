package dev.needle.blocks.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.Version1Blocks;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.BlockWriter.Codec;
import dev.needle.blocks.write.BlockWriter.Options;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.OutOfMemoryException;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real corruption of the files of real published blocks on disk. A broken data.arrow gives a
 * {@link CorruptBlockException} that names the block, or, in a block without checksums, (a flip
 * inside a value) data that still reads — never another exception, never an Error, never leaked
 * memory. A broken meta.json means "no zone maps and no checksums", with the reason; a broken
 * sidecar fails open with its reason. Neither is an error.
 *
 * <p>With checksums (writer version 2) any change to a batch's bytes is a checksum failure before
 * anything is decoded. The reader's own checks of lengths and offsets are then the defence of the
 * blocks of version 1, and of every block whose meta.json is lost: the tests of damage inside
 * batches run on blocks rewritten as version 1 ({@link Version1Blocks}) so that they reach them.
 */
@Timeout(300)
class CorruptBlockTest {

    /** The test blocks' data.arrow stay below this size. */
    private static final long MAX_FILE = 2L << 20;
    /**
     * Reading any batch of such a file, or deciding it is corrupt, needs far less memory than this;
     * more means a length from the file was trusted before it was checked.
     */
    private static final long MAX_ALLOCATION = 64L << 20;

    /** Arrow IPC file magic, at both ends of data.arrow. */
    private static final byte[] ARROW_MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);

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

    // ---------------------------------------------------------------- data.arrow

    @ParameterizedTest
    @EnumSource(Signal.class)
    void open_dataArrowDeleted_corruptBlockNamingBlockAndMissing(Signal signal) throws IOException {
        BlockRef ref = write(signal, 1);
        Files.delete(data(ref));
        CorruptBlockException e = assertThrows(CorruptBlockException.class, () -> BlockReader.open(store, ref, allocator));
        assertTrue(e.getMessage().contains(ref.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("missing"), e.getMessage());
        assertEquals(ref, e.block());
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void open_dataArrowIsADirectory_corruptBlock(Signal signal) throws IOException {
        BlockRef ref = write(signal, 2);
        Files.delete(data(ref));
        Files.createDirectory(data(ref));
        Harness harness = new Harness(ref, true);
        harness.attempt("data.arrow is a directory");
        harness.assertNoSurprises();
        assertEquals(1, harness.corrupt, "a directory is not a readable data.arrow");
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_dataArrowTruncatedAnywhere_corruptBlockOnly(Signal signal) throws IOException {
        BlockRef ref = write(signal, 3);
        byte[] original = Files.readAllBytes(data(ref));
        TreeSet<Integer> lengths = new TreeSet<>();
        for (int i = 0; i < 50; i++) {
            lengths.add((int) ((long) original.length * i / 50));
        }
        // Every length around the footer: from a little before it starts to one byte short.
        int footerStart = original.length - 10 - footerLength(original);
        for (int length = Math.max(0, footerStart - 200); length < original.length; length++) {
            lengths.add(length);
        }
        // The file's head: inside the magic, its padding, the first message's prefix.
        lengths.addAll(List.of(0, 1, 6, 7, 8, 9, 10, 11, 12, 16, 64));

        Harness harness = new Harness(ref, true);
        for (int length : lengths) {
            Files.write(data(ref), Arrays.copyOf(original, length));
            harness.attempt("truncated to " + length + " of " + original.length + " bytes");
        }
        harness.assertNoSurprises();
        assertEquals(lengths.size(), harness.corrupt, "a truncated file lost its footer, so it cannot open");
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openAndRead_bitFlippedAtRandomPositions_corruptBlockOrReadable(Signal signal) throws IOException {
        flips(signal, false, Codec.NONE);
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_bitFlippedAtRandomPositions_corruptBlockOrCorruptValueOrReadable(Signal signal)
            throws IOException {
        flips(signal, true, Codec.NONE);
    }

    private void flips(Signal signal, boolean decode, Codec codec) throws IOException {
        BlockRef ref = write(signal, 4, 200, 50, codec);
        Version1Blocks.downgrade(store.blockDir(ref));
        byte[] original = Files.readAllBytes(data(ref));
        SplittableRandom random = new SplittableRandom(signal.ordinal() * 1000 + 4 + codec.ordinal() * 100);
        List<long[]> flips = new ArrayList<>(); // {position, bit}
        for (int i = 0; i < 400; i++) {
            flips.add(new long[] {random.nextInt(original.length), random.nextInt(8)});
        }
        // The footer, the batches' message prefixes and their metadata (field nodes, buffer offsets
        // and lengths) are where a flip changes a length or an offset rather than a value: probe
        // them densely.
        int footerStart = original.length - 10 - footerLength(original);
        for (int i = 0; i < 200; i++) {
            flips.add(new long[] {footerStart + random.nextInt(original.length - footerStart), random.nextInt(8)});
        }
        List<ArrowBlock> batches = recordBlocks(data(ref));
        for (int b = 0; b < 2; b++) {
            ArrowBlock batch = batches.get(b);
            for (int p = 0; p < 8; p++) {
                for (int bit = 0; bit < 8; bit++) {
                    flips.add(new long[] {batch.getOffset() + p, bit});
                }
            }
            for (int i = 0; i < 400; i++) {
                flips.add(new long[] {batch.getOffset() + 8 + random.nextInt(batch.getMetadataLength() - 8), random.nextInt(8)});
            }
        }

        Harness harness = new Harness(ref, decode);
        for (long[] flip : flips) {
            int position = (int) flip[0];
            int bit = (int) flip[1];
            byte[] flipped = original.clone();
            flipped[position] ^= (byte) (1 << bit);
            Files.write(data(ref), flipped);
            harness.attempt("bit " + bit + " of byte " + position + " of " + original.length + " flipped");
        }
        Files.write(data(ref), original);
        harness.assertNoSurprises();
        System.out.printf("%s %s %s: %d flips, %d read fine, %d corrupt block, %d corrupt value%n", signal, codec,
                decode ? "open+read+decode" : "open+read", harness.attempts, harness.readable, harness.corrupt,
                harness.corruptValue);
    }

    /**
     * Every int64 in a batch's metadata that holds the batch's row count — the record batch length
     * and the top-level field node lengths — raised to a value the buffers cannot hold: a few
     * rows more, 2^20, 2^30, beyond 32 bits, negative. The reader must refuse the batch without
     * allocating for the claimed rows, or hand out a root whose rows can all be decoded.
     */
    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_rowCountsInBatchMetadataRaised_corruptBlockOrDecodableRows(Signal signal) throws IOException {
        BlockRef ref = write(signal, 13, 180, 50);
        Version1Blocks.downgrade(store.blockDir(ref));
        byte[] original = Files.readAllBytes(data(ref));
        Harness harness = new Harness(ref, true);
        List<ArrowBlock> batches = recordBlocks(data(ref));
        assertEquals(4, batches.size());
        int fields = 0;
        for (int b : new int[] {0, 3}) {
            ArrowBlock batch = batches.get(b);
            long rows = b == 0 ? 50 : 30;
            ByteBuffer file = ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN);
            for (long p = batch.getOffset() + 8; p + 8 <= batch.getOffset() + batch.getMetadataLength(); p++) {
                if (file.getLong((int) p) != rows) {
                    continue;
                }
                fields++;
                for (long raised : new long[] {rows + 1, rows + 100, 1L << 20, 1L << 30, (1L << 31) - 1, 1L << 40, -1}) {
                    byte[] changed = original.clone();
                    ByteBuffer.wrap(changed).order(ByteOrder.LITTLE_ENDIAN).putLong((int) p, raised);
                    Files.write(data(ref), changed);
                    harness.attempt("the int64 " + rows + " at byte " + p + " (batch at " + batch.getOffset()
                            + ") set to " + raised);
                }
            }
        }
        Files.write(data(ref), original);
        assertTrue(fields > 5, "found only " + fields + " row counts in the metadata");
        harness.assertNoSurprises();
    }

    /** The record batches' places in data.arrow, from its footer. */
    private List<ArrowBlock> recordBlocks(Path file) throws IOException {
        try (ArrowFileReader reader = new ArrowFileReader(FileChannel.open(file, StandardOpenOption.READ), allocator)) {
            return List.copyOf(reader.getRecordBlocks());
        }
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_replacedByGarbage_corruptBlockOnly(Signal signal) throws IOException {
        BlockRef ref = write(signal, 5);
        byte[] original = Files.readAllBytes(data(ref));
        SplittableRandom random = new SplittableRandom(5);
        Map<String, byte[]> garbage = new LinkedHashMap<>();
        garbage.put("empty", new byte[0]);
        garbage.put("one zero byte", new byte[1]);
        for (int size : new int[] {6, 12, 100, 4096, original.length}) {
            garbage.put(size + " random bytes", randomBytes(random, size));
            garbage.put(size + " zero bytes", new byte[size]);
        }
        garbage.put("magic only", ARROW_MAGIC.clone());
        garbage.put("magic twice", concat(ARROW_MAGIC, ARROW_MAGIC));
        for (int footer : new int[] {0, 1, 8, 100, -1, Integer.MAX_VALUE, original.length}) {
            garbage.put("magic, random body, footer length " + footer + ", magic",
                    concat(ARROW_MAGIC, new byte[2], randomBytes(random, 300), le(footer), ARROW_MAGIC));
        }
        // A valid footer over garbage batches: the footer's offsets now point at noise.
        int footerStart = original.length - 10 - footerLength(original);
        byte[] noisyBody = original.clone();
        for (int i = 8; i < footerStart; i++) {
            noisyBody[i] = (byte) random.nextInt(256);
        }
        garbage.put("intact head and footer, random batches", noisyBody);
        byte[] zeroBody = original.clone();
        Arrays.fill(zeroBody, 8, footerStart, (byte) 0);
        garbage.put("intact head and footer, zeroed batches", zeroBody);
        // A valid footer with its batches shifted: every offset lands in the wrong place.
        garbage.put("footer of a file 8 bytes longer", concat(Arrays.copyOf(original, 8), new byte[8],
                Arrays.copyOfRange(original, 8, original.length)));

        Harness harness = new Harness(ref, true);
        for (Map.Entry<String, byte[]> g : garbage.entrySet()) {
            Files.write(data(ref), g.getValue());
            harness.attempt(g.getKey());
        }
        harness.assertNoSurprises();
        assertTrue(harness.corrupt >= garbage.size() - 3, harness.corrupt + " of " + garbage.size() + " garbage files were"
                + " found corrupt");
    }

    @Test
    void open_dataArrowOfTheOtherSignal_corruptBlockNamingTheSchema() throws IOException {
        BlockRef spans = write(Signal.SPANS, 6);
        BlockRef logs = write(Signal.LOGS, 6);
        Files.copy(data(logs), data(spans), StandardCopyOption.REPLACE_EXISTING);
        CorruptBlockException e = assertThrows(CorruptBlockException.class, () -> BlockReader.open(store, spans, allocator));
        assertTrue(e.getMessage().contains(spans.toString()), e.getMessage());
        assertTrue(e.getMessage().contains("schema"), e.getMessage());
    }

    // ---------------------------------------------------------------- ZSTD-compressed data.arrow

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_zstdBitFlippedAtRandomPositions_corruptBlockOrCorruptValueOrReadable(Signal signal)
            throws IOException {
        flips(signal, true, Codec.ZSTD);
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_zstdBodyBitFlipped_corruptBlockOrCorruptValueOrReadable(Signal signal) throws IOException {
        // Random flips mostly land in the compressed frames here, the part that differs from an
        // uncompressed file: probe every compressed buffer of two batches at a few places.
        BlockRef ref = write(signal, 14, 200, 50, Codec.ZSTD);
        Version1Blocks.downgrade(store.blockDir(ref));
        byte[] original = Files.readAllBytes(data(ref));
        SplittableRandom random = new SplittableRandom(14 + signal.ordinal());
        Harness harness = new Harness(ref, true);
        for (long[] buffer : compressedBuffers(data(ref), 0, 3)) {
            long start = buffer[0];
            long size = buffer[1];
            if (size <= CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH
                    || ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN).getLong((int) start) <= 0) {
                continue; // empty, or stored uncompressed: flips there are value flips, probed above
            }
            for (int i = 0; i < 3; i++) {
                // Inside the frame: its header, its blocks, its end.
                long at = start + CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH
                        + random.nextLong(size - CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH);
                byte[] flipped = original.clone();
                flipped[(int) at] ^= (byte) (1 << random.nextInt(8));
                Files.write(data(ref), flipped);
                harness.attempt("a bit of byte " + at + " flipped, inside the compressed buffer at " + start);
            }
        }
        Files.write(data(ref), original);
        harness.assertNoSurprises();
        System.out.printf("%s ZSTD frames: %d flips, %d read fine, %d corrupt block, %d corrupt value%n", signal,
                harness.attempts, harness.readable, harness.corrupt, harness.corruptValue);
        // ZSTD frames carry no checksum here: a flip in a literal decompresses to another value.
        assertTrue(harness.attempts > 30 && harness.corrupt > harness.attempts / 2, harness.corrupt + " of " + harness.attempts
                + " were found corrupt");
    }

    /**
     * Each compressed buffer's 8-byte uncompressed length set to a value its node does not need:
     * one byte more or less, a little more, far more, negative. A length beyond what the node needs
     * must be refused before anything is allocated from it; only 0 (an empty buffer) and −1
     * ("stored uncompressed") may still read, as whatever the bytes then say.
     */
    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_zstdUncompressedLengthsChanged_corruptBlockBeforeAllocating(Signal signal) throws IOException {
        BlockRef ref = write(signal, 15, 180, 50, Codec.ZSTD);
        Version1Blocks.downgrade(store.blockDir(ref));
        byte[] original = Files.readAllBytes(data(ref));
        Harness harness = new Harness(ref, true);
        int compressed = 0;
        for (long[] buffer : compressedBuffers(data(ref), 0, 3)) {
            int at = (int) buffer[0];
            if (buffer[1] < CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
                continue;
            }
            long real = ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN).getLong(at);
            compressed += real > 0 ? 1 : 0;
            for (long changed : new long[] {real - 1, real + 1, real + 63, real + 64, real * 2 + 128, 1L << 26,
                                            (1L << 31) - 1, 1L << 40, Long.MAX_VALUE, Long.MIN_VALUE, -2, 0, -1}) {
                if (changed == real) {
                    continue;
                }
                byte[] bytes = original.clone();
                ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(at, changed);
                Files.write(data(ref), bytes);
                int before = harness.corrupt;
                String what = "the uncompressed length " + real + " at byte " + at + " set to " + changed;
                harness.attempt(what);
                if (changed != 0 && changed != CompressionUtil.NO_COMPRESSION_LENGTH) {
                    assertEquals(before + 1, harness.corrupt, what + " was not found corrupt");
                }
            }
        }
        Files.write(data(ref), original);
        harness.assertNoSurprises();
        assertTrue(compressed > 10, "only " + compressed + " buffers were compressed");
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void openReadAndDecode_zstdTruncatedAnywhere_corruptBlockOnly(Signal signal) throws IOException {
        BlockRef ref = write(signal, 16, 200, 50, Codec.ZSTD);
        byte[] original = Files.readAllBytes(data(ref));
        Harness harness = new Harness(ref, true);
        int attempts = 0;
        for (int i = 0; i < 60; i++) {
            Files.write(data(ref), Arrays.copyOf(original, (int) ((long) original.length * i / 60)));
            harness.attempt("truncated to " + (long) original.length * i / 60 + " of " + original.length + " bytes");
            attempts++;
        }
        harness.assertNoSurprises();
        assertEquals(attempts, harness.corrupt, "a truncated file lost its footer, so it cannot open");
    }

    @Test
    void read_batchCompressedWithLz4_corruptBlockNamingTheCodec() throws IOException {
        BlockRef ref = write(Signal.SPANS, 17, 20, 10, Codec.ZSTD);
        Path rewritten = dir.resolve("lz4.arrow");
        try (BlockReader reader = BlockReader.open(store, ref, allocator);
             VectorSchemaRoot root = reader.readAll(0);
             FileChannel out = FileChannel.open(rewritten, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
             ArrowFileWriter writer = new ArrowFileWriter(root, null, out, null, IpcOption.DEFAULT,
                     CommonsCompressionFactory.INSTANCE, CompressionUtil.CodecType.LZ4_FRAME)) {
            writer.start();
            writer.writeBatch();
            writer.end();
        }
        Files.move(rewritten, data(ref), StandardCopyOption.REPLACE_EXISTING);
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            CorruptBlockException e = assertThrows(CorruptBlockException.class, () -> reader.readAll(0));
            assertTrue(e.getMessage().contains(ref.toString()), e.getMessage());
            assertTrue(e.getMessage().contains("codec"), e.getMessage());
        }
    }

    /** {position in the file, size} of every buffer of the listed batches of a data.arrow. */
    private List<long[]> compressedBuffers(Path file, int... batchIndexes) throws IOException {
        List<ArrowBlock> blocks = recordBlocks(file);
        List<long[]> out = new ArrayList<>();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            for (int b : batchIndexes) {
                ArrowBlock block = blocks.get(b);
                channel.position(block.getOffset());
                MessageMetadataResult message = MessageSerializer.readMessage(new ReadChannel(channel));
                RecordBatch header = (RecordBatch) message.getMessage().header(new RecordBatch());
                assertNotNull(header.compression(), "batch " + b + " is not compressed");
                long body = block.getOffset() + block.getMetadataLength();
                for (int i = 0; i < header.buffersLength(); i++) {
                    out.add(new long[] {body + header.buffers(i).offset(), header.buffers(i).length()});
                }
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- checksums (writer version 2)

    /**
     * A bit flipped anywhere inside a record batch's message of a block with checksums: reading any
     * column of that batch is a CorruptBlockException naming the block, the batch and both
     * checksums — before anything is decoded — while the other batches still read.
     */
    @ParameterizedTest
    @EnumSource(Codec.class)
    void read_bitFlippedInsideABatchOfVersion2_checksumFailureNamingBlockBatchAndChecksums(Codec codec) throws IOException {
        for (Signal signal : Signal.values()) {
            BlockRef ref = write(signal, 18, 200, 50, codec);
            Version1Blocks.toVersion2(store.blockDir(ref));
            byte[] original = Files.readAllBytes(data(ref));
            List<BatchMeta> metas = BlockMetaJson.read(Files.readAllBytes(meta(ref))).batches();
            List<ArrowBlock> batches = recordBlocks(data(ref));
            SplittableRandom random = new SplittableRandom(18 + codec.ordinal());
            for (int b = 0; b < batches.size(); b++) {
                ArrowBlock batch = batches.get(b);
                int length = batch.getMetadataLength() + (int) batch.getBodyLength();
                for (int i = 0; i < 40; i++) {
                    // The message's first and last bytes, then anywhere in it.
                    int at = (int) batch.getOffset() + (i == 0 ? 0 : i == 1 ? length - 1 : random.nextInt(length));
                    byte[] flipped = original.clone();
                    flipped[at] ^= (byte) (1 << random.nextInt(8));
                    Files.write(data(ref), flipped);
                    CRC32C actual = new CRC32C();
                    actual.update(flipped, (int) batch.getOffset(), length);
                    String what = signal + " " + codec + ": a bit of byte " + at + " of batch " + b + " flipped";
                    try (BlockReader reader = openOrFail(ref, what)) {
                        int damaged = b;
                        String column = reader.schema().getFields().get(i % reader.schema().getFields().size()).getName();
                        CorruptBlockException e = assertThrows(CorruptBlockException.class,
                                () -> reader.read(damaged, List.of(column)), what);
                        assertEquals(ref, e.block());
                        assertEquals(String.format("batch %d checksum failed: expected crc32c 0x%08x (meta.json), actual"
                                + " 0x%08x over its %d bytes at offset %d of data.arrow", b, metas.get(b).crc32c(),
                                actual.getValue(), length, batch.getOffset()), e.reason(), what);
                        assertThrows(CorruptBlockException.class, () -> reader.readAll(damaged), what);
                        try (VectorSchemaRoot other = reader.readAll((b + 1) % batches.size())) {
                            assertEquals(metas.get((b + 1) % batches.size()).rows(), other.getRowCount(), what);
                        }
                    }
                }
            }
            Files.write(data(ref), original);
            assertEquals(200, readRows(ref).size(), "the restored block reads whole");
        }
    }

    /** A meta.json whose checksum for one batch is wrong: that batch is refused, the others read. */
    @Test
    void read_checksumInMetaJsonWrong_thatBatchRefusedOthersRead() throws IOException {
        BlockRef ref = write(Signal.SPANS, 19, 200, 50);
        Version1Blocks.toVersion2(store.blockDir(ref));
        String json = Files.readString(meta(ref));
        long real = BlockMetaJson.read(Files.readAllBytes(meta(ref))).batches().get(2).crc32c();
        Files.writeString(meta(ref), json.replace("\"crc32c\": " + real + "\n", "\"crc32c\": " + (real ^ 1) + "\n"));
        try (BlockReader reader = openOrFail(ref, "a wrong checksum")) {
            assertTrue(reader.meta().isPresent(), reader.metaProblem());
            CorruptBlockException e = assertThrows(CorruptBlockException.class, () -> reader.read(2, List.of(SpanColumns.TRACE_ID)));
            assertTrue(e.reason().startsWith(String.format("batch 2 checksum failed: expected crc32c 0x%08x (meta.json),"
                    + " actual 0x%08x", real ^ 1, real)), e.getMessage());
            for (int b : new int[] {0, 1, 3}) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    assertEquals(50, root.getRowCount());
                }
            }
        }
    }

    /**
     * A block of writer version 1 has no checksums: a flipped bit inside a value reads as another
     * value, as before version 2 — the reason version 2 exists. The same flip with checksums is refused.
     */
    @Test
    void read_valueBitFlippedWithoutChecksums_readsAsAnotherValue() throws IOException {
        BlockRef ref = write(Signal.SPANS, 20, 100, 50);
        byte[] original = Files.readAllBytes(data(ref));
        Bytes firstId;
        try (BlockReader reader = BlockReader.open(store, ref, allocator);
             VectorSchemaRoot root = reader.read(0, List.of(SpanColumns.TRACE_ID))) {
            firstId = Bytes.wrap(((FixedSizeBinaryVector) root.getVector(SpanColumns.TRACE_ID)).get(0));
        }
        byte[] flipped = original.clone();
        flipped[indexOf(original, firstId.unsafeArray()) + 15] ^= 1;
        Files.write(data(ref), flipped);
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            assertThrows(CorruptBlockException.class, () -> reader.read(0, List.of(SpanColumns.TRACE_ID)));
        }
        Version1Blocks.downgrade(store.blockDir(ref));
        try (BlockReader reader = BlockReader.open(store, ref, allocator);
             VectorSchemaRoot root = reader.read(0, List.of(SpanColumns.TRACE_ID))) {
            Bytes read = Bytes.wrap(((FixedSizeBinaryVector) root.getVector(SpanColumns.TRACE_ID)).get(0));
            assertFalse(read.equals(firstId), "the flip must change the value");
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        for (int at = 0; at + needle.length <= haystack.length; at++) {
            if (Arrays.equals(haystack, at, at + needle.length, needle, 0, needle.length)) {
                return at;
            }
        }
        throw new AssertionError("not found");
    }

    // ---------------------------------------------------------------- meta.json

    @ParameterizedTest
    @EnumSource(Signal.class)
    void open_metaJsonDeleted_noMetaWithReasonAndDataReadable(Signal signal) throws IOException {
        BlockRef ref = write(signal, 7);
        List<Object> rows = readRows(ref);
        Files.delete(meta(ref));
        assertNoMeta(ref, rows, "no meta.json");
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void open_metaJsonTruncated_noMetaWithReasonAndDataReadable(Signal signal) throws IOException {
        BlockRef ref = write(signal, 8);
        List<Object> rows = readRows(ref);
        byte[] original = Files.readAllBytes(meta(ref));
        String whole = new String(original, StandardCharsets.UTF_8).strip();
        TreeSet<Integer> lengths = new TreeSet<>(List.of(0, 1, 2, original.length - 1, original.length - 2));
        for (int i = 1; i < 40; i++) {
            lengths.add(original.length * i / 40);
        }
        for (int length : lengths) {
            byte[] truncated = Arrays.copyOf(original, length);
            if (new String(truncated, StandardCharsets.UTF_8).strip().equals(whole)) {
                continue; // only trailing whitespace was cut: still the whole document
            }
            Files.write(meta(ref), truncated);
            assertNoMeta(ref, rows, "meta.json");
        }
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void open_metaJsonGarbage_noMetaWithReasonAndDataReadable(Signal signal) throws IOException {
        BlockRef ref = write(signal, 9);
        List<Object> rows = readRows(ref);
        byte[] original = Files.readAllBytes(meta(ref));
        List<String> checksums = BlockMetaJson.read(original).batches().stream().map(CorruptBlockTest::checksums).toList();
        SplittableRandom random = new SplittableRandom(9);
        List<byte[]> garbage = new ArrayList<>(List.of(
                new byte[0], new byte[1], randomBytes(random, 1000), new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF},
                bytes("null"), bytes("[]"), bytes("{}"), bytes("\"needle-block\""), bytes("{\"format\":\"needle-block\"}"),
                bytes("{\"format\":\"needle-block\",\"writerVersion\":1e999}"),
                bytes("{\"format\":\"needle-block\",\"writerVersion\":123456789012345678901234567890}"),
                bytes("[".repeat(200_000)), bytes("{\"a\":".repeat(100_000)),
                bytes("{\"x\":" + "[".repeat(50_000) + "]".repeat(50_000) + "}"),
                concat(original, bytes("{}")), concat(original, original)));
        for (int i = 0; i < 100; i++) {
            byte[] flipped = original.clone();
            flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
            garbage.add(flipped);
        }
        int problems = 0;
        for (byte[] g : garbage) {
            Files.write(meta(ref), g);
            try (BlockReader reader = openOrFail(ref, "meta.json of " + g.length + " garbage bytes")) {
                if (reader.meta().isPresent()) {
                    // A flipped digit can leave a valid meta.json; then it must still agree with data.arrow.
                    assertEquals(reader.batchCount(), reader.meta().get().batches().size());
                    if (!reader.meta().get().batches().stream().map(CorruptBlockTest::checksums).toList().equals(checksums)) {
                        // Or with a checksum of its own: the batch it no longer matches is not read.
                        CorruptBlockException e = assertThrows(CorruptBlockException.class, () -> decodeAll(reader));
                        assertTrue(e.reason().contains("checksum failed"), e.getMessage());
                        continue;
                    }
                } else {
                    problems++;
                    assertNotNull(reader.metaProblem());
                }
                assertEquals(rows, decodeAll(reader));
            }
        }
        assertTrue(problems >= 16, problems + " of " + garbage.size() + " garbage meta.json files were refused");
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void open_metaJsonLargerThanTheLimit_noMetaWithReason(Signal signal) throws IOException {
        BlockRef ref = write(signal, 10);
        List<Object> rows = readRows(ref);
        try (RandomAccessFile file = new RandomAccessFile(meta(ref).toFile(), "rw")) {
            file.setLength((64L << 20) + 1); // sparse: costs no disk
        }
        assertNoMeta(ref, rows, "larger");
    }

    /** Valid JSON, valid on its own, whose facts contradict the block it sits in. */
    enum WrongFact {
        /** One batch listed where data.arrow has several. */
        BATCH_COUNT,
        /** The other signal's meta.json, with as many batches. */
        SIGNAL,
        /** dataBytes is not the size of data.arrow. */
        DATA_BYTES,
        /** A writer version from the future. */
        NEWER_WRITER_VERSION,
        /** Version 2 with one batch's checksum missing. */
        MISSING_CHECKSUM,
        /** Version 3 with one batch's column checksums missing. */
        MISSING_COLUMN_CHECKSUMS,
        /** Version 1, which has no checksums, with the checksums of version 2: one flipped bit away. */
        VERSION_1_WITH_CHECKSUMS,
        /** Batches that leave a gap between them. */
        ROW_GAP,
        /** Another format's JSON. */
        FORMAT
    }

    @ParameterizedTest
    @EnumSource(WrongFact.class)
    void open_metaJsonWithWrongFacts_noMetaWithReasonAndDataReadable(WrongFact fact) throws IOException {
        BlockRef ref = write(Signal.SPANS, 11);
        List<Object> rows = readRows(ref);
        BlockMeta real;
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            real = reader.meta().orElseThrow();
        }
        assertTrue(real.batches().size() > 1);
        String json = new String(BlockMetaJson.write(real), StandardCharsets.UTF_8);
        String wrong = switch (fact) {
            case BATCH_COUNT -> new String(BlockMetaJson.write(oneBatch(real)), StandardCharsets.UTF_8);
            case SIGNAL -> new String(BlockMetaJson.write(asLogs(real)), StandardCharsets.UTF_8);
            case DATA_BYTES -> new String(BlockMetaJson.write(withDataBytes(real, real.dataBytes() + 1)), StandardCharsets.UTF_8);
            case NEWER_WRITER_VERSION -> resealed(json.replaceFirst("\"writerVersion\": 4,", "\"writerVersion\": 5,"));
            case MISSING_CHECKSUM -> resealed(json.replaceFirst(",\n      \"crc32c\": \\d+", ""));
            case MISSING_COLUMN_CHECKSUMS -> resealed(json.replaceFirst(",\n      \"columnCrc32c\": \\[[0-9, ]*\\]", ""));
            case VERSION_1_WITH_CHECKSUMS -> json.replaceFirst("\"writerVersion\": 4,\n  \"metaCrc32c\": \\d+,",
                    "\"writerVersion\": 1,");
            case ROW_GAP -> resealed(json.replaceFirst("\"firstRow\": " + real.batches().get(1).firstRow() + ",",
                    "\"firstRow\": " + (real.batches().get(1).firstRow() + 1) + ","));
            case FORMAT -> resealed(json.replaceFirst("\"needle-block\"", "\"parquet-footer\""));
        };
        assertFalse(wrong.equals(json), "the test failed to change the JSON");
        Files.writeString(meta(ref), wrong);
        assertNoMeta(ref, rows, "");
    }

    /**
     * {@code json} (ASCII) with its metaCrc32c made to match its bytes again: what is tested is then the wrong
     * fact itself, not the checksum, which would refuse any edit alone.
     */
    private static String resealed(String json) {
        Matcher stored = Pattern.compile("\"metaCrc32c\": (\\d+)").matcher(json);
        assertTrue(stored.find(), "meta.json has its checksum");
        byte[] bytes = json.getBytes(StandardCharsets.US_ASCII);
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, stored.start(1));
        crc.update(bytes, stored.end(1), bytes.length - stored.end(1));
        return json.substring(0, stored.start(1)) + crc.getValue() + json.substring(stored.end(1));
    }

    // ---------------------------------------------------------------- sidecars

    /** One way to break a sidecar file, and the reason a reader must give. */
    enum SidecarDamage {
        DELETED(FailOpenReason.MISSING),
        EMPTY(FailOpenReason.SHORT),
        TRUNCATED_TO_1(FailOpenReason.SHORT),
        TRUNCATED_TO_15(FailOpenReason.SHORT),
        TRUNCATED_TO_HEADER(FailOpenReason.LENGTH),
        TRUNCATED_BY_1(FailOpenReason.LENGTH),
        TRUNCATED_BY_8(FailOpenReason.LENGTH),
        EXTENDED_BY_8(FailOpenReason.LENGTH),
        BITSET_BIT_FLIPPED(FailOpenReason.CRC),
        CRC_BIT_FLIPPED(FailOpenReason.CRC),
        MAGIC_CHANGED(FailOpenReason.MAGIC),
        VERSION_2(FailOpenReason.VERSION),
        K_0(FailOpenReason.K),
        UNKNOWN_FLAG(FailOpenReason.FLAGS),
        WORDS_3(FailOpenReason.WORDS),
        A_DIRECTORY(FailOpenReason.IO);

        final FailOpenReason reason;

        SidecarDamage(FailOpenReason reason) {
            this.reason = reason;
        }

        void apply(Path file) throws IOException {
            byte[] b = Files.readAllBytes(file);
            switch (this) {
                case DELETED -> Files.delete(file);
                case EMPTY -> Files.write(file, new byte[0]);
                case TRUNCATED_TO_1 -> Files.write(file, Arrays.copyOf(b, 1));
                case TRUNCATED_TO_15 -> Files.write(file, Arrays.copyOf(b, 15));
                case TRUNCATED_TO_HEADER -> Files.write(file, Arrays.copyOf(b, 16));
                case TRUNCATED_BY_1 -> Files.write(file, Arrays.copyOf(b, b.length - 1));
                case TRUNCATED_BY_8 -> Files.write(file, Arrays.copyOf(b, b.length - 8));
                case EXTENDED_BY_8 -> Files.write(file, Arrays.copyOf(b, b.length + 8));
                case BITSET_BIT_FLIPPED -> Files.write(file, flip(b, b.length - 3));
                case CRC_BIT_FLIPPED -> Files.write(file, flip(b, 13));
                case MAGIC_CHANGED -> Files.write(file, set(b, 0, 'X'));
                case VERSION_2 -> Files.write(file, set(b, 4, 2));
                case K_0 -> Files.write(file, set(b, 5, 0));
                case UNKNOWN_FLAG -> Files.write(file, set(b, 6, b[6] | 2));
                case WORDS_3 -> Files.write(file, set(b, 8, 3));
                case A_DIRECTORY -> {
                    Files.delete(file);
                    Files.createDirectory(file);
                }
            }
        }

        private static byte[] flip(byte[] b, int at) {
            b[at] ^= 0x10;
            return b;
        }

        private static byte[] set(byte[] b, int at, int value) {
            b[at] = (byte) value;
            return b;
        }
    }

    @ParameterizedTest
    @EnumSource(SidecarDamage.class)
    void sidecar_traceIdxDamaged_failsOpenWithReasonAndNoException(SidecarDamage damage) throws IOException {
        checkSidecarDamage(Signal.SPANS, BloomSidecar.TRACE_IDX, damage);
    }

    @ParameterizedTest
    @EnumSource(SidecarDamage.class)
    void sidecar_attrIdxDamaged_failsOpenWithReasonAndNoException(SidecarDamage damage) throws IOException {
        checkSidecarDamage(Signal.LOGS, BloomSidecar.ATTR_IDX, damage);
    }

    private void checkSidecarDamage(Signal signal, String name, SidecarDamage damage) throws IOException {
        BlockRef ref = write(signal, 12);
        List<Object> rows = readRows(ref);
        Path file = store.blockDir(ref).resolve(name);
        assertTrue(Files.exists(file), name + " was written");
        damage.apply(file);
        String other = name.equals(BloomSidecar.TRACE_IDX) ? BloomSidecar.ATTR_IDX : BloomSidecar.TRACE_IDX;

        try (BlockReader reader = openOrFail(ref, name + " " + damage)) {
            Sidecar sidecar = reader.sidecar(name);
            assertFalse(sidecar.isVerified(), sidecar.toString());
            assertEquals(Optional.of(damage.reason), sidecar.failOpenReason(), sidecar.detail());
            assertTrue(sidecar.mayContainTraceId(new byte[16]), "a sidecar that failed open answers maybe");
            assertTrue(sidecar.mayContain(1L, 3L), "a sidecar that failed open answers maybe");
            assertTrue(sidecar.mayHoldDoubles(), "a sidecar that failed open answers maybe");
            assertNotNull(sidecar.detail());
            // The other sidecar, meta.json and the data are untouched.
            assertTrue(reader.sidecar(other).isVerified(), other);
            assertTrue(reader.meta().isPresent(), reader.metaProblem());
            assertEquals(rows, decodeAll(reader));
        }
    }

    // ---------------------------------------------------------------- helpers

    /**
     * Opens, reads and (optionally) decodes every batch of a block whose data.arrow was damaged, and
     * sorts what happened: readable, a CorruptBlockException (which must name the block), a
     * CorruptValueException while decoding, or a surprise — any other Throwable, a
     * CorruptValueException before decoding, or memory left allocated — kept with its position.
     */
    private final class Harness {
        private final BlockRef ref;
        private final boolean decode;
        private final List<String> surprises = new ArrayList<>();
        /** Surprises by kind (what was thrown, and where), for a summary that a few hundred examples would hide. */
        private final Map<String, Integer> kinds = new TreeMap<>();
        int attempts;
        int readable;
        int corrupt;
        int corruptValue;

        Harness(BlockRef ref, boolean decode) {
            this.ref = ref;
            this.decode = decode;
        }

        void attempt(String what) {
            attempts++;
            String stage = "open";
            // A child allocator per attempt, limited so that an allocation the file cannot justify
            // fails (in Arrow's accounting, before any memory is taken) and is reported here rather
            // than taking the JVM's direct memory; closing it shows a leak, at the position that caused it.
            BufferAllocator attempt = allocator.newChildAllocator("attempt " + attempts, 0, MAX_ALLOCATION);
            Throwable thrown = null;
            try (BlockReader reader = BlockReader.open(store, ref, attempt)) {
                for (int b = 0; b < reader.batchCount(); b++) {
                    stage = "read(" + b + ", [first column])";
                    String first = reader.schema().getFields().get(0).getName();
                    try (VectorSchemaRoot root = reader.read(b, List.of(first))) {
                        root.getRowCount();
                    }
                    stage = "readAll(" + b + ")";
                    try (VectorSchemaRoot root = reader.readAll(b)) {
                        if (decode) {
                            stage = "decoding the rows of batch " + b;
                            decodeRows(ref.signal(), root, new ArrayList<>());
                        }
                    }
                }
                stage = "close";
                readable++;
            } catch (CorruptBlockException e) {
                corrupt++;
                thrown = e;
                if (!e.getMessage().contains(ref.toString())) {
                    surprises.add(what + ", at " + stage + ": the message does not name the block: " + e.getMessage());
                }
            } catch (CorruptValueException e) {
                thrown = e;
                if (stage.startsWith("decoding")) {
                    corruptValue++;
                } else {
                    surprises.add(what + ", at " + stage + ": " + e);
                }
            } catch (Throwable t) {
                surprises.add(what + ", at " + stage + ": " + t + " at " + firstFrames(t));
                kinds.merge(t.getClass().getName() + " from " + firstNeedleFrame(t), 1, Integer::sum);
            }
            for (Throwable t = thrown; t != null; t = t.getCause()) {
                if (t instanceof OutOfMemoryException) {
                    surprises.add(what + ", at " + stage + ": tried to allocate more than " + MAX_ALLOCATION
                            + " bytes for a data.arrow of less than " + MAX_FILE + " (a length was trusted): " + t.getMessage());
                    kinds.merge("an allocation beyond " + MAX_ALLOCATION + " bytes, from " + firstNeedleFrame(t), 1, Integer::sum);
                    break;
                }
            }
            try {
                attempt.close();
            } catch (IllegalStateException e) {
                surprises.add(what + ": memory left allocated after " + stage + ": " + e.getMessage());
                fail(String.join("\n", surprises));
            }
        }

        void assertNoSurprises() {
            if (!surprises.isEmpty()) {
                StringBuilder summary = new StringBuilder();
                kinds.forEach((kind, n) -> summary.append("\n  ").append(n).append(" x ").append(kind));
                fail(surprises.size() + " of " + attempts + " damaged files gave something other than the corruption"
                        + " error (" + ref + "):" + summary + "\nexamples:\n  "
                        + String.join("\n  ", surprises.subList(0, Math.min(25, surprises.size()))));
            }
        }
    }

    /** The first frame of needle's main code in the stack of {@code t} or of its causes. */
    private static String firstNeedleFrame(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            for (StackTraceElement e : c.getStackTrace()) {
                if (e.getClassName().startsWith("dev.needle.") && !e.getClassName().startsWith(CorruptBlockTest.class.getName())) {
                    return e.getClassName().substring(e.getClassName().lastIndexOf('.') + 1) + "." + e.getMethodName()
                            + ":" + e.getLineNumber();
                }
            }
        }
        return "outside needle";
    }

    private static String firstFrames(Throwable t) {
        StackTraceElement[] trace = t.getStackTrace();
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < Math.min(4, trace.length); i++) {
            s.append(i == 0 ? "" : " < ").append(trace[i]);
        }
        return s.toString();
    }

    private BlockRef write(Signal signal, long seed) throws IOException {
        return write(signal, seed, 500, 150);
    }

    private BlockRef write(Signal signal, long seed, int records, int batchRows) throws IOException {
        return write(signal, seed, records, batchRows, Codec.NONE);
    }

    private BlockRef write(Signal signal, long seed, int records, int batchRows, Codec codec) throws IOException {
        BlockWriter writer = new BlockWriter(store, allocator, new Options(batchRows, codec));
        RandomRecords random = new RandomRecords(seed);
        BlockRef ref = signal == Signal.SPANS
                ? writer.writeSpans(TenantId.DEFAULT, random.spans(records)).ref()
                : writer.writeLogs(TenantId.DEFAULT, random.logs(records)).ref();
        assertTrue(Files.size(data(ref)) < MAX_FILE, "the test blocks are meant to stay small");
        return ref;
    }

    private Path data(BlockRef ref) {
        return store.blockDir(ref).resolve(BlockLayout.DATA);
    }

    private Path meta(BlockRef ref) {
        return store.blockDir(ref).resolve(BlockLayout.META);
    }

    private BlockReader openOrFail(BlockRef ref, String what) {
        try {
            return BlockReader.open(store, ref, allocator);
        } catch (Throwable t) {
            throw new AssertionError("opening " + ref + " with " + what + " failed: " + t, t);
        }
    }

    /** Opening succeeds without meta, the reason mentions {@code reasonPart}, and every row still reads as before. */
    private void assertNoMeta(BlockRef ref, List<Object> expectedRows, String reasonPart) throws IOException {
        try (BlockReader reader = openOrFail(ref, "a broken meta.json")) {
            assertTrue(reader.meta().isEmpty(), "a broken meta.json was accepted: " + reader.meta());
            assertNotNull(reader.metaProblem(), "no reason given for the missing meta");
            assertTrue(reader.metaProblem().contains(reasonPart), reader.metaProblem());
            assertEquals(expectedRows, decodeAll(reader));
        }
    }

    private List<Object> readRows(BlockRef ref) throws IOException {
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            assertTrue(reader.meta().isPresent(), reader.metaProblem());
            return decodeAll(reader);
        }
    }

    private static List<Object> decodeAll(BlockReader reader) throws IOException {
        List<Object> rows = new ArrayList<>();
        for (int b = 0; b < reader.batchCount(); b++) {
            try (VectorSchemaRoot root = reader.readAll(b)) {
                decodeRows(reader.block().signal(), root, rows);
            }
        }
        return rows;
    }

    private static void decodeRows(Signal signal, VectorSchemaRoot root, List<Object> out) throws CorruptValueException {
        if (signal == Signal.SPANS) {
            SpanColumns columns = new SpanColumns(root);
            for (int row = 0; row < root.getRowCount(); row++) {
                out.add(columns.read(row));
            }
        } else {
            LogColumns columns = new LogColumns(root);
            for (int row = 0; row < root.getRowCount(); row++) {
                out.add(columns.read(row));
            }
        }
    }

    /** Every checksum of a batch, whole and per column, for comparison. */
    private static String checksums(BatchMeta batch) {
        return batch.crc32c() + " " + batch.columns();
    }

    /** The footer length stored just before the trailing magic. */
    private static int footerLength(byte[] file) {
        return ByteBuffer.wrap(file, file.length - 10, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
    }

    private static BlockMeta oneBatch(BlockMeta m) {
        BatchMeta first = m.batches().get(0);
        BatchMeta all = new BatchMeta(0, 0, (int) m.rows(), m.minTimeUnixNano(), m.maxTimeUnixNano(),
                first.minTraceId(), m.batches().get(m.batches().size() - 1).maxTraceId(), 0,
                first.minDurationNano(), first.maxDurationNano(), null, null, null, first.crc32c()).withColumns(first.columns());
        return new BlockMeta(m.writerVersion(), m.signal(), m.rows(), m.dataBytes(), m.minTimeUnixNano(),
                m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), List.of(all));
    }

    private static BlockMeta asLogs(BlockMeta m) {
        List<BatchMeta> batches = m.batches().stream()
                .map(b -> new BatchMeta(b.index(), b.firstRow(), b.rows(), b.minTimeUnixNano(), b.maxTimeUnixNano(),
                        b.minTraceId(), b.maxTraceId(), b.traceIdNullCount(), null, null, 1, 9, 0, b.crc32c()).withColumns(b.columns()))
                .toList();
        return new BlockMeta(m.writerVersion(), Signal.LOGS, m.rows(), m.dataBytes(), m.minTimeUnixNano(),
                m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), batches);
    }

    private static BlockMeta withDataBytes(BlockMeta m, long dataBytes) {
        return new BlockMeta(m.writerVersion(), m.signal(), m.rows(), dataBytes, m.minTimeUnixNano(),
                m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), m.batches());
    }

    private static byte[] randomBytes(SplittableRandom random, int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] le(int v) {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array();
    }

    private static byte[] concat(byte[]... parts) {
        int n = Arrays.stream(parts).mapToInt(p -> p.length).sum();
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }
}
