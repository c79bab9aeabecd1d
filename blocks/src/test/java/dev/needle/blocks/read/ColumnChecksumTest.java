package dev.needle.blocks.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.ColumnChecksums;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.BlockWriter.Codec;
import dev.needle.blocks.write.BlockWriter.Options;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Blocks of writer version 3 check what they read, column by column: a byte flipped in one column's
 * range of a real file is refused by every read of that column (never read as another value), and
 * changes nothing for a read of the other columns, which never see those bytes; a byte flipped in
 * a batch's header is refused by every read of that batch.
 */
class ColumnChecksumTest {

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
    void read_byteFlippedInOneColumn_thatColumnRefusedTheOthersReadAsWritten(Codec codec) throws IOException {
        for (Signal signal : Signal.values()) {
            BlockWriter writer = new BlockWriter(store, allocator, new Options(60, codec));
            RandomRecords random = new RandomRecords(31);
            BlockRef ref = signal == Signal.SPANS
                    ? writer.writeSpans(TenantId.DEFAULT, random.spans(150)).ref()
                    : writer.writeLogs(TenantId.DEFAULT, random.logs(150)).ref();
            Path data = store.blockDir(ref).resolve(BlockLayout.DATA);
            byte[] original = Files.readAllBytes(data);
            List<BatchMeta> metas = BlockMetaJson.read(Files.readAllBytes(data.resolveSibling(BlockLayout.META))).batches();
            List<ArrowBlock> places;
            try (ArrowFileReader arrow = new ArrowFileReader(FileChannel.open(data, StandardOpenOption.READ), allocator)) {
                places = List.copyOf(arrow.getRecordBlocks());
            }
            Map<String, VectorSchemaRoot> intact = new HashMap<>();
            List<String> names;
            try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                names = reader.schema().getFields().stream().map(f -> f.getName()).toList();
                for (int b = 0; b < reader.batchCount(); b++) {
                    for (String name : names) {
                        intact.put(b + "/" + name, reader.read(b, List.of(name)));
                    }
                }
            }
            for (int b = 0; b < places.size(); b++) {
                ColumnChecksums columns = metas.get(b).columns();
                long bodyStart = places.get(b).getOffset() + places.get(b).getMetadataLength();
                for (int c = 0; c < names.size(); c++) {
                    long from = bodyStart + columns.offsets().get(c);
                    long to = bodyStart + columns.end(c, places.get(b).getBodyLength());
                    if (from == to) {
                        continue;
                    }
                    byte[] flipped = original.clone();
                    flipped[(int) ((from + to) / 2)] ^= 0x10;
                    Files.write(data, flipped);
                    String what = signal + " " + codec + ": batch " + b + ", a byte of column " + names.get(c) + " flipped";
                    try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                        int batch = b;
                        String damaged = names.get(c);
                        CorruptBlockException e = assertThrows(CorruptBlockException.class,
                                () -> reader.read(batch, List.of(damaged)), what);
                        assertEquals(ref, e.block());
                        assertTrue(e.reason().startsWith("batch " + b + " column " + damaged + " checksum failed"),
                                what + ": " + e.reason());
                        assertThrows(CorruptBlockException.class, () -> reader.readAll(batch), what);
                        String other = names.get((c + 1) % names.size());
                        try (VectorSchemaRoot read = reader.read(batch, List.of(other))) {
                            assertTrue(intact.get(b + "/" + other).equals(read),
                                    what + ": column " + other + " does not read those bytes");
                        }
                    }
                }
                byte[] flipped = original.clone();
                flipped[(int) places.get(b).getOffset() + places.get(b).getMetadataLength() / 2] ^= 0x10;
                Files.write(data, flipped);
                try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                    int batch = b;
                    CorruptBlockException e = assertThrows(CorruptBlockException.class,
                            () -> reader.read(batch, List.of(names.get(0))));
                    assertTrue(e.reason().startsWith("batch " + b + " header checksum failed"), e.reason());
                }
            }
            Files.write(data, original);
            intact.values().forEach(VectorSchemaRoot::close);
        }
    }
}
