package dev.needle.blocks.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The TAGS format: golden bytes of versions 1 and 2, and every truncation and bit flip refused. */
class BlockTagsTest {

    /** Written once by version 1 from {@link #sample()}; never regenerated. */
    private static final String GOLDEN_V1 = "/golden/tags_v1";
    /** Written once by version 2 from {@link #sampleV2()}; never regenerated. */
    private static final String GOLDEN_V2 = "/golden/tags_v2";

    /** Keys of every value type, values out of order and repeated, and a TRUNCATED key. */
    static BlockTags.Builder sample() {
        BlockTags.Builder b = new BlockTags.Builder();
        b.string("resource.service.name", "checkout");
        b.string("resource.service.name", "cart");
        b.string("resource.service.name", "checkout");
        b.integer("span.http.response.status_code", 500);
        b.integer("span.http.response.status_code", 200);
        b.dbl("span.sampling.ratio", 0.25);
        b.dbl("span.sampling.ratio", -0.0);
        b.bool("span.cache.hit", true);
        b.string("intrinsic.name", "GET /cart");
        b.string("span.payload", "x".repeat(BlockTags.MAX_VALUE_BYTES + 1));
        b.string("span.payload", "small");
        return b;
    }

    /** {@link #sample()} and the keys version 2 adds: event and link attributes, event names, status messages, roots. */
    static BlockTags.Builder sampleV2() {
        BlockTags.Builder b = sample();
        b.string(TagsOnlyPairs.EVENT + "exception.type", "IOException");
        b.integer(TagsOnlyPairs.LINK + "link.index", 0);
        b.string(TagsOnlyPairs.EVENT_NAME, "exception");
        b.string(TagsOnlyPairs.EVENT_NAME, "cache miss");
        b.string(TagsOnlyPairs.STATUS_MESSAGE, "x".repeat(BlockTags.MAX_VALUE_BYTES + 1));
        b.string(TagsOnlyPairs.STATUS_MESSAGE, "card declined");
        b.string(TagsOnlyPairs.ROOT_NAME, "GET /cart");
        b.string(TagsOnlyPairs.ROOT_SERVICE_NAME, "checkout");
        return b;
    }

