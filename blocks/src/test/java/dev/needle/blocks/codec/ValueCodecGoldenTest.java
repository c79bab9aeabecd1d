package dev.needle.blocks.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Version 1 pinned byte for byte. Every expected encoding here was written by hand from the layout
 * table in {@link ValueCodec}'s Javadoc, never copied from the code's output: if one fails, the
 * code changed the format, and old blocks would no longer read back. Never regenerate these.
 */
class ValueCodecGoldenTest {

    private static final HexFormat HEX = HexFormat.of();

    static Stream<Arguments> values() {
        return Stream.of(
                Arguments.of(AnyValue.Empty.INSTANCE, "00"),
                Arguments.of(AnyValue.of(""), "01 00"),
                Arguments.of(AnyValue.of("hé"), "01 03 68 c3a9"),
                Arguments.of(AnyValue.of("€"), "01 03 e282ac"),
                Arguments.of(AnyValue.of("😀"), "01 04 f09f9880"),
                Arguments.of(AnyValue.of("a\u0000"), "01 02 61 00"),
                // 200 = 0b1_1001000: low group 0x48 with the continuation bit, then 0x01.
                Arguments.of(AnyValue.of("a".repeat(200)), "01 c801 " + "61".repeat(200)),
                // 16384 = 2^14: two empty groups with continuation bits, then 0x01.
                Arguments.of(AnyValue.of("b".repeat(16384)), "01 808001 " + "62".repeat(16384)),
                Arguments.of(AnyValue.of(false), "02 00"),
                Arguments.of(AnyValue.of(true), "02 01"),
                Arguments.of(AnyValue.of(1L), "03 0100000000000000"),
                Arguments.of(AnyValue.of(-2L), "03 feffffffffffffff"),
                Arguments.of(AnyValue.of(0x0102030405060708L), "03 0807060504030201"),
                Arguments.of(AnyValue.of(Long.MIN_VALUE), "03 0000000000000080"),
                Arguments.of(AnyValue.of(1.0), "04 000000000000f03f"),
                Arguments.of(AnyValue.of(-0.0), "04 0000000000000080"),
                Arguments.of(AnyValue.of(Double.NaN), "04 000000000000f87f"),
                Arguments.of(AnyValue.of(Double.longBitsToDouble(0x7ff8000000000001L)), "04 010000000000f87f"),
                Arguments.of(AnyValue.of(Double.NEGATIVE_INFINITY), "04 000000000000f0ff"),
                Arguments.of(new AnyValue.Blob(Bytes.EMPTY), "05 00"),
                Arguments.of(new AnyValue.Blob(Bytes.fromHex("deadbeef")), "05 04 deadbeef"),
                Arguments.of(new AnyValue.Array(List.of()), "06 00"),
                Arguments.of(new AnyValue.Array(List.of(AnyValue.of(1L), AnyValue.of("a"), AnyValue.Empty.INSTANCE)),
                        "06 03 03 0100000000000000 01 01 61 00"),
                Arguments.of(new AnyValue.KvList(List.of()), "07 00"),
                Arguments.of(new AnyValue.KvList(List.of(new KeyValue("k", AnyValue.of(true)))), "07 01 01 6b 02 01"),
                Arguments.of(new AnyValue.KvList(List.of(KeyValue.of("k", "v"), KeyValue.of("k", 7))),
                        "07 02 01 6b 01 01 76 01 6b 03 0700000000000000"),
                Arguments.of(new AnyValue.Array(List.of(new AnyValue.Array(List.of(new AnyValue.KvList(List.of(
                                new KeyValue("x", new AnyValue.Array(List.of())))))))),
                        "06 01 06 01 07 01 01 78 06 00"));
    }

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("values")
    void encodeValue_writesGoldenBytes(AnyValue value, String hex) {
        assertEquals(compact(hex), HEX.formatHex(ValueCodec.encodeValue(value)));
    }

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("values")
    void decodeValue_readsGoldenBytes(AnyValue value, String hex) throws CorruptValueException {
        assertEquals(value, ValueCodec.decodeValue(bytes(hex)));
    }

    static Stream<Arguments> attributes() {
        return Stream.of(
                Arguments.of(List.of(), "00"),
                Arguments.of(List.of(new KeyValue("a", AnyValue.Empty.INSTANCE)), "01 01 61 00"),
                Arguments.of(List.of(new KeyValue("", AnyValue.of("")), KeyValue.of("n", -1)),
                        "02 00 01 00 01 6e 03 ffffffffffffffff"));
    }

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("attributes")
    void attributes_goldenBytes(List<KeyValue> attributes, String hex) throws CorruptValueException {
        assertEquals(compact(hex), HEX.formatHex(ValueCodec.encodeAttributes(attributes)));
        assertEquals(attributes, ValueCodec.decodeAttributes(bytes(hex)));
    }

    static Stream<Arguments> events() {
        return Stream.of(
                Arguments.of(List.of(), "00"),
                Arguments.of(List.of(new SpanEvent(1, "e", List.of(), 2)), "01 0100000000000000 01 65 00 02"),
                // droppedAttributesCount -1 is the u32 4294967295: varint ff ff ff ff 0f.
                Arguments.of(List.of(new SpanEvent(0x0102030405060708L, "", List.of(new KeyValue("a", AnyValue.of(true))), -1),
                                new SpanEvent(-1, "x", List.of(), 128)),
                        "02 0807060504030201 00 01 01 61 02 01 ffffffff0f"
                                + " ffffffffffffffff 01 78 00 8001"));
    }

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("events")
    void events_goldenBytes(List<SpanEvent> events, String hex) throws CorruptValueException {
        assertEquals(compact(hex), HEX.formatHex(ValueCodec.encodeEvents(events)));
        assertEquals(events, ValueCodec.decodeEvents(bytes(hex)));
    }

    static Stream<Arguments> links() {
        return Stream.of(
                Arguments.of(List.of(), "00"),
                Arguments.of(List.of(new SpanLink(Bytes.fromHex("0102030405060708090a0b0c0d0e0f10"),
                                Bytes.fromHex("a1a2a3a4a5a6a7a8"), "", List.of(), 0, 0x301)),
                        "01 10 0102030405060708090a0b0c0d0e0f10 08 a1a2a3a4a5a6a7a8 00 00 00 01030000"),
                Arguments.of(List.of(new SpanLink(Bytes.EMPTY, Bytes.EMPTY, "x=1",
                                List.of(new KeyValue("n", AnyValue.of(0.5))), 128, -1)),
                        "01 00 00 03 783d31 01 01 6e 04 000000000000e03f 8001 ffffffff"));
    }

    @ParameterizedTest(name = "[{index}]")
    @MethodSource("links")
    void links_goldenBytes(List<SpanLink> links, String hex) throws CorruptValueException {
        assertEquals(compact(hex), HEX.formatHex(ValueCodec.encodeLinks(links)));
        assertEquals(links, ValueCodec.decodeLinks(bytes(hex)));
    }

    static String compact(String hex) {
        return hex.replace(" ", "");
    }

    static byte[] bytes(String hex) {
        return HEX.parseHex(compact(hex));
    }
}
