package dev.needle.blocks.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bad bytes give a {@link CorruptValueException} and nothing else: every truncation of valid
 * encodings, random bit flips and byte overwrites, random garbage, and hand-made hostile inputs
 * (huge lengths, nesting a million deep). Mutated bytes that still decode must be the canonical
 * encoding of what they decode to.
 */
class ValueCodecCorruptionTest {

    private static final HexFormat HEX = HexFormat.of();

    /** The four encodings, each able to make random valid bytes and to decode then re-encode. */
    enum Format {
        VALUE, ATTRIBUTES, EVENTS, LINKS;

        byte[] randomEncoding(RandomValues random) {
            return switch (this) {
                case VALUE -> ValueCodec.encodeValue(random.value());
                case ATTRIBUTES -> ValueCodec.encodeAttributes(random.attributes());
                case EVENTS -> ValueCodec.encodeEvents(random.events());
                case LINKS -> ValueCodec.encodeLinks(random.links());
            };
        }

        byte[] decodeAndReencode(byte[] bytes) throws CorruptValueException {
            return switch (this) {
                case VALUE -> ValueCodec.encodeValue(ValueCodec.decodeValue(bytes));
                case ATTRIBUTES -> ValueCodec.encodeAttributes(ValueCodec.decodeAttributes(bytes));
                case EVENTS -> ValueCodec.encodeEvents(ValueCodec.decodeEvents(bytes));
                case LINKS -> ValueCodec.encodeLinks(ValueCodec.decodeLinks(bytes));
            };
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void decode_everyTruncation_corrupt(Format format) {
        RandomValues random = new RandomValues(100 + format.ordinal());
        for (byte[] valid : samples(format, random, 300, 1024)) {
            for (int length = 0; length < valid.length; length++) {
                byte[] truncated = Arrays.copyOf(valid, length);
                assertThrows(CorruptValueException.class, () -> format.decodeAndReencode(truncated),
                        () -> format + " prefix of " + truncated.length + " bytes of " + HEX.formatHex(valid));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void decode_randomBitFlipsAndOverwrites_valueOrCorrupt(Format format) {
        RandomValues random = new RandomValues(200 + format.ordinal());
        SplittableRandom mutations = new SplittableRandom(300 + format.ordinal());
        List<byte[]> samples = samples(format, random, 200, 4096);
        for (int i = 0; i < 5_000; i++) {
            byte[] bytes = samples.get(mutations.nextInt(samples.size())).clone();
            if (bytes.length == 0) {
                continue;
            }
            for (int n = 1 + mutations.nextInt(3); n > 0; n--) {
                int at = mutations.nextInt(bytes.length);
                if (mutations.nextBoolean()) {
                    bytes[at] ^= (byte) (1 << mutations.nextInt(8));
                } else {
                    // Length fields hit hardest: values that pass for varints and tags.
                    bytes[at] = (byte) new int[] {0x00, 0x01, 0x07, 0x08, 0x7f, 0x80, 0xff}[mutations.nextInt(7)];
                }
            }
            decodeOrCorrupt(format, bytes);
        }
    }

    @ParameterizedTest
    @EnumSource(Format.class)
    void decode_randomGarbage_valueOrCorrupt(Format format) {
        SplittableRandom random = new SplittableRandom(400 + format.ordinal());
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = new byte[random.nextInt(65)];
            for (int j = 0; j < bytes.length; j++) {
                // Half small bytes, so that tags, counts and lengths are often plausible and the decoder goes deep.
                bytes[j] = (byte) (random.nextBoolean() ? random.nextInt(9) : random.nextInt(256));
            }
            decodeOrCorrupt(format, bytes);
        }
    }

    static Stream<Arguments> hostile() {
        return Stream.of(
                Arguments.of(Format.VALUE, "", "truncated", 0),
                Arguments.of(Format.VALUE, "08", "unknown value tag 0x08", 0),
                Arguments.of(Format.VALUE, "ff", "unknown value tag 0xff", 0),
                Arguments.of(Format.VALUE, "02 02", "bool byte 0x02", 1),
                Arguments.of(Format.VALUE, "03 01020304", "truncated fixed64", 1),
                Arguments.of(Format.VALUE, "01 8000", "not minimal", 1),
                Arguments.of(Format.VALUE, "01 ffffffffffff01", "longer than 5 bytes", 1),
                Arguments.of(Format.VALUE, "01 ffffffff0f", "exceeds 2147483647", 1),
                Arguments.of(Format.VALUE, "01 ffffffff07", "length 2147483647 exceeds the 0 bytes", 1),
                Arguments.of(Format.VALUE, "05 05 0102", "length 5 exceeds the 2 bytes", 1),
                Arguments.of(Format.VALUE, "06 ffffffff07", "count 2147483647 exceeds", 1),
                Arguments.of(Format.VALUE, "07 ffffffff07", "count 2147483647 exceeds", 1),
                Arguments.of(Format.VALUE, "01 02 c328", "malformed UTF-8", 2),
                Arguments.of(Format.VALUE, "01 03 61 c328", "malformed UTF-8", 3),
                Arguments.of(Format.VALUE, "01 03 eda080", "malformed UTF-8", 2), // an encoded surrogate
                Arguments.of(Format.VALUE, "01 02 c080", "malformed UTF-8", 2), // overlong NUL
                Arguments.of(Format.VALUE, "01 02 e282", "malformed UTF-8", 2), // cut inside a character
                Arguments.of(Format.VALUE, "00 00", "1 trailing bytes", 1),
                Arguments.of(Format.VALUE, "06 01 00 00", "1 trailing bytes", 3),
                Arguments.of(Format.ATTRIBUTES, "01 01 6b", "truncated", 3),
                Arguments.of(Format.ATTRIBUTES, "05 01 6b 00", "count 5 exceeds the 3 bytes", 0),
                Arguments.of(Format.ATTRIBUTES, "02 01 6b 00", "truncated varint", 4),
                Arguments.of(Format.EVENTS, "01 0100000000000000 00 00 ffffffff1f", "exceeds 4294967295", 11),
                Arguments.of(Format.LINKS, "01 00 00 00 00 00 010000", "truncated fixed32", 6),
                Arguments.of(Format.LINKS, "01 10 00", "length 16 exceeds the 1 bytes", 1),
                // 129 arrays, one inside the other: the 129th (at offset 256) is one too deep.
                Arguments.of(Format.VALUE, "0601".repeat(128) + "0600", "nested deeper than 128", 256),
                // A million nested kvlists: refused at the same depth, without recursing a million times.
                Arguments.of(Format.VALUE, "07010100".repeat(1_000_000), "nested deeper than 128", 512));
    }

    @ParameterizedTest(name = "[{index}] {2}")
    @MethodSource("hostile")
    void decode_hostileInput_corruptWithOffset(Format format, String hex, String problem, int offset) {
        CorruptValueException e = assertThrows(CorruptValueException.class,
                () -> format.decodeAndReencode(HEX.parseHex(hex.replace(" ", ""))));
        assertTrue(e.getMessage().contains(problem), e.getMessage());
        assertTrue(e.getMessage().endsWith(" at offset " + offset), e.getMessage());
        assertEquals(offset, e.offset());
    }

    @Test
    void decodeValue_nestedExactlyMaxDepth_accepted() throws CorruptValueException {
        byte[] bytes = HEX.parseHex("0601".repeat(127) + "0600");
        assertArrayEquals(bytes, Format.VALUE.decodeAndReencode(bytes));
    }

    /** Decodes {@code bytes}: a CorruptValueException is fine, any other exception fails, and accepted bytes must be canonical. */
    private static void decodeOrCorrupt(Format format, byte[] bytes) {
        byte[] again;
        try {
            again = format.decodeAndReencode(bytes);
        } catch (CorruptValueException e) {
            return;
        } catch (RuntimeException | Error e) {
            throw new AssertionError(format + " threw " + e + " for " + HEX.formatHex(bytes), e);
        }
        assertArrayEquals(bytes, again, () -> format + " accepted a non-canonical " + HEX.formatHex(bytes));
    }

    private static List<byte[]> samples(Format format, RandomValues random, int count, int maxLength) {
        List<byte[]> samples = new ArrayList<>();
        while (samples.size() < count) {
            byte[] encoding = format.randomEncoding(random);
            if (encoding.length <= maxLength) {
                samples.add(encoding);
            }
        }
        return samples;
    }
}