    private static byte[] golden(String name) throws Exception {
        try (InputStream in = BlockTagsTest.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    @Test
    void encode_sampleV2_isTheGoldenBytesOfVersion2() throws Exception {
        assertArrayEquals(golden(GOLDEN_V2), sampleV2().file().orElseThrow());
    }

    @Test
    void decode_goldenV2_givesEveryKeyWithItsValuesInOrder() throws Exception {
        BlockTags tags = BlockTags.decode(golden(GOLDEN_V2), "golden v2");
        assertEquals(BlockTags.VERSION_2, tags.version());
        assertTrue(tags.holdsTagsOnlyPairs());
        Map<String, BlockTags.Values> keys = tags.keys();
        assertEquals(List.of("event.exception.type", "intrinsic.event:name", "intrinsic.name", "intrinsic.rootName",
                "intrinsic.rootServiceName", "intrinsic.statusMessage", "link.link.index", "resource.service.name", "span.cache.hit", "span.http.response.status_code",
                "span.payload", "span.sampling.ratio"), List.copyOf(keys.keySet()));
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Str("cache miss"), new AnyValue.Str("exception")), false),
                keys.get(TagsOnlyPairs.EVENT_NAME));
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Str("card declined")), true),
                keys.get(TagsOnlyPairs.STATUS_MESSAGE), "a message too long to keep makes the key TRUNCATED");
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Int(0)), false), keys.get("link.link.index"));
        assertEquals(sampleV2().build().keys(), keys);
    }

    @Test
    void decode_goldenV1_stillReads_andSaysItLacksTheTagsOnlyPairs() throws Exception {
        BlockTags tags = BlockTags.decode(golden(GOLDEN_V1), "golden v1");
        assertEquals(BlockTags.VERSION_1, tags.version());
        assertFalse(tags.holdsTagsOnlyPairs(), "a version 1 file knows nothing of events, links or status messages");
        Map<String, BlockTags.Values> keys = tags.keys();
        assertEquals(List.of("intrinsic.name", "resource.service.name", "span.cache.hit",
                "span.http.response.status_code", "span.payload", "span.sampling.ratio"), List.copyOf(keys.keySet()));
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Str("cart"), new AnyValue.Str("checkout")), false),
                keys.get("resource.service.name"));
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Int(200), new AnyValue.Int(500)), false),
                keys.get("span.http.response.status_code"));
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Dbl(0.0), new AnyValue.Dbl(0.25)), false),
                keys.get("span.sampling.ratio"), "-0.0 is 0");
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Bool(true)), false), keys.get("span.cache.hit"));
        assertEquals(new BlockTags.Values(List.of(new AnyValue.Str("small")), true), keys.get("span.payload"),
                "a value too long to keep makes its key TRUNCATED");
        assertEquals(sample().build().keys(), keys);
        assertArrayEquals(golden(GOLDEN_V1), tags.encode(), "a file is written back in its own version");
    }

    @Test
    void decode_unknownVersion_isCorrupt() throws Exception {
        byte[] file = golden(GOLDEN_V2);
        file[4] = 3;
        BlockTags.CorruptTagsException e = assertThrows(BlockTags.CorruptTagsException.class,
                () -> BlockTags.decode(file, "v3"));
        assertEquals("v3: unknown version 3, expected 1 or 2", e.getMessage());
    }

    @Test
    void decode_everyTruncation_isCorrupt() throws Exception {
        for (String name : List.of(GOLDEN_V1, GOLDEN_V2)) {
            byte[] file = golden(name);
            for (int n = 0; n < file.length; n++) {
                byte[] cut = Arrays.copyOf(file, n);
                assertThrows(BlockTags.CorruptTagsException.class, () -> BlockTags.decode(cut, "cut"), name + " " + n);
            }
        }
    }

    @Test
    void decode_everyBitFlip_isCorrupt() throws Exception {
        for (String name : List.of(GOLDEN_V1, GOLDEN_V2)) {
            byte[] file = golden(name);
            for (int bit = 0; bit < file.length * 8; bit++) {
                byte[] flipped = file.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                assertThrows(BlockTags.CorruptTagsException.class, () -> BlockTags.decode(flipped, "flip"),
                        name + " bit " + bit);
            }
        }
    }

    @Test
    void decode_hugeCountsUnderAValidChecksum_areCorruptWithoutAllocating() {
        for (int count : new int[] {-1, Integer.MAX_VALUE, 1000}) {
            byte[] body = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(count).array();
            BlockTags.CorruptTagsException e = assertThrows(BlockTags.CorruptTagsException.class,
                    () -> BlockTags.decode(withHeader(body), "huge"));
            assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
        }
    }

    @Test
    void builder_boundsTheValuesPerKeyAndTheKeysPerBlock() {
        BlockTags.Builder many = new BlockTags.Builder();
        for (int i = 0; i <= BlockTags.MAX_VALUES_PER_KEY; i++) {
            many.integer("span.n", i);
        }
        many.dbl("span.nan", Double.NaN);
        BlockTags tags = many.build();
        assertEquals(BlockTags.MAX_VALUES_PER_KEY, tags.keys().get("span.n").values().size());
        assertTrue(tags.keys().get("span.n").truncated());
        assertEquals(new BlockTags.Values(List.of(), false), tags.keys().get("span.nan"), "NaN is never listed, its key is");

        BlockTags.Builder tooMany = new BlockTags.Builder();
        for (int i = 0; i <= BlockTags.MAX_KEYS; i++) {
            tooMany.bool("span.k" + i, true);
        }
        assertTrue(tooMany.file().isEmpty(), "past MAX_KEYS a block gets no file; readers scan it");
        assertTrue(new BlockTags.Builder().file().isEmpty(), "nor does a block without keys");
    }

    @Test
    void merge_unitesTheValuesAndKeepsTruncation() {
        BlockTags.Builder other = new BlockTags.Builder();
        other.string("resource.service.name", "payment");
        other.bool("span.cache.hit", false);
        BlockTags.Builder merged = new BlockTags.Builder();
        merged.merge(sample().build());
        merged.merge(other.build());
        Map<String, BlockTags.Values> keys = merged.build().keys();
        assertEquals(List.of(new AnyValue.Str("cart"), new AnyValue.Str("checkout"), new AnyValue.Str("payment")),
                keys.get("resource.service.name").values());
        assertEquals(List.of(new AnyValue.Bool(false), new AnyValue.Bool(true)), keys.get("span.cache.hit").values());
        assertTrue(keys.get("span.payload").truncated());
    }

    private static byte[] withHeader(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(BlockTags.HEADER_BYTES + body.length).order(ByteOrder.LITTLE_ENDIAN)
                .put(new byte[] {'N', 'T', 'A', 'G', 1, 0, 0, 0}).putInt(body.length).putInt((int) crc.getValue())
                .put(body).array();
    }
}
