package dev.needle.blocks.golden;

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

/**
 * The records of the golden blocks under {@code src/test/resources/golden/data/} (writer version 1)
 * and {@code golden/data-v2/} (version 2, 8 rows a batch, uncompressed, created at the same
 * millisecond as version 1's): spelled out here, so that the files (each written once, never
 * regenerated) are checked against what they must hold.
 */
final class GoldenBlocks {

    static final long T0 = 1_764_446_100_123_456_789L;

    static final Resource CHECKOUT = new Resource(List.of(
            KeyValue.of("service.name", "checkout"),
            KeyValue.of("k8s.pod.name", "api-7f9"),
            new KeyValue("host.cpu.count", AnyValue.of(8L))), 0, "https://opentelemetry.io/schemas/1.26.0");
    static final Resource CART = new Resource(List.of(KeyValue.of("service.name", "cart")), 2, "");
    static final Scope HTTP = new Scope("io.opentelemetry.http", "1.40.0",
            List.of(KeyValue.of("library.language", "java")), 0, "");

    private GoldenBlocks() {
    }

    /** Three traces of the four trace-id shapes, 20 spans, every attribute value type. */
    static List<SpanRecord> spans() {
        Bytes[] traces = {
            Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736"),
            Bytes.fromHex("6a1f2b3c0123456789abcdef01234567"),
            Bytes.fromHex("00000000000000003d2f8e1b9c7a6e55"),
        };
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            Bytes trace = traces[i % 3];
            Bytes spanId = Bytes.fromHex(String.format("00f067aa0ba902%02x", i));
            List<KeyValue> attributes = List.of(
                    KeyValue.of("http.request.method", i % 2 == 0 ? "GET" : "POST"),
                    KeyValue.of("http.response.status_code", i == 7 ? 500 : 200),
                    new KeyValue("sampling.ratio", AnyValue.of(i % 4 == 0 ? 0.25 : 1.0)),
                    new KeyValue("cache.hit", AnyValue.of(i % 3 == 0)),
                    new KeyValue("payload", new AnyValue.Blob(Bytes.fromHex("cafe" + String.format("%02x", i)))),
                    new KeyValue("tags", new AnyValue.Array(List.of(AnyValue.of("a"), AnyValue.of(1L)))),
                    new KeyValue("ctx", new AnyValue.KvList(List.of(KeyValue.of("user", "Zoë 日本")))));
            List<SpanEvent> events = i == 7
                    ? List.of(new SpanEvent(T0 + i * 1_000_000L + 5, "exception",
                            List.of(KeyValue.of("exception.type", "IOException")), 0))
                    : List.of();
            List<SpanLink> links = i == 3
                    ? List.of(new SpanLink(traces[2], Bytes.fromHex("00f067aa0ba90200"), "k=v", List.of(), 0, 1))
                    : List.of();
            spans.add(new SpanRecord(i % 5 == 0 ? CART : CHECKOUT, HTTP, trace, spanId, i == 1 ? "vendor=x" : "",
                    i < 3 ? Bytes.EMPTY : Bytes.fromHex(String.format("00f067aa0ba902%02x", i % 3)),
                    1, i % 2 == 0 ? "GET /api/cart" : "POST /api/checkout", 1 + i % 5,
                    T0 + i * 1_000_000L, T0 + i * 1_000_000L + 250_000L * (i + 1), attributes, i == 9 ? 3 : 0,
                    events, 0, links, 0, i == 7 ? 2 : 0, i == 7 ? "upstream timeout" : ""));
        }
        return spans;
    }

    /** Ten log records, some correlated with the spans' first trace, one without a time. */
    static List<LogRecord> logs() {
        List<LogRecord> logs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            boolean correlated = i % 2 == 0;
            AnyValue body = i == 4
                    ? new AnyValue.KvList(List.of(KeyValue.of("event", "login"), KeyValue.of("attempt", 2)))
                    : AnyValue.of("user signed in: " + i);
            logs.add(new LogRecord(CHECKOUT, HTTP, i == 6 ? 0 : T0 + i * 2_000_000L, T0 + i * 2_000_000L + 10,
                    i == 3 ? 0 : 9 + i, i == 3 ? "" : "INFO", body,
                    List.of(KeyValue.of("log.file.name", "app.log"), new KeyValue("retry", AnyValue.of(i % 2 == 1))),
                    0, correlated ? 1 : 0,
                    correlated ? Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736") : Bytes.EMPTY,
                    correlated ? Bytes.fromHex(String.format("00f067aa0ba902%02x", i)) : Bytes.EMPTY,
                    i == 8 ? "session.start" : ""));
        }
        return logs;
    }
}
