package dev.needle.blocks;

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
import java.util.List;
import java.util.SplittableRandom;

/** Seeded random OTLP-shaped spans and logs: every value type, nesting, unicode, empty and huge values. */
public final class RandomRecords {

    private static final String[] WORDS = {"checkout", "cart", "", "日本語", "Zoë", "🚀 rocket", "a\u0000b", "GET", "200"};
    private final SplittableRandom random;
    private final List<Resource> resources = new ArrayList<>();
    private final List<Scope> scopes = new ArrayList<>();
    private final List<Bytes> traceIds = new ArrayList<>();

    public RandomRecords(long seed) {
        random = new SplittableRandom(seed);
        for (int i = 0; i < 4; i++) {
            resources.add(new Resource(attributes(3), random.nextInt(3), i == 0 ? "" : "https://opentelemetry.io/schemas/1.2" + i));
            scopes.add(new Scope(i == 0 ? "" : "io.opentelemetry.scope" + i, i == 1 ? "" : "1." + i, attributes(2),
                    random.nextInt(2), i == 2 ? "" : "https://schema/" + i));
        }
        for (int i = 0; i < 40; i++) {
            traceIds.add(bytes(16));
        }
    }

    public List<SpanRecord> spans(int n) {
        List<SpanRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long start = 1_700_000_000_000_000_000L + random.nextLong(3_600_000_000_000L);
            out.add(SpanRecord.builder().resource(pick(resources)).scope(pick(scopes)).traceId(pick(traceIds))
                    .spanId(bytes(8)).traceState(random.nextInt(4) == 0 ? "vendor=" + word() : "")
                    .parentSpanId(random.nextInt(3) == 0 ? Bytes.EMPTY : bytes(8)).flags(random.nextInt(512))
                    .name(word()).kind(random.nextInt(6)).startTimeUnixNano(start)
                    .endTimeUnixNano(start + random.nextLong(5_000_000_000L))
                    .attributes(attributes(random.nextInt(8))).droppedAttributesCount(random.nextInt(3))
                    .events(events()).droppedEventsCount(random.nextInt(2)).links(links())
                    .droppedLinksCount(random.nextInt(2)).statusCode(random.nextInt(3))
                    .statusMessage(random.nextInt(3) == 0 ? word() : "").build());
        }
        return out;
    }

    public List<LogRecord> logs(int n) {
        List<LogRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long observed = 1_700_000_000_000_000_000L + random.nextLong(3_600_000_000_000L);
            boolean correlated = random.nextBoolean();
            out.add(LogRecord.builder().resource(pick(resources)).scope(pick(scopes))
                    .timeUnixNano(random.nextInt(5) == 0 ? 0 : observed - random.nextLong(1_000_000_000L))
                    .observedTimeUnixNano(observed).severityNumber(random.nextInt(25))
                    .severityText(random.nextInt(3) == 0 ? "" : "INFO").body(value(2))
                    .attributes(attributes(random.nextInt(6))).droppedAttributesCount(random.nextInt(2))
                    .flags(random.nextInt(256)).traceId(correlated ? pick(traceIds) : Bytes.EMPTY)
                    .spanId(correlated ? bytes(8) : Bytes.EMPTY)
                    .eventName(random.nextInt(4) == 0 ? "browser.click" : "").build());
        }
        return out;
    }

    private List<SpanEvent> events() {
        List<SpanEvent> out = new ArrayList<>();
        for (int i = random.nextInt(4) == 0 ? random.nextInt(3) + 1 : 0; i > 0; i--) {
            out.add(new SpanEvent(random.nextLong(), word(), attributes(random.nextInt(3)), random.nextInt(2)));
        }
        return out;
    }

    private List<SpanLink> links() {
        List<SpanLink> out = new ArrayList<>();
        for (int i = random.nextInt(5) == 0 ? random.nextInt(2) + 1 : 0; i > 0; i--) {
            out.add(new SpanLink(bytes(16), bytes(8), word(), attributes(random.nextInt(3)), random.nextInt(2),
                    random.nextInt(512)));
        }
        return out;
    }

    private List<KeyValue> attributes(int n) {
        List<KeyValue> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new KeyValue(random.nextInt(5) == 0 ? word() : "key." + random.nextInt(6), value(3)));
        }
        return out;
    }

    private AnyValue value(int depth) {
        int kind = random.nextInt(depth > 0 ? 9 : 7);
        return switch (kind) {
            case 0 -> new AnyValue.Str(random.nextInt(50) == 0 ? "x".repeat(100_000) : word());
            case 1 -> new AnyValue.Int(random.nextInt(4) == 0 ? Long.MIN_VALUE + random.nextInt(3) : random.nextLong(1000) - 500);
            case 2 -> new AnyValue.Dbl(switch (random.nextInt(6)) {
                case 0 -> Double.NaN;
                case 1 -> -0.0;
                case 2 -> Double.NEGATIVE_INFINITY;
                case 3 -> 200.0;
                default -> random.nextDouble() * 1000;
            });
            case 3 -> new AnyValue.Bool(random.nextBoolean());
            case 4 -> new AnyValue.Blob(bytes(random.nextInt(5)));
            case 5 -> AnyValue.Empty.INSTANCE;
            case 6 -> new AnyValue.Str(word());
            case 7 -> {
                List<AnyValue> values = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    values.add(value(depth - 1));
                }
                yield new AnyValue.Array(values);
            }
            default -> {
                List<KeyValue> values = new ArrayList<>();
                for (int i = random.nextInt(4); i > 0; i--) {
                    values.add(new KeyValue(word(), value(depth - 1)));
                }
                yield new AnyValue.KvList(values);
            }
        };
    }

    private String word() {
        return WORDS[random.nextInt(WORDS.length)];
    }

    private Bytes bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return Bytes.wrap(b);
    }

    private <T> T pick(List<T> list) {
        return list.get(random.nextInt(list.size()));
    }
}
