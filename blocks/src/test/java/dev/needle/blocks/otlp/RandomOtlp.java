package dev.needle.blocks.otlp;

import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BiFunction;

/**
 * Seeded random requests' worth of valid spans and logs, nested as the encoders nest them (by
 * distinct resource, then distinct scope), so that decode(encode(records)) must give them back
 * exactly. Every field is set at random, including defaults: every value kind, empty and huge
 * strings, unicode of every plane, JSON's escapes, NaN, -0.0, infinities, extreme longs, unsigned
 * counts and times above 2^31 and 2^63, unknown enum numbers, values nested MAX_DEPTH deep.
 */
final class RandomOtlp {

    private static final long[] EDGE_LONGS = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MAX_VALUE + 1L,
        1L << 53, (1L << 53) + 1};
    private static final double[] EDGE_DOUBLES = {0.0, -0.0, Double.NaN, Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY, Double.MIN_VALUE, Double.MAX_VALUE, Double.MIN_NORMAL, 0.1, 1e21, 1e-7, 637.704, 200.0};
    private static final String[] EDGE_STRINGS = {"", "\"\\/\b\f\n\r\t", "\u0000\u001f\u007f", "\u2028\u2029",
        "日本語", "Zoë", "🚀 rocket", "\uFFFD\uFFFF", "NaN", "-0", "5B8EFFF798038103D269B633813FC60C"};
    private static final int[] EDGE_INTS = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, 255, 256, 512};

    private final SplittableRandom random;
    /** Doubles with NaN payloads other than Java's: protobuf keeps them, JSON's "NaN" cannot. */
    private final boolean nanPayloads;

    RandomOtlp(long seed, boolean nanPayloads) {
        this.random = new SplittableRandom(seed);
        this.nanPayloads = nanPayloads;
    }

    /** One request's spans: 1–3 resources × 1–3 scopes × 1–12 spans. */
    List<SpanRecord> spans() {
        return grouped(this::span);
    }

    /** One request's log records: 1–3 resources × 1–3 scopes × 1–12 log records. */
    List<LogRecord> logs() {
        return grouped(this::log);
    }

    private <T> List<T> grouped(BiFunction<Resource, Scope, T> record) {
        List<T> out = new ArrayList<>();
        Set<Resource> resources = new LinkedHashSet<>();
        for (int n = 1 + random.nextInt(3); resources.size() < n; ) {
            resources.add(resource());
        }
        for (Resource resource : resources) {
            Set<Scope> scopes = new LinkedHashSet<>();
            for (int n = 1 + random.nextInt(3); scopes.size() < n; ) {
                scopes.add(scope());
            }
            for (Scope scope : scopes) {
                for (int i = 1 + random.nextInt(12); i > 0; i--) {
                    out.add(record.apply(resource, scope));
                }
            }
        }
        return out;
    }

    Resource resource() {
        return random.nextInt(8) == 0 ? Resource.EMPTY : new Resource(attributes(), uint(), string());
    }

    Scope scope() {
        return random.nextInt(8) == 0 ? Scope.EMPTY : new Scope(string(), string(), attributes(), uint(), string());
    }

    SpanRecord span(Resource resource, Scope scope) {
        return SpanRecord.builder().resource(resource).scope(scope).traceId(traceId()).spanId(nonZero(8))
                .traceState(string()).parentSpanId(random.nextBoolean() ? Bytes.EMPTY : bytes(8)).flags(uint())
                .name(string()).kind(enumNumber(6)).startTimeUnixNano(time()).endTimeUnixNano(time())
                .attributes(attributes()).droppedAttributesCount(uint()).events(events()).droppedEventsCount(uint())
                .links(links()).droppedLinksCount(uint()).statusCode(enumNumber(3)).statusMessage(string()).build();
    }

    LogRecord log(Resource resource, Scope scope) {
        return LogRecord.builder().resource(resource).scope(scope).timeUnixNano(time()).observedTimeUnixNano(time())
                .severityNumber(enumNumber(25)).severityText(string()).body(value()).attributes(attributes())
                .droppedAttributesCount(uint()).flags(uint()).traceId(random.nextBoolean() ? Bytes.EMPTY : traceId())
                .spanId(random.nextBoolean() ? Bytes.EMPTY : bytes(8)).eventName(string()).build();
    }

    private List<SpanEvent> events() {
        List<SpanEvent> events = new ArrayList<>();
        for (int i = random.nextInt(3) == 0 ? random.nextInt(4) : 0; i > 0; i--) {
            events.add(new SpanEvent(time(), string(), attributes(), uint()));
        }
        return events;
    }

    /** Links' ids are stored as sent, of any length. */
    private List<SpanLink> links() {
        List<SpanLink> links = new ArrayList<>();
        for (int i = random.nextInt(3) == 0 ? random.nextInt(4) : 0; i > 0; i--) {
            links.add(new SpanLink(bytes(random.nextBoolean() ? 16 : random.nextInt(20)),
                    bytes(random.nextBoolean() ? 8 : random.nextInt(10)), string(), attributes(), uint(), uint()));
        }
        return links;
    }

    List<KeyValue> attributes() {
        return keyValues(random.nextInt(4) == 0 ? 0 : random.nextInt(7), 0, 1 + random.nextInt(3));
    }

    private List<KeyValue> keyValues(int n, int depth, int maxDepth) {
        List<KeyValue> pairs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pairs.add(new KeyValue(string(), value(depth, maxDepth)));
        }
        return pairs;
    }

    /** A value: now and then a chain exactly {@link ValueCodec#MAX_DEPTH} deep, otherwise a small tree. */
    AnyValue value() {
        return random.nextInt(50) == 0 ? chain(ValueCodec.MAX_DEPTH) : value(0, 1 + random.nextInt(3));
    }

    /** {@code depth} arrays and kvlists, one inside the other, around a scalar. */
    AnyValue chain(int depth) {
        AnyValue v = scalar();
        for (int i = 0; i < depth; i++) {
            v = random.nextBoolean() ? new AnyValue.Array(List.of(v)) : new AnyValue.KvList(List.of(new KeyValue(string(), v)));
        }
        return v;
    }

    private AnyValue value(int depth, int maxDepth) {
        if (depth < maxDepth && random.nextInt(4) == 0) {
            int n = random.nextInt(4);
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
                return new AnyValue.Dbl(dbl());
            default:
                return new AnyValue.Blob(bytes(random.nextInt(10) == 0 ? 1000 : random.nextInt(8)));
        }
    }

    private double dbl() {
        if (random.nextBoolean()) {
            return EDGE_DOUBLES[random.nextInt(EDGE_DOUBLES.length)];
        }
        double d = Double.longBitsToDouble(random.nextLong());
        return Double.isNaN(d) && !nanPayloads ? Double.NaN : d;
    }

    /** Valid unicode only (an unpaired surrogate has no UTF-8 form): often short, sometimes 100,000 chars. */
    String string() {
        switch (random.nextInt(10)) {
            case 0:
                return "";
            case 1:
                return EDGE_STRINGS[random.nextInt(EDGE_STRINGS.length)];
            case 2:
                if (random.nextInt(40) == 0) {
                    return "huge ✓ ".repeat(100_000 / 8);
                }
                // fall through
            default:
                StringBuilder sb = new StringBuilder();
                for (int i = random.nextInt(12); i > 0; i--) {
                    int cp = random.nextInt(3) == 0 ? random.nextInt(Character.MAX_CODE_POINT + 1) : ' ' + random.nextInt(95);
                    sb.appendCodePoint(Character.isSurrogate((char) cp) && cp < 0x10000 ? 'x' : cp);
                }
                return sb.toString();
        }
    }

    private Bytes traceId() {
        return nonZero(16);
    }

    private Bytes nonZero(int length) {
        byte[] b = bytes(length).toByteArray();
        b[random.nextInt(length)] |= (byte) (1 + random.nextInt(255));
        return Bytes.wrap(b);
    }

    Bytes bytes(int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) random.nextInt(256);
        }
        return Bytes.wrap(b);
    }

    /** A fixed64 time: now-ish, zero, or any 64 bits (OTLP's are unsigned). */
    private long time() {
        switch (random.nextInt(4)) {
            case 0:
                return 0;
            case 1:
                return random.nextLong();
            default:
                return 1_700_000_000_000_000_000L + random.nextLong(1_000_000_000_000L);
        }
    }

    /** A uint32 or fixed32, as the model's int holds it: high values are negative. */
    private int uint() {
        return random.nextInt(3) == 0 ? EDGE_INTS[random.nextInt(EDGE_INTS.length)] : random.nextInt(3) == 0 ? random.nextInt() : 0;
    }

    /** A known enum number most of the time, otherwise any int (OTLP's enums are open). */
    private int enumNumber(int known) {
        return random.nextInt(5) == 0 ? EDGE_INTS[random.nextInt(EDGE_INTS.length)] : random.nextInt(known);
    }
}
