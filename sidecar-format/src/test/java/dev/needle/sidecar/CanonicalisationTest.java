package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Attribute equality as docs/DESIGN.md defines it, held to bytes written out by hand from the encoding
 * rule (u32 little-endian key length, key UTF-8, type byte, value) and to MurmurHash3_x64_128
 * digests computed outside this code base.
 */
class CanonicalisationTest {

    private static byte[] hex(String spaced) {
        return HexFormat.of().parseHex(spaced.replace(" ", ""));
    }

    private static void assertBytes(String expectedHex, byte[] actual) {
        assertEquals(expectedHex.replace(" ", "").toLowerCase(), HexFormat.of().formatHex(actual));
    }

    // ---------------------------------------------------------------- equal values hash alike

    @Test
    void ofDouble_integralEqualsLong() {
        assertEquals(AttributeHash.ofLong("http.status_code", 200), AttributeHash.ofDouble("http.status_code", 200.0));
        assertArrayEquals(AttributeEncoding.ofLong("http.status_code", 200),
                AttributeEncoding.ofDouble("http.status_code", 200.0));
        assertEquals(AttributeHash.ofLong("k", -7), AttributeHash.ofDouble("k", -7.0));
        assertEquals(AttributeHash.ofLong("k", 1L << 53), AttributeHash.ofDouble("k", 0x1p53));
        assertEquals(AttributeHash.ofLong("k", 9_223_372_036_854_774_784L), AttributeHash.ofDouble("k", Math.nextDown(0x1p63)));
    }

    @Test
    void ofDouble_zeroesAlike() {
        AttributeHash zero = AttributeHash.ofLong("k", 0L);
        assertEquals(zero, AttributeHash.ofDouble("k", 0.0));
        assertEquals(zero, AttributeHash.ofDouble("k", -0.0));
        assertArrayEquals(AttributeEncoding.ofLong("k", 0L), AttributeEncoding.ofDouble("k", -0.0));
    }

    @Test
    void build_equalValuesOfOtherTypesFound() {
        Sidecar fromDouble = BloomSidecar.decode(new AttrIdxBuilder().addDouble("k", 200.0).addDouble("z", -0.0)
                .build().orElseThrow());
        assertTrue(fromDouble.mayContain(AttributeHash.ofLong("k", 200)));
        assertTrue(fromDouble.mayContain(AttributeHash.ofLong("z", 0)));
        assertTrue(fromDouble.mayContain(AttributeHash.ofDouble("z", 0.0)));

        Sidecar fromLong = BloomSidecar.decode(new AttrIdxBuilder().addLong("k", 200).addLong("z", 0)
                .build().orElseThrow());
        assertTrue(fromLong.mayContain(AttributeHash.ofDouble("k", 200.0)));
        assertTrue(fromLong.mayContain(AttributeHash.ofDouble("z", -0.0)));

        // Equal values are one key, not two: same count, same bits (the flags differ: a double was added).
        AttrIdxBuilder mixed = new AttrIdxBuilder().addLong("k", 200).addString("s", "x").addDouble("k", 200.0)
                .addDouble("z", -0.0).addString("s", "y").addLong("z", 0).addDouble("z", 0.0);
        AttrIdxBuilder ints = new AttrIdxBuilder().addLong("k", 200).addString("s", "x").addLong("z", 0)
                .addString("s", "y");
        assertEquals(4, mixed.distinctKeys());
        byte[] a = mixed.build().orElseThrow();
        byte[] b = ints.build().orElseThrow();
        assertEquals(a.length, b.length);
        for (int i = BloomSidecar.HEADER_BYTES; i < a.length; i++) {
            assertEquals(b[i], a[i], "bitset byte " + i);
        }
    }

    // ---------------------------------------------------------------- NaN

