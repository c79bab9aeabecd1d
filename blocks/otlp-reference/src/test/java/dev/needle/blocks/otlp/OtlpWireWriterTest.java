package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * OtlpWireWriter against its reference, protobuf-java's serialization of the messages built from
 * the same records ({@link ProtobufJavaEncode}): the same bytes, for random requests, interleaved
 * groups and every edge of the model; and a golden request pinned byte by byte.
 */
final class OtlpWireWriterTest {

    private static void sameSpans(List<SpanRecord> spans, String what) {
        assertArrayEquals(ProtobufJavaEncode.spans(spans).toByteArray(), OtlpWireWriter.encodeSpans(spans), what);
    }

    private static void sameLogs(List<LogRecord> logs, String what) {
        assertArrayEquals(ProtobufJavaEncode.logs(logs).toByteArray(), OtlpWireWriter.encodeLogs(logs), what);
    }

    @Test
    void encode_randomRequests_sameBytesAsProtobufJava() {
        RandomOtlp random = new RandomOtlp(41, true);
        for (int request = 0; request < 300; request++) {
            sameSpans(random.spans(), "spans request " + request);
            sameLogs(random.logs(), "logs request " + request);
        }
    }

    @Test
    void encode_interleavedResourcesAndScopes_sameBytesAsProtobufJava() {
        RandomOtlp random = new RandomOtlp(42, false);
        Random shuffle = new Random(43);
        for (int request = 0; request < 50; request++) {
            List<SpanRecord> spans = new ArrayList<>(random.spans());
            Collections.shuffle(spans, shuffle);
            sameSpans(spans, "spans request " + request);
            List<LogRecord> logs = new ArrayList<>(random.logs());
            Collections.shuffle(logs, shuffle);
            sameLogs(logs, "logs request " + request);
        }
    }

    @Test
    void encode_edgeValues_sameBytesAsProtobufJava() {
        // An unpaired surrogate has no UTF-8 form: protobuf writes '?' in its place, measured and written alike.
        String unpaired = "a\uD800b";
        List<KeyValue> values = List.of(
                new KeyValue("", AnyValue.Empty.INSTANCE),
                new KeyValue("empty", new AnyValue.Str("")),
                new KeyValue("false", new AnyValue.Bool(false)),
                new KeyValue("zero", new AnyValue.Int(0)),
                new KeyValue("min", new AnyValue.Int(Long.MIN_VALUE)),
                new KeyValue("zero.double", new AnyValue.Dbl(0.0)),
                new KeyValue("negative.zero", new AnyValue.Dbl(-0.0)),
                new KeyValue("nan", new AnyValue.Dbl(Double.longBitsToDouble(0x7ff8_dead_beef_0001L))),
                new KeyValue("no.bytes", new AnyValue.Blob(Bytes.EMPTY)),
                new KeyValue("empty.array", new AnyValue.Array(List.of())),
                new KeyValue("empty.kvlist", new AnyValue.KvList(List.of())),
                new KeyValue("nested", new AnyValue.Array(List.of(AnyValue.Empty.INSTANCE,
                        new AnyValue.KvList(List.of(new KeyValue("k", new AnyValue.Array(List.of(new AnyValue.Str("🚀"))))))))),
                new KeyValue(unpaired, new AnyValue.Str(unpaired)),
                new KeyValue("long", new AnyValue.Str("✓".repeat(70_000))));
        Resource resource = new Resource(values, -1, unpaired);
        Scope scope = new Scope(unpaired, "", values, Integer.MIN_VALUE, "");
        SpanRecord defaults = SpanRecord.builder().build();
        SpanRecord negatives = SpanRecord.builder().resource(resource).scope(scope).traceId(Bytes.fromHex("01"))
                .spanId(Bytes.fromHex("02")).traceState(unpaired).parentSpanId(Bytes.fromHex("03")).flags(-1)
                .name(unpaired).kind(-1).startTimeUnixNano(-1).endTimeUnixNano(Long.MIN_VALUE).attributes(values)
                .droppedAttributesCount(-1)
                .events(List.of(new SpanEvent(0, "", List.of(), 0), new SpanEvent(-1, unpaired, values, -1)))
                .droppedEventsCount(-1)
                .links(List.of(new SpanLink(Bytes.EMPTY, Bytes.EMPTY, "", List.of(), 0, 0),
                        new SpanLink(Bytes.fromHex("ff"), Bytes.fromHex("ee"), unpaired, values, -1, -1)))
                .droppedLinksCount(-1).statusCode(-1).build();
        SpanRecord messageOnly = withStatus(defaults, 0, "m");
        sameSpans(List.of(), "no spans");
        sameSpans(List.of(defaults, negatives, messageOnly, withStatus(defaults, 2, "")), "edge spans");

        LogRecord empty = LogRecord.builder().build();
        List<LogRecord> logs = new ArrayList<>(List.of(empty));
        for (KeyValue kv : values) {
            logs.add(LogRecord.builder().resource(resource).scope(scope).timeUnixNano(-1)
                    .observedTimeUnixNano(Long.MIN_VALUE).severityNumber(-1).severityText(unpaired).body(kv.value())
                    .attributes(values).droppedAttributesCount(-1).flags(-1).traceId(Bytes.fromHex("0102"))
                    .spanId(Bytes.fromHex("03")).eventName(unpaired).build());
        }
        sameLogs(List.of(), "no logs");
        sameLogs(logs, "edge logs");
    }

    /**
     * One span and one log record, written out by hand from OTLP's field table, so that a change to
     * the bytes fails here whatever protobuf-java does.
     */
    @Test
    void encode_smallRequest_goldenBytes() {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "a")), 0, "");
        Scope scope = new Scope("s", "", List.of(), 0, "");
        SpanRecord span = new SpanRecord(resource, scope, Bytes.fromHex("0102"), Bytes.fromHex("03"), "", Bytes.EMPTY,
                0x101, "n", 2, 1, 0, List.of(new KeyValue("d", new AnyValue.Dbl(-0.0))), 0, List.of(), 0, List.of(),
                0, 2, "");
        assertEquals("0a4f"                                   // resource_spans, 79 bytes
                + "0a15" + "0a13" + "0a0c" + hexOf("service.name") + "1203" + "0a0161" // resource: service.name = "a"
                + "1236" + "0a03" + "0a0173"                  // scope_spans: scope, name "s"
                + "122f"                                      // spans, 47 bytes
                + "0a020102" + "120103" + "2a016e" + "3002"   // trace_id, span_id, name "n", kind 2
                + "390100000000000000"                        // start_time_unix_nano 1
                + "4a0e" + "0a0164" + "1209" + "210000000000000080" // attribute d = -0.0
                + "7a021802"                                  // status: code 2
                + "850101010000",                             // flags 0x101 (field 16, fixed32)
                HexFormat.of().formatHex(OtlpWireWriter.encodeSpans(List.of(span))));

        LogRecord log = LogRecord.builder().severityNumber(9).body(new AnyValue.Str("")).eventName("e").build();
        assertEquals("0a11" + "0a00" + "120d" + "0a00"        // resource_logs: empty resource, scope_logs: empty scope
                + "1209" + "1009" + "2a020a00" + "620165",    // log_records: severity 9, body "", event_name "e"
                HexFormat.of().formatHex(OtlpWireWriter.encodeLogs(List.of(log))));
    }

    private static String hexOf(String ascii) {
        return HexFormat.of().formatHex(ascii.getBytes(StandardCharsets.US_ASCII));
    }

    private static SpanRecord withStatus(SpanRecord s, int code, String message) {
        return s.toBuilder().statusCode(code).statusMessage(message).build();
    }
}
