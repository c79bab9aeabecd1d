package dev.needle.blocks.codec;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded random values of every kind for the codec tests: unicode strings (astral planes, NUL,
 * U+FFFD), doubles from raw bits (NaN payloads, -0.0, infinities), extreme longs, empty and
 * large blobs, and arrays and kvlists nested up to {@link ValueCodec#MAX_DEPTH}.
 */
final class RandomValues {

    private static final long[] EDGE_LONGS = {0, 1, -1, 127, 128, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE};
    private static final double[] EDGE_DOUBLES = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, 1.5, -2.25};
    private static final int[] EDGE_CODE_POINTS = {0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF};

    private final SplittableRandom random;

    RandomValues(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** A value that is sometimes a chain nested exactly {@code MAX_DEPTH} deep, otherwise a bushy tree. */
    AnyValue value() {
        return random.nextInt(20) == 0 ? chain(ValueCodec.MAX_DEPTH) : value(0, 1 + random.nextInt(6));
    }

    /** A chain of {@code depth} arrays and kvlists, one inside the other, with a random scalar at the bottom. */
    AnyValue chain(int depth) {
        AnyValue v = scalar();
        for (int i = 0; i < depth; i++) {
            v = random.nextBoolean() ? new AnyValue.Array(List.of(v)) : new AnyValue.KvList(List.of(new KeyValue(string(), v)));
        }
        return v;
    }

    private AnyValue value(int depth, int maxDepth) {
        if (depth < maxDepth && random.nextInt(3) == 0) {
            int n = random.nextInt(5);
            if (random.nextBoolean()) {
                List<AnyValue> values = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    values.add(value(depth + 1, maxDepth));
                }
                return new AnyValue.Array(values);
            }
            return new AnyValue.KvList(keyValues(n, depth + 1, maxDepth));
        }
        return scalar();
    }

    AnyValue scalar() {
        switch (random.nextInt(6)) {
            case 0:
                return AnyValue.Empty.INSTANCE;
            case 1:
                return new AnyValue.Str(string());
            case 2:
                return new AnyValue.Bool(random.nextBoolean());
            case 3:
                return new AnyValue.Int(random.nextBoolean() ? EDGE_LONGS[random.nextInt(EDGE_LONGS.length)] : random.nextLong());
            case 4:
                return new AnyValue.Dbl(random.nextBoolean()
                        ? EDGE_DOUBLES[random.nextInt(EDGE_DOUBLES.length)]
                        : Double.longBitsToDouble(random.nextLong()));
            default:
                return new AnyValue.Blob(Bytes.wrap(bytes(random.nextInt(10) == 0 ? 300 : 12)));
        }
    }

    List<KeyValue> attributes() {
        return keyValues(random.nextInt(6), 0, 1 + random.nextInt(4));
    }

    private List<KeyValue> keyValues(int n, int depth, int maxDepth) {
        List<KeyValue> pairs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pairs.add(new KeyValue(string(), value(depth, maxDepth)));
        }
        return pairs;
    }

    List<SpanEvent> events() {
        List<SpanEvent> events = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            events.add(new SpanEvent(random.nextLong(), string(), attributes(), random.nextInt()));
        }
        return events;
    }

    List<SpanLink> links() {
        List<SpanLink> links = new ArrayList<>();
        for (int i = random.nextInt(4); i > 0; i--) {
            links.add(new SpanLink(Bytes.wrap(bytes(16)), Bytes.wrap(bytes(8)), string(), attributes(),
                    random.nextInt(), random.nextInt()));
        }
        return links;
    }

    /** Up to {@code max} random bytes; often none. */
    byte[] bytes(int max) {
        byte[] b = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(max + 1)];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return b;
    }

    /** Valid unicode (no unpaired surrogates, which UTF-8 cannot hold): ASCII, BMP and astral code points. */
    String string() {
        int length = random.nextInt(8) == 0 ? 200 + random.nextInt(300) : random.nextInt(8);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int cp;
            switch (random.nextInt(4)) {
                case 0:
                    cp = EDGE_CODE_POINTS[random.nextInt(EDGE_CODE_POINTS.length)];
                    break;
                case 1:
                    cp = random.nextInt(0x10FFFF + 1);
                    break;
                default:
                    cp = 'a' + random.nextInt(26);
            }
            if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
                cp = '?';
            }
            sb.appendCodePoint(cp);
        }
        return sb.toString();
    }

    int nextInt(int bound) {
        return random.nextInt(bound);
    }
}