    @Test
    void ofDouble_nanNotInserted() {
        double[] nans = {Double.NaN, Double.longBitsToDouble(0x7FF0_0000_0000_0001L),
            Double.longBitsToDouble(0xFFF8_0000_0000_0000L), Double.longBitsToDouble(0x7FFF_FFFF_FFFF_FFFFL)};
        for (double nan : nans) {
            assertNull(AttributeHash.ofDouble("k", nan));
            assertNull(AttributeEncoding.ofDouble("k", nan));
        }
        AttrIdxBuilder builder = new AttrIdxBuilder();
        for (double nan : nans) {
            builder.addDouble("k", nan);
        }
        assertEquals(0, builder.distinctKeys());
        assertTrue(builder.hasDouble());
        assertEquals(Optional.empty(), builder.build());
    }

    // ---------------------------------------------------------------- unequal values differ

    @Test
    void ofString_differsFromNumber() {
        assertNotEquals(AttributeHash.ofString("k", "200"), AttributeHash.ofLong("k", 200));
        assertNotEquals(AttributeHash.ofString("k", "200"), AttributeHash.ofDouble("k", 200.0));
        assertNotEquals(AttributeHash.ofString("k", "200.5"), AttributeHash.ofDouble("k", 200.5));
    }

    @Test
    void ofBool_differsFromStringAndNumber() {
        assertNotEquals(AttributeHash.ofBool("k", true), AttributeHash.ofString("k", "true"));
        assertNotEquals(AttributeHash.ofBool("k", false), AttributeHash.ofString("k", "false"));
        assertNotEquals(AttributeHash.ofBool("k", true), AttributeHash.ofLong("k", 1));
        assertNotEquals(AttributeHash.ofBool("k", false), AttributeHash.ofLong("k", 0));
        assertNotEquals(AttributeHash.ofBool("k", true), AttributeHash.ofBool("k", false));
    }

    @Test
    void ofDouble_fractionDiffersFromNeighbours() {
        AttributeHash oneAndAHalf = AttributeHash.ofDouble("k", 1.5);
        assertNotEquals(AttributeHash.ofLong("k", 1), oneAndAHalf);
        assertNotEquals(AttributeHash.ofLong("k", 2), oneAndAHalf);
        assertNotEquals(AttributeHash.ofDouble("k", 1.0), oneAndAHalf);
        assertNotEquals(AttributeHash.ofDouble("k", 2.0), oneAndAHalf);
        assertNotEquals(AttributeHash.ofDouble("k", Math.nextUp(1.5)), oneAndAHalf);
    }

    @Test
    void ofString_keyAndValueBoundaryMatters() {
        // The key's length prefix keeps ("ab", "c") and ("a", "bc") apart.
        assertNotEquals(AttributeHash.ofString("ab", "c"), AttributeHash.ofString("a", "bc"));
        assertNotEquals(AttributeHash.ofString("k", ""), AttributeHash.ofString("", "k"));
    }

    @Test
    void ofDouble_twoToThe63() {
        byte[] plus = AttributeEncoding.ofDouble("a", 0x1p63);
        assertEquals('d', plus[5], "2^63 does not fit in an int64: a double");
        assertFalse(AttributeEncoding.isIntegralInt64(0x1p63));

        byte[] minus = AttributeEncoding.ofDouble("a", -0x1p63);
        assertEquals('n', minus[5], "-2^63 is Long.MIN_VALUE: an int");
        assertArrayEquals(AttributeEncoding.ofLong("a", Long.MIN_VALUE), minus);
        assertEquals(AttributeHash.ofLong("a", Long.MIN_VALUE), AttributeHash.ofDouble("a", -0x1p63));

        assertEquals('d', AttributeEncoding.ofDouble("a", Math.nextDown(-0x1p63))[5]);
        assertEquals('n', AttributeEncoding.ofDouble("a", Math.nextDown(0x1p63))[5]);
    }

    // ---------------------------------------------------------------- exact bytes, written by hand

