package dev.needle.corpus.otlp;

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

/** Hand-built spans and log records for the tests, with every kind of field OTLP carries set somewhere. */
public final class Records {

    /** 2025-11-29T19:55:00Z, where every test record's time starts. */
    public static final long START = 1_764_446_100_000_000_000L;
    private static final Scope SCOPE = new Scope("corpus-test", "1.0", List.of(KeyValue.of("scope.kind", "test")), 0, "");

    private Records() {
    }

    /** The resource of service number {@code service}. */
    public static Resource resource(int service) {
        return new Resource(List.of(KeyValue.of("service.name", "svc-" + service), KeyValue.of("host.index", service),
                new KeyValue("cloud.on", new AnyValue.Bool(service % 2 == 0))), 0, "https://opentelemetry.io/schemas/1.26.0");
    }

    /** The trace id of trace {@code trace} of run {@code run}: 16 bytes, never zero. */
    public static Bytes traceId(int run, int trace) {
        return Bytes.fromHex(String.format("%08x%08x%016x", run, 0xC0DE, trace + 1L));
    }

    /**
     * {@code traces} traces of {@code spansPerTrace} spans each, all of service {@code service}: a
     * root span and children, with attributes of each type, an event on the root and a link on the
     * second span.
     */
    public static List<SpanRecord> spans(int run, int firstTrace, int traces, int spansPerTrace, int service) {
        Resource resource = resource(service);
        List<SpanRecord> out = new ArrayList<>(traces * spansPerTrace);
        for (int t = firstTrace; t < firstTrace + traces; t++) {
            Bytes trace = traceId(run, t);
            for (int s = 0; s < spansPerTrace; s++) {
                long start = START + t * 1_000_000L + s * 1_000L;
                Bytes spanId = Bytes.fromHex(String.format("%08x%08x", t + 1, s + 1));
                Bytes parent = s == 0 ? Bytes.EMPTY : Bytes.fromHex(String.format("%08x%08x", t + 1, 1));
                List<KeyValue> attributes = List.of(
                        KeyValue.of("http.route", "/api/items/" + (t % 7)),
                        KeyValue.of("http.status_code", 200 + (s % 3) * 100),
                        new KeyValue("load", new AnyValue.Dbl(s + 0.25)),
                        new KeyValue("cached", new AnyValue.Bool(s % 2 == 1)),
                        new KeyValue("digest", new AnyValue.Blob(Bytes.fromHex("c0ffee" + String.format("%02x", s % 256)))),
                        new KeyValue("tags", new AnyValue.Array(List.of(AnyValue.of("a"), new AnyValue.Int(s)))));
                List<SpanEvent> events = s == 0
                        ? List.of(new SpanEvent(start + 10, "cache.miss", List.of(KeyValue.of("key", "k" + t)), 0))
                        : List.of();
                List<SpanLink> links = s == 1
                        ? List.of(new SpanLink(traceId(run, t + 1_000_000), spanId, "k=v", List.of(), 0, 1))
                        : List.of();
                out.add(SpanRecord.builder().resource(resource).scope(SCOPE).traceId(trace).spanId(spanId)
                        .parentSpanId(parent).flags(1).name("op-" + (s % 5)).kind(1 + s % 5).startTimeUnixNano(start)
                        .endTimeUnixNano(start + 500_000 + s).attributes(attributes).events(events).links(links)
                        .statusCode(s % 3).statusMessage(s % 3 == 2 ? "boom " + t : "").build());
            }
        }
        return out;
    }

    /** {@code count} log records of service {@code service}; every third belongs to a trace of run {@code run}. */
    public static List<LogRecord> logs(int run, int first, int count, int service) {
        Resource resource = resource(service);
        List<LogRecord> out = new ArrayList<>(count);
        for (int i = first; i < first + count; i++) {
            long time = START + i * 1_000_000L;
            boolean traced = i % 3 == 0;
            AnyValue body = i % 4 == 0
                    ? new AnyValue.KvList(List.of(KeyValue.of("event", "login"), KeyValue.of("attempt", i)))
                    : AnyValue.of("request " + i + " served");
            out.add(LogRecord.builder().resource(resource).scope(SCOPE).timeUnixNano(time)
                    .observedTimeUnixNano(time + 7).severityNumber(9 + i % 8)
                    .severityText(i % 2 == 0 ? "INFO" : "WARN").body(body)
                    .attributes(List.of(KeyValue.of("log.index", i), KeyValue.of("user", "u" + (i % 13))))
                    .flags(traced ? 1 : 0).traceId(traced ? traceId(run, i) : Bytes.EMPTY)
                    .spanId(traced ? Bytes.fromHex(String.format("%016x", i + 1L)) : Bytes.EMPTY)
                    .eventName(i % 5 == 0 ? "session.start" : "").build());
        }
        return out;
    }

    /** {@code records} cut into batches of {@code size} (the last may be shorter). */
    public static <T> List<List<T>> batches(List<T> records, int size) {
        List<List<T>> out = new ArrayList<>();
        for (int i = 0; i < records.size(); i += size) {
            out.add(List.copyOf(records.subList(i, Math.min(records.size(), i + size))));
        }
        return out;
    }
}
