package dev.needle.blocks.read;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.Version1Blocks;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.BlockWriter.Codec;
import dev.needle.blocks.write.BlockWriter.Options;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * data.arrow's footer as an index keeps it: taken from real blocks, it gives the facts that opening
 * the block learns; bytes that are not that block's footer (cut, another block's, a block without
 * checksums, another signal) give none, and a block opened with the facts reads what it reads opened
 * from its own files.
 */
class DataFooterTest {

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void open() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
    }

    @AfterEach
    void close() {
        allocator.close();
    }

    private BlockRef write(Signal signal, long seed, int records) throws IOException {
        BlockWriter writer = new BlockWriter(store, allocator, new Options(100, Codec.ZSTD));
        RandomRecords random = new RandomRecords(seed);
        return signal == Signal.SPANS ? writer.writeSpans(TenantId.DEFAULT, random.spans(records)).ref()
                : writer.writeLogs(TenantId.DEFAULT, random.logs(records)).ref();
    }

    private byte[] footer(BlockRef ref) throws IOException {
        try (SeekableByteChannel data = store.open(ref, BlockLayout.DATA)) {
            return DataFooter.read(data);
        }
    }

    @ParameterizedTest
    @EnumSource(Signal.class)
    void read_thenFacts_areWhatOpeningLearns_andReadTheSameRows(Signal signal) throws IOException {
        BlockRef ref = write(signal, 3, 450);
        byte[] footer = footer(ref);
        byte[] data = Files.readAllBytes(store.blockDir(ref).resolve(BlockLayout.DATA));
        assertArrayEquals(Arrays.copyOfRange(data, data.length - footer.length, data.length), footer,
                "the file's last bytes");
        try (BlockReader opened = BlockReader.open(store, ref, allocator)) {
            BlockFacts expected = opened.facts().orElseThrow();
            BlockFacts facts = DataFooter.facts(ref, expected.meta(), footer).orElseThrow();
            assertEquals(5, facts.batches().size());
            assertEquals(offsets(expected.batches()), offsets(facts.batches()));
            try (BlockReader known = BlockReader.openKnown(store, ref, allocator, facts, bytes -> { })) {
                for (int b = 0; b < facts.batches().size(); b++) {
                    try (var fromFiles = opened.readAll(b); var fromFacts = known.readAll(b)) {
                        assertTrue(fromFiles.equals(fromFacts), "batch " + b);
                    }
                }
            }
        }
    }

    private static List<String> offsets(List<ArrowBlock> batches) {
        return batches.stream().map(b -> b.getOffset() + "+" + b.getMetadataLength() + "+" + b.getBodyLength()).toList();
    }

    @Test
    void facts_ofBytesThatAreNotThisBlocksFooter_areNone() throws IOException {
        BlockRef ref = write(Signal.SPANS, 4, 450);
        BlockRef other = write(Signal.SPANS, 5, 250);
        BlockRef logs = write(Signal.LOGS, 4, 450);
        byte[] footer = footer(ref);
        BlockMeta meta;
        try (BlockReader opened = BlockReader.open(store, ref, allocator)) {
            meta = opened.meta().orElseThrow();
        }
        for (int n = 0; n < footer.length; n++) {
            assertEquals(Optional.empty(), DataFooter.facts(ref, meta, Arrays.copyOfRange(footer, footer.length - n,
                    footer.length)), "the last " + n + " bytes");
        }
        assertEquals(Optional.empty(), DataFooter.facts(ref, meta, footer(other)), "another block's: 3 batches, not 5");
        assertEquals(Optional.empty(), DataFooter.facts(ref, meta, footer(logs)), "a block of logs");
        assertEquals(Optional.empty(), DataFooter.facts(new BlockRef(ref.tenant(), Signal.LOGS, ref.name()), meta, footer),
                "for a block of another signal");
        byte[] notArrow = footer.clone();
        notArrow[notArrow.length - 1] = 'X';
        assertEquals(Optional.empty(), DataFooter.facts(ref, meta, notArrow));

        BlockMeta noChecksums = Version1Blocks.downgrade(store.blockDir(ref));
        assertEquals(Optional.empty(), DataFooter.facts(ref, noChecksums, footer(ref)),
                "without checksums nothing would check the bytes read through it");
    }

    @Test
    void read_aFileThatDoesNotEndAsArrow_givesNothing() throws IOException {
        BlockRef ref = write(Signal.SPANS, 6, 100);
        Path data = store.blockDir(ref).resolve(BlockLayout.DATA);
        byte[] bytes = Files.readAllBytes(data);
        Files.write(data, Arrays.copyOf(bytes, bytes.length - 1));
        assertEquals(0, footer(ref).length);
        Files.write(data, new byte[12]);
        assertEquals(0, footer(ref).length);
        ByteBuffer huge = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
        huge.position(64 - 10);
        huge.putInt(Integer.MAX_VALUE).put("ARROW1".getBytes(StandardCharsets.US_ASCII));
        Files.write(data, huge.array());
        assertEquals(0, footer(ref).length, "a footer longer than the file");
    }
}