    @Test
    void ofString_exactBytes() {
        assertBytes("01 00 00 00 61 73 62", AttributeEncoding.ofString("a", "b"));
        assertBytes("00 00 00 00 73", AttributeEncoding.ofString("", ""));
        assertBytes("01 00 00 00 61 73", AttributeEncoding.ofString("a", ""));
        // "é" = C3 A9, "€" = E2 82 AC, "😀" (U+1F600) = F0 9F 98 80
        assertBytes("02 00 00 00 c3 a9 73 e2 82 ac", AttributeEncoding.ofString("é", "€"));
        assertBytes("01 00 00 00 6b 73 f0 9f 98 80", AttributeEncoding.ofString("k", "😀"));
        // "200" as a string: 's' then ASCII
        assertBytes("01 00 00 00 61 73 32 30 30", AttributeEncoding.ofString("a", "200"));

        // A key of 300 bytes: length 0x012C, little-endian.
        byte[] longKey = AttributeEncoding.ofString("x".repeat(300), "v");
        assertBytes("2c 01 00 00", Arrays.copyOfRange(longKey, 0, 4));
        assertBytes("73 76", Arrays.copyOfRange(longKey, 304, 306));
        assertEquals(306, longKey.length);
    }

    @Test
    void ofLong_exactBytes() {
        assertBytes("01 00 00 00 61 6e 01 00 00 00 00 00 00 00", AttributeEncoding.ofLong("a", 1));
        assertBytes("01 00 00 00 61 6e ff ff ff ff ff ff ff ff", AttributeEncoding.ofLong("a", -1));
        assertBytes("01 00 00 00 61 6e 00 00 00 00 00 00 00 80", AttributeEncoding.ofLong("a", Long.MIN_VALUE));
        assertBytes("01 00 00 00 61 6e ff ff ff ff ff ff ff 7f", AttributeEncoding.ofLong("a", Long.MAX_VALUE));
        // "http.status_code" is 16 bytes; 200 = 0xC8
        assertBytes("10 00 00 00 68 74 74 70 2e 73 74 61 74 75 73 5f 63 6f 64 65 6e c8 00 00 00 00 00 00 00",
                AttributeEncoding.ofLong("http.status_code", 200));
    }

    @Test
    void ofDouble_exactBytes() {
        assertBytes("01 00 00 00 61 6e c8 00 00 00 00 00 00 00", AttributeEncoding.ofDouble("a", 200.0));
        assertBytes("01 00 00 00 61 6e 00 00 00 00 00 00 00 00", AttributeEncoding.ofDouble("a", -0.0));
        assertBytes("01 00 00 00 61 6e 00 00 00 00 00 00 00 80", AttributeEncoding.ofDouble("a", -0x1p63));
        // 1.5 = 0x3FF8000000000000, 0.1 = 0x3FB999999999999A, 2^63 = 0x43E0000000000000
        assertBytes("01 00 00 00 61 64 00 00 00 00 00 00 f8 3f", AttributeEncoding.ofDouble("a", 1.5));
        assertBytes("01 00 00 00 61 64 9a 99 99 99 99 99 b9 3f", AttributeEncoding.ofDouble("a", 0.1));
        assertBytes("01 00 00 00 61 64 00 00 00 00 00 00 e0 43", AttributeEncoding.ofDouble("a", 0x1p63));
        // infinities 0x7FF0000000000000 / 0xFFF0000000000000, the smallest subnormal 0x1
        assertBytes("01 00 00 00 61 64 00 00 00 00 00 00 f0 7f", AttributeEncoding.ofDouble("a", Double.POSITIVE_INFINITY));
        assertBytes("01 00 00 00 61 64 00 00 00 00 00 00 f0 ff", AttributeEncoding.ofDouble("a", Double.NEGATIVE_INFINITY));
        assertBytes("01 00 00 00 61 64 01 00 00 00 00 00 00 00", AttributeEncoding.ofDouble("a", Double.MIN_VALUE));
        assertBytes("01 00 00 00 61 64 01 00 00 00 00 00 00 80", AttributeEncoding.ofDouble("a", -Double.MIN_VALUE));
    }

    @Test
    void ofBool_exactBytes() {
        assertBytes("01 00 00 00 61 62 01", AttributeEncoding.ofBool("a", true));
        assertBytes("01 00 00 00 61 62 00", AttributeEncoding.ofBool("a", false));
    }

    // ---------------------------------------------------------------- HAS_DOUBLE

