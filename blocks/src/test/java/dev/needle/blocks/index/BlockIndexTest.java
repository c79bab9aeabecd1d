package dev.needle.blocks.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.TenantId;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The index format: golden bytes of versions 1 and 2, and every truncation, bit flip and misplaced
 * object refused.
 */
class BlockIndexTest {

    /** Written once by version 1 from {@link #sample()} without its footer; never regenerated. */
    private static final String GOLDEN_V1 = "/golden/index_v1";
    /** Written once by version 2 from {@link #sample()}; never regenerated. */
    private static final String GOLDEN_V2 = "/golden/index_v2";
    private static final TenantId TENANT = TenantId.of("acme");

    static final BlockName FIRST = BlockName.parse("20261129T201500.123Z_20261129T202000.457Z_a1").orElseThrow();
    static final BlockName SECOND = BlockName.parse("20261129T202000.000Z_20261129T202500.000Z_b2").orElseThrow();

    /**
     * Two blocks, out of order: one with every file (a 2-byte data.arrow footer), one with only its
     * meta.json (no filters, no footer).
     */
    static BlockIndex sample() {
        return BlockIndex.of(TENANT, Signal.SPANS, List.of(
                new BlockIndex.Entry(SECOND, ascii("{\"rows\":2}"), new byte[0], new byte[0]),
                new BlockIndex.Entry(FIRST, ascii("{\"rows\":1}"), new byte[] {1, 2, 3}, new byte[] {4, 5},
                        new byte[] {6, 7})));
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] golden(String resource) throws Exception {
        try (InputStream in = BlockIndexTest.class.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }

    private static byte[] golden() throws Exception {
        return golden(GOLDEN_V2);
    }

    @Test
    void encode_sample_isTheGoldenBytesOfVersion2() throws Exception {
        assertArrayEquals(golden(), sample().encode());
    }

    @Test
    void decode_golden_givesTheEntriesInNameOrderWithTheirBytes() throws Exception {
        BlockIndex index = BlockIndex.decode(golden(), TENANT, Signal.SPANS);
        assertEquals(List.of(FIRST, SECOND), index.entries().stream().map(BlockIndex.Entry::name).toList());
        BlockIndex.Entry first = index.entries().get(0);
        assertArrayEquals(ascii("{\"rows\":1}"), first.meta());
        assertArrayEquals(new byte[] {1, 2, 3}, first.traceIdx());
        assertArrayEquals(new byte[] {4, 5}, first.attrIdx());
        assertArrayEquals(new byte[] {6, 7}, first.dataFooter());
        assertEquals(0, index.entries().get(1).traceIdx().length, "no filter");
        assertEquals(0, index.entries().get(1).dataFooter().length, "no footer");
    }

    @Test
    void decode_goldenOfVersion1_givesTheSameEntriesWithoutFooters() throws Exception {
        BlockIndex index = BlockIndex.decode(golden(GOLDEN_V1), TENANT, Signal.SPANS);
        List<BlockIndex.Entry> expected = sample().entries();
        assertEquals(expected.size(), index.entries().size());
        for (int i = 0; i < expected.size(); i++) {
            BlockIndex.Entry e = expected.get(i);
            BlockIndex.Entry read = index.entries().get(i);
            assertEquals(e.name(), read.name());
            assertArrayEquals(e.meta(), read.meta());
            assertArrayEquals(e.traceIdx(), read.traceIdx());
            assertArrayEquals(e.attrIdx(), read.attrIdx());
            assertEquals(0, read.dataFooter().length, "version 1 records no footer");
        }
    }

    @Test
    void withAndWithout_addReplaceAndRemoveByName() throws Exception {
        BlockIndex index = sample().without(Set.of(FIRST));
        assertEquals(List.of(SECOND), index.entries().stream().map(BlockIndex.Entry::name).toList());
        BlockIndex replaced = index.with(List.of(new BlockIndex.Entry(SECOND, new byte[0], new byte[] {9}, new byte[0])));
        assertEquals(1, replaced.entries().size());
        BlockIndex again = BlockIndex.decode(replaced.encode(), TENANT, Signal.SPANS);
        assertArrayEquals(new byte[] {9}, again.entries().get(0).traceIdx());
    }

    @Test
    void decode_anotherTenantOrSignal_isCorrupt() throws Exception {
        byte[] object = golden();
        assertThrows(BlockIndex.CorruptIndexException.class, () -> BlockIndex.decode(object, TenantId.of("other"), Signal.SPANS));
        assertThrows(BlockIndex.CorruptIndexException.class, () -> BlockIndex.decode(object, TENANT, Signal.LOGS));
    }

    @Test
    void decode_anUnknownVersion_isCorrupt() throws Exception {
        byte[] object = golden();
        object[4] = 3;
        BlockIndex.CorruptIndexException e = assertThrows(BlockIndex.CorruptIndexException.class,
                () -> BlockIndex.decode(object, TENANT, Signal.SPANS));
        assertTrue(e.getMessage().contains("unknown version 3"), e.getMessage());
    }

    @Test
    void decode_everyTruncationOfEitherVersion_isCorrupt() throws Exception {
        for (String resource : List.of(GOLDEN_V1, GOLDEN_V2)) {
            byte[] object = golden(resource);
            for (int n = 0; n < object.length; n++) {
                byte[] cut = Arrays.copyOf(object, n);
                assertThrows(BlockIndex.CorruptIndexException.class, () -> BlockIndex.decode(cut, TENANT, Signal.SPANS),
                        resource + " cut to length " + n);
            }
        }
    }

    @Test
    void decode_everyBitFlipOfEitherVersion_isCorrupt() throws Exception {
        for (String resource : List.of(GOLDEN_V1, GOLDEN_V2)) {
            byte[] object = golden(resource);
            for (int bit = 0; bit < object.length * 8; bit++) {
                byte[] flipped = object.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                assertThrows(BlockIndex.CorruptIndexException.class,
                        () -> BlockIndex.decode(flipped, TENANT, Signal.SPANS), resource + " bit " + bit);
            }
        }
    }

    @Test
    void decode_hugeCountsAndLengthsUnderAValidChecksum_areCorruptWithoutAllocating() {
        for (int count : new int[] {-1, Integer.MAX_VALUE, 1000}) {
            ByteBuffer body = ByteBuffer.allocate(2 + 4 + 4).order(ByteOrder.LITTLE_ENDIAN);
            body.putShort((short) 4).put(ascii("acme")).putInt(count);
            BlockIndex.CorruptIndexException e = assertThrows(BlockIndex.CorruptIndexException.class,
                    () -> BlockIndex.decode(withHeader(body.array()), TENANT, Signal.SPANS));
            assertTrue(e.getMessage().contains("more than its"), e.getMessage());
        }
        byte[] name = ascii(FIRST.toString());
        ByteBuffer body = ByteBuffer.allocate(2 + 4 + 4 + 2 + name.length + 4 + 20).order(ByteOrder.LITTLE_ENDIAN);
        body.putShort((short) 4).put(ascii("acme")).putInt(1).putShort((short) name.length).put(name).putInt(-1);
        assertThrows(BlockIndex.CorruptIndexException.class,
                () -> BlockIndex.decode(withHeader(body.array()), TENANT, Signal.SPANS));
    }

    private static byte[] withHeader(byte[] body) {
        byte[] object = ByteBuffer.allocate(BlockIndex.HEADER_BYTES + body.length).order(ByteOrder.LITTLE_ENDIAN)
                .put(new byte[] {'N', 'I', 'D', 'X', 2, 1, 0, 0}).putInt(body.length).putInt(0).put(body).array();
        CRC32C crc = new CRC32C();
        crc.update(object, 0, 12);
        crc.update(object, BlockIndex.HEADER_BYTES, body.length);
        ByteBuffer.wrap(object, 12, 4).order(ByteOrder.LITTLE_ENDIAN).putInt((int) crc.getValue());
        return object;
    }
}
