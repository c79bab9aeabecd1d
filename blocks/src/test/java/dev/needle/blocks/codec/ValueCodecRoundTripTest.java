package dev.needle.blocks.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whatever is encoded decodes to an equal value: seeded random values of every kind and shape. */
class ValueCodecRoundTripTest {

    private static final int VALUES = 5_000;
    private static final int LISTS = 2_000;

    @Test
    void decodeValue_randomValues_equalWhatWasEncoded() throws CorruptValueException {
        RandomValues random = new RandomValues(1);
        for (int i = 0; i < VALUES; i++) {
            AnyValue value = random.value();
            assertEquals(value, ValueCodec.decodeValue(ValueCodec.encodeValue(value)), "value #" + i);
        }
    }

    @Test
    void decodeAttributes_randomAttributes_equalWhatWasEncoded() throws CorruptValueException {
        RandomValues random = new RandomValues(2);
        for (int i = 0; i < LISTS; i++) {
            List<KeyValue> attributes = random.attributes();
            assertEquals(attributes, ValueCodec.decodeAttributes(ValueCodec.encodeAttributes(attributes)), "list #" + i);
        }
    }

    @Test
    void decodeEvents_randomEvents_equalWhatWasEncoded() throws CorruptValueException {
        RandomValues random = new RandomValues(3);
        for (int i = 0; i < LISTS; i++) {
            List<SpanEvent> events = random.events();
            assertEquals(events, ValueCodec.decodeEvents(ValueCodec.encodeEvents(events)), "list #" + i);
        }
    }

    @Test
    void decodeLinks_randomLinks_equalWhatWasEncoded() throws CorruptValueException {
        RandomValues random = new RandomValues(4);
        for (int i = 0; i < LISTS; i++) {
            List<SpanLink> links = random.links();
            assertEquals(links, ValueCodec.decodeLinks(ValueCodec.encodeLinks(links)), "list #" + i);
        }
    }

    @Test
    void decodeValue_nestedExactlyMaxDepth_roundTrips() throws CorruptValueException {
        RandomValues random = new RandomValues(5);
        for (int i = 0; i < 100; i++) {
            AnyValue value = random.chain(ValueCodec.MAX_DEPTH);
            assertEquals(value, ValueCodec.decodeValue(ValueCodec.encodeValue(value)));
            List<KeyValue> attributes = List.of(new KeyValue("deep", value));
            assertEquals(attributes, ValueCodec.decodeAttributes(ValueCodec.encodeAttributes(attributes)));
        }
    }

    @Test
    void encodeValue_nestedDeeperThanMaxDepth_refused() {
        AnyValue tooDeep = new RandomValues(6).chain(ValueCodec.MAX_DEPTH + 1);
        assertThrows(IllegalArgumentException.class, () -> ValueCodec.encodeValue(tooDeep));
        assertThrows(IllegalArgumentException.class,
                () -> ValueCodec.encodeAttributes(List.of(new KeyValue("k", tooDeep))));
    }

    @Test
    void decodeValue_largeValues_roundTrip() throws CorruptValueException {
        RandomValues random = new RandomValues(7);
        StringBuilder unicode = new StringBuilder();
        while (unicode.length() < 200_000) {
            unicode.append(random.string());
        }
        byte[] blob = new byte[3 << 20];
        for (int i = 0; i < blob.length; i++) {
            blob[i] = (byte) (i * 31 + (i >>> 11));
        }
        for (AnyValue value : List.of(AnyValue.of(unicode.toString()), new AnyValue.Blob(Bytes.wrap(blob)))) {
            assertEquals(value, ValueCodec.decodeValue(ValueCodec.encodeValue(value)));
        }
    }

    @Test
    void encodeValue_unpairedSurrogate_writtenAsQuestionMark() throws CorruptValueException {
        // UTF-8 cannot hold a lone surrogate; the JDK's replacement is what is kept.
        assertEquals(AnyValue.of("a?b"), ValueCodec.decodeValue(ValueCodec.encodeValue(AnyValue.of("a\uD800b"))));
    }

    @Test
    void encodeValue_nulls_refused() {
        assertThrows(NullPointerException.class, () -> ValueCodec.encodeValue(null));
        assertThrows(NullPointerException.class, () -> ValueCodec.encodeValue(new AnyValue.Str(null)));
        assertThrows(NullPointerException.class, () -> ValueCodec.encodeValue(new AnyValue.Blob(null)));
        assertThrows(NullPointerException.class,
                () -> ValueCodec.encodeAttributes(List.of(new KeyValue(null, AnyValue.of(1L)))));
        assertThrows(NullPointerException.class, () -> ValueCodec.encodeAttributes(List.of(new KeyValue("k", null))));
    }
}