    private static void assertHasDouble(boolean expected, AttrIdxBuilder builder) {
        byte[] file = builder.build().orElseThrow();
        assertEquals(expected ? 1 : 0, file[6], "flags byte");
        Sidecar sidecar = BloomSidecar.decode(file);
        assertTrue(sidecar.isVerified(), sidecar::detail);
        assertEquals(expected, sidecar.mayHoldDoubles());
        assertEquals(expected ? BloomSidecar.FLAG_HAS_DOUBLE : 0, sidecar.flags());
        assertEquals(expected, builder.hasDouble());
    }

    @Test
    void build_hasDoubleFlagIffDoubleAdded() {
        assertHasDouble(false, new AttrIdxBuilder().addString("k", "1.5").addLong("n", 200).addBool("b", true));
        assertHasDouble(true, new AttrIdxBuilder().addString("k", "v").addDouble("d", 1.5));
        // A double that is encoded as an int is still a double-valued attribute.
        assertHasDouble(true, new AttrIdxBuilder().addDouble("d", 200.0));
        assertHasDouble(true, new AttrIdxBuilder().addDouble("d", -0.0));
        // NaN is not inserted, but it is a double: a NaN alone gives no file (see ofDouble_nanNotInserted).
        assertHasDouble(true, new AttrIdxBuilder().addString("k", "v").addDouble("d", Double.NaN));

        byte[] traceIdx = new TraceIdxBuilder().add(1L, 2L).build().orElseThrow();
        assertEquals(0, traceIdx[6], "TRACE_IDX never sets HAS_DOUBLE");
        assertTrue(BloomSidecar.decode(new byte[3]).mayHoldDoubles(), "a sidecar that failed open rules nothing out");
    }

    // ---------------------------------------------------------------- MurmurHash3_x64_128

    /** The reference digest: h1 then h2, each as little-endian bytes. */
    private static String digestHex(AttributeHash hash) {
        byte[] digest = new byte[16];
        for (int i = 0; i < 8; i++) {
            digest[i] = (byte) (hash.lo() >>> (8 * i));
            digest[8 + i] = (byte) (hash.hi() >>> (8 * i));
        }
        return HexFormat.of().formatHex(digest);
    }

    @Test
    void ofEncoding_murmur3KnownAnswer() {
        byte[] fox = "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8);
        AttributeHash hash = AttributeHash.ofEncoding(fox);
        assertEquals("6c1b07bc7bbc4be347939ac4a93c437a", digestHex(hash));
        assertEquals(0xe34bbc7bbc071b6cL, hash.lo());
        assertEquals(0x7a433ca9c49a9347L, hash.hi());
    }

    /**
     * Digests from a Python port of MurmurHash3_x64_128 from Appleby's MurmurHash3.cpp (which gives
     * the fox vector above). The high-byte inputs would catch an implementation that sign-extends
     * the bytes of the tail, a slip MurmurHash3 ports are known for.
     */
    @Test
    void ofEncoding_murmur3ReferenceVectors() {
        assertEquals(new AttributeHash(0L, 0L), AttributeHash.ofEncoding(new byte[0]));
        assertEquals(new AttributeHash(0x85555565f6597889L, 0xe6b53a48510e895aL), AttributeHash.ofEncoding(hex("61")));
        byte[] highBytes = new byte[31];
        for (int i = 0; i < highBytes.length; i++) {
            highBytes[i] = (byte) (0x80 + i);
        }
        assertEquals(new AttributeHash(0x3ad360999a096e59L, 0xef426ac0b7afb889L), AttributeHash.ofEncoding(highBytes));
        assertEquals(new AttributeHash(0x2c9d1a48cb13ee54L, 0x080e9aebb4723701L),
                AttributeHash.ofEncoding(hex("ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff")));

        // Whole pairs: the encoding, then the hash.
        assertEquals(new AttributeHash(0x20e11ebe7b3bb28aL, 0x17eaca94a13c0d65L), AttributeHash.ofString("a", "b"));
        assertEquals(new AttributeHash(0xc9e869fa49b7ce4bL, 0xfff2a549794b4893L),
                AttributeHash.ofString("http.method", "GET"));
        assertEquals(new AttributeHash(0x136d2da26ccfb3cbL, 0xdedc320e767da3caL),
                AttributeHash.ofString("ключ", "значение"));
    }
}
