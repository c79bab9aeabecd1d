package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** BATCH_ATTR_IDX's builder: its keys, its sizing and its HAS_DOUBLE flag; read back through the one reader. */
class BatchAttrIdxBuilderTest {

    private static final AttributeHash CHECKOUT = AttributeHash.ofString("resource.service.name", "checkout");

    @Test
    void build_noKeys_writesNoFile() {
        assertTrue(new BatchAttrIdxBuilder().build().isEmpty());
    }

    @Test
    void add_samePairInTwoBatches_isTwoKeys_andARepeatIsNone() {
        BatchAttrIdxBuilder builder = new BatchAttrIdxBuilder();
        builder.add(0, CHECKOUT).add(0, CHECKOUT).add(1, CHECKOUT).add(0, CHECKOUT);
        assertEquals(2, builder.distinctKeys());
        Sidecar sidecar = BloomSidecar.decode(builder.build().orElseThrow());
        assertTrue(sidecar.isVerified(), sidecar.detail());
        assertTrue(sidecar.mayContain(CHECKOUT, 0));
        assertTrue(sidecar.mayContain(CHECKOUT, 1));
        assertFalse(sidecar.mayHoldDoubles());
    }

    @Test
    void build_sizesAtFourteenBitsPerKey_roundedUpToAPowerOfTwo() {
        BatchAttrIdxBuilder builder = new BatchAttrIdxBuilder();
        for (int i = 0; i < 1_000; i++) {
            builder.add(i % 37, AttributeHash.ofLong("span.user.id", i));
        }
        // 14,000 bits round up to 16,384 = 256 words; 20,000 to 32,768 = 512.
        assertEquals(16 + 8 * 256, builder.build().orElseThrow().length);
        assertEquals(16 + 8 * 512, builder.build(20).orElseThrow().length);
    }

    @Test
    void build_manyKeysAtManyBitsPerKey_staysWithinTheFormatsLargestFile() {
        BatchAttrIdxBuilder builder = new BatchAttrIdxBuilder();
        for (int i = 0; i < 200_000; i++) {
            builder.add(i & 31, new AttributeHash(i, i >>> 5));
        }
        // 100 bits per key would be 2^25 bits: the file stops at the format's 2^24.
        byte[] file = builder.build(100).orElseThrow();
        assertEquals(BloomSidecar.HEADER_BYTES + 8L * BloomSidecar.MAX_WORDS, file.length);
        assertTrue(BloomSidecar.decode(file).isVerified());
    }

    @Test
    void holdingDouble_setsTheFlag() {
        byte[] file = new BatchAttrIdxBuilder().add(3, CHECKOUT).holdingDouble().build().orElseThrow();
        assertEquals(BloomSidecar.FLAG_HAS_DOUBLE, BloomSidecar.decode(file).flags());
    }

    @Test
    void mayContainInBatch_failedOpen_isMaybeForEveryBatch() {
        Sidecar failed = Sidecar.failedOpen(FailOpenReason.MISSING, "no file", 0);
        for (int batch = 0; batch < 100; batch++) {
            assertTrue(failed.mayContain(CHECKOUT, batch));
        }
    }

    @Test
    void batchLo_negativeBatch_isRejected() {
        assertThrows(IllegalArgumentException.class, () -> KeyMix.batchLo(1, -1));
    }
}
