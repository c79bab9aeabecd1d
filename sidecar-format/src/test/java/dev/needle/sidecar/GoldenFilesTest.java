package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/** The golden files, written once by an independent implementation, are what the builders write today. */
class GoldenFilesTest {

    static final List<String> NAMES = GoldenKeys.NAMES;

    @ParameterizedTest
    @FieldSource("NAMES")
    void build_fromGoldenKeys_reproducesGoldenBytes(String name) {
        byte[] golden = GoldenKeys.file(name);
        byte[] rebuilt = GoldenKeys.rebuild(GoldenKeys.keys(name)).orElseThrow();
        assertEquals(HexFormat.of().formatHex(golden), HexFormat.of().formatHex(rebuilt), name);
    }

    @ParameterizedTest
    @FieldSource("NAMES")
    void decode_goldenFile_isVerifiedAndHoldsEveryKey(String name) {
        Sidecar sidecar = BloomSidecar.decode(GoldenKeys.file(name));
        assertTrue(sidecar.isVerified(), sidecar.detail());
        for (GoldenKeys.Key key : GoldenKeys.keys(name)) {
            assertTrue(key.in(sidecar), () -> name + " lost " + key);
        }
    }

    @Test
    void decode_attrGolden_hasDoubleFlag() {
        Sidecar sidecar = BloomSidecar.decode(GoldenKeys.file("attr_idx_all_types"));
        assertEquals(BloomSidecar.FLAG_HAS_DOUBLE, sidecar.flags());
        assertTrue(sidecar.mayHoldDoubles());
    }

    @Test
    void decode_goldenFiles_haveDocumentedSizes() {
        assertEquals(256, BloomSidecar.decode(GoldenKeys.file("trace_idx_1000")).bits().orElseThrow().words());
        assertEquals(16, BloomSidecar.decode(GoldenKeys.file("attr_idx_all_types")).bits().orElseThrow().words());
        assertEquals(1, BloomSidecar.decode(GoldenKeys.file("trace_idx_one_word")).bits().orElseThrow().words());
        assertEquals(8, BloomSidecar.decode(GoldenKeys.file("batch_attr_idx_5_batches")).bits().orElseThrow().words());
        assertEquals(1, BloomSidecar.decode(GoldenKeys.file("batch_attr_idx_one_word")).bits().orElseThrow().words());
    }

    @Test
    void decode_batchGolden_hasDoubleFlag_andRulesOutPairsInBatchesThatDoNotHoldThem() {
        Sidecar sidecar = BloomSidecar.decode(GoldenKeys.file("batch_attr_idx_5_batches"));
        assertTrue(sidecar.mayHoldDoubles());
        AttributeHash user = AttributeHash.ofString("span.user.id", "user-17");
        AttributeHash cart = AttributeHash.ofString("resource.service.name", "cart");
        for (int batch : new int[] {0, 36}) {
            assertTrue(sidecar.mayContain(user, batch));
        }
        for (int batch : new int[] {1, 2, 3, 70000}) {
            assertFalse(sidecar.mayContain(user, batch), "user-17 in batch " + batch);
        }
        assertTrue(sidecar.mayContain(cart, 2));
        for (int batch : new int[] {0, 1, 36}) {
            assertFalse(sidecar.mayContain(cart, batch), "cart in batch " + batch);
        }
        assertFalse(BloomSidecar.decode(GoldenKeys.file("batch_attr_idx_one_word")).mayHoldDoubles());
    }

    @Test
    void encode_oneWordFile_matchesBytesInFormatDoc() {
        assertArrayEquals(HexFormat.of().parseHex("4e424c4d01070000010000000ee922ec860111fa246ffd12"),
                GoldenKeys.file("trace_idx_one_word"));
        assertArrayEquals(HexFormat.of().parseHex("4e424c4d0107000001000000d6b7caf082b001062e11a841"),
                GoldenKeys.file("batch_attr_idx_one_word"));
    }
}
