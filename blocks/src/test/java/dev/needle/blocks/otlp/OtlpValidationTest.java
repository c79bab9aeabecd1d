package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
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
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Which records a request loses and why: the id rules and the depth bound, through both the
 * protobuf and the JSON path, which must agree; the valid rest is kept.
 */
final class OtlpValidationTest {

    private static final Scope X = new Scope("x", "", List.of(), 0, "");
    private static final String TOO_DEEP = "a value nests arrays and kvlists deeper than 128";

    /** Decodes {@code spans} through protobuf bytes and through JSON text; both must give the same answer. */
    private static Decoded<SpanRecord> spansBothWays(List<SpanRecord> spans) throws IOException {
        byte[] proto = OtlpWireWriter.encodeSpans(spans);
        Decoded<SpanRecord> viaProto = OtlpWire.decodeSpans(proto);
        assertEquals(viaProto, Bodies.jsonSpans(Bodies.spansJson(spans)), "protobuf and JSON disagree");
        return viaProto;
    }

    private static Decoded<LogRecord> logsBothWays(List<LogRecord> logs) throws IOException {
        byte[] proto = OtlpWireWriter.encodeLogs(logs);
        Decoded<LogRecord> viaProto = OtlpWire.decodeLogs(proto);
        assertEquals(viaProto, Bodies.jsonLogs(Bodies.logsJson(logs)), "protobuf and JSON disagree");
        return viaProto;
    }

    private static SpanRecord span(int n) {
        return OtlpRoundTripTest.span(Resource.EMPTY, X, n);
    }

    private static SpanRecord withIds(SpanRecord s, Bytes traceId, Bytes spanId, Bytes parentSpanId) {
        return s.toBuilder().traceId(traceId).spanId(spanId).parentSpanId(parentSpanId).build();
    }

    private static Bytes filled(int length, int b) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) b);
        return Bytes.wrap(bytes);
    }

    private static void assertSpanRejected(UnaryOperator<SpanRecord> breakIt, String reason) throws IOException {
        List<SpanRecord> spans = List.of(span(1), breakIt.apply(span(2)), span(3));
        assertEquals(new Decoded<>(List.of(span(1), span(3)), 1, "rejected 1 of 3 spans: span 1 of scope 'x': " + reason),
                spansBothWays(spans));
    }

    @Test
    void spanIds_eachRule_rejectsOnlyThatSpanWithItsReason() throws IOException {
        assertSpanRejected(s -> withIds(s, filled(12, 1), s.spanId(), s.parentSpanId()), "trace_id has 12 bytes, expected 16");
        assertSpanRejected(s -> withIds(s, Bytes.EMPTY, s.spanId(), s.parentSpanId()), "trace_id has 0 bytes, expected 16");
        assertSpanRejected(s -> withIds(s, filled(17, 1), s.spanId(), s.parentSpanId()), "trace_id has 17 bytes, expected 16");
        assertSpanRejected(s -> withIds(s, filled(16, 0), s.spanId(), s.parentSpanId()), "trace_id is all zero");
        assertSpanRejected(s -> withIds(s, s.traceId(), filled(4, 1), s.parentSpanId()), "span_id has 4 bytes, expected 8");
        assertSpanRejected(s -> withIds(s, s.traceId(), Bytes.EMPTY, s.parentSpanId()), "span_id has 0 bytes, expected 8");
        assertSpanRejected(s -> withIds(s, s.traceId(), filled(8, 0), s.parentSpanId()), "span_id is all zero");
        assertSpanRejected(s -> withIds(s, s.traceId(), s.spanId(), filled(3, 1)),
                "parent_span_id has 3 bytes, expected 8 or none");
    }

    @Test
    void spanIds_validEdgeCases_kept() throws IOException {
        List<SpanRecord> spans = List.of(
                withIds(span(1), filled(16, 0xFF), filled(8, 0xFF), filled(8, 0)),
                withIds(span(2), filled(16, 1), filled(8, 1), Bytes.EMPTY));
        assertEquals(new Decoded<>(spans, 0, ""), spansBothWays(spans));
    }

    private static LogRecord log(Bytes traceId, Bytes spanId) {
        return LogRecord.builder().scope(X).timeUnixNano(1).observedTimeUnixNano(2).severityNumber(9)
                .severityText("INFO").body(AnyValue.of("hello")).traceId(traceId).spanId(spanId).build();
    }

    @Test
    void logIds_eachRule_rejectsOnlyThatRecordWithItsReason() throws IOException {
        LogRecord ok = log(filled(16, 1), filled(8, 1));
        String[] reasons = {"trace_id has 5 bytes, expected 16 or none", "trace_id is all zero",
            "span_id has 3 bytes, expected 8 or none"};
        List<LogRecord> bad = List.of(log(filled(5, 1), Bytes.EMPTY), log(filled(16, 0), filled(8, 1)), log(Bytes.EMPTY, filled(3, 1)));
        for (int i = 0; i < bad.size(); i++) {
            assertEquals(new Decoded<>(List.of(ok, ok), 1, "rejected 1 of 3 log records: log record 1 of scope 'x': " + reasons[i]),
                    logsBothWays(List.of(ok, bad.get(i), ok)));
        }
    }

    @Test
    void logIds_uncorrelatedOrPartial_kept() throws IOException {
        List<LogRecord> logs = List.of(log(Bytes.EMPTY, Bytes.EMPTY), log(filled(16, 1), Bytes.EMPTY),
                log(Bytes.EMPTY, filled(8, 0)), log(filled(16, 2), filled(8, 0)));
        assertEquals(new Decoded<>(logs, 0, ""), logsBothWays(logs));
    }

    @Test
    void message_manyRejections_countsAllAndNamesTheFirstThree() throws IOException {
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            spans.add(i < 5 ? withIds(span(i + 1), Bytes.EMPTY, filled(8, 1), Bytes.EMPTY) : span(i + 1));
        }
        Decoded<SpanRecord> decoded = spansBothWays(spans);
        assertEquals(5, decoded.rejected());
        assertEquals(2, decoded.records().size());
        assertEquals("rejected 5 of 7 spans: span 0 of scope 'x': trace_id has 0 bytes, expected 16; "
                + "span 1 of scope 'x': trace_id has 0 bytes, expected 16; "
                + "span 2 of scope 'x': trace_id has 0 bytes, expected 16; and 2 more", decoded.message());
    }

    @Test
    void message_longScopeName_cutShort() throws IOException {
        Scope long_ = new Scope("s".repeat(10_000), "", List.of(), 0, "");
        SpanRecord bad = withIds(OtlpRoundTripTest.span(Resource.EMPTY, long_, 1), Bytes.EMPTY, filled(8, 1), Bytes.EMPTY);
        String message = spansBothWays(List.of(bad)).message();
        assertTrue(message.length() < 200, message);
        assertTrue(message.contains("of scope '" + "s".repeat(40) + "…': trace_id has 0 bytes"), message);
    }

    /** A value under {@code depth} arrays and kvlists. */
    private static AnyValue nested(int depth) {
        return new RandomOtlp(depth, false).chain(depth);
    }

    @Test
    void depth_maxDepthValueAnywhere_kept() throws IOException {
        AnyValue deepest = nested(ValueCodec.MAX_DEPTH);
        List<KeyValue> attrs = List.of(new KeyValue("deep", deepest));
        SpanRecord s = span(1);
        SpanRecord everywhere = SpanRecord.builder().resource(new Resource(attrs, 0, ""))
                .scope(new Scope("x", "", attrs, 0, "")).traceId(s.traceId()).spanId(s.spanId()).name("n")
                .attributes(attrs).events(List.of(new SpanEvent(0, "e", attrs, 0)))
                .links(List.of(new SpanLink(s.traceId(), s.spanId(), "", attrs, 0, 0))).build();
        assertEquals(new Decoded<>(List.of(everywhere), 0, ""), spansBothWays(List.of(everywhere)));
        LogRecord log = LogRecord.builder().scope(X).body(deepest).attributes(attrs).build();
        assertEquals(new Decoded<>(List.of(log), 0, ""), logsBothWays(List.of(log)));
    }

    @Test
    void depth_deeperValueInARecord_rejectsThatRecord() throws IOException {
        List<KeyValue> tooDeep = List.of(new KeyValue("deep", nested(ValueCodec.MAX_DEPTH + 1)));
        SpanRecord s = span(2);
        List<SpanRecord> variants = List.of(
                OtlpRoundTripTest.withAttributes(s, tooDeep),
                SpanRecord.builder().resource(s.resource()).scope(s.scope()).traceId(s.traceId()).spanId(s.spanId())
                        .events(List.of(new SpanEvent(0, "e", tooDeep, 0))).build(),
                SpanRecord.builder().resource(s.resource()).scope(s.scope()).traceId(s.traceId()).spanId(s.spanId())
                        .links(List.of(new SpanLink(Bytes.EMPTY, Bytes.EMPTY, "", tooDeep, 0, 0))).build());
        for (SpanRecord bad : variants) {
            assertEquals(new Decoded<>(List.of(span(1)), 1, "rejected 1 of 2 spans: span 1 of scope 'x': " + TOO_DEEP),
                    spansBothWays(List.of(span(1), bad)));
        }
        LogRecord ok = log(Bytes.EMPTY, Bytes.EMPTY);
        LogRecord deepBody = LogRecord.builder().scope(X).body(nested(ValueCodec.MAX_DEPTH + 1)).build();
        assertEquals(new Decoded<>(List.of(ok), 1, "rejected 1 of 2 log records: log record 0 of scope 'x': " + TOO_DEEP),
                logsBothWays(List.of(deepBody, ok)));
    }

    @Test
    void depth_deeperValueInResourceOrScope_rejectsAllItsRecordsOnly() throws IOException {
        List<KeyValue> tooDeep = List.of(new KeyValue("deep", nested(ValueCodec.MAX_DEPTH + 1)));
        Resource badResource = new Resource(tooDeep, 0, "");
        Scope badScope = new Scope("y", "", tooDeep, 0, "");
        List<SpanRecord> spans = List.of(
                OtlpRoundTripTest.span(badResource, X, 1), OtlpRoundTripTest.span(badResource, X, 2),
                OtlpRoundTripTest.span(Resource.EMPTY, X, 3),
                OtlpRoundTripTest.span(Resource.EMPTY, badScope, 4));
        assertEquals(new Decoded<>(List.of(OtlpRoundTripTest.span(Resource.EMPTY, X, 3)), 3,
                "rejected 3 of 4 spans: span 0 of scope 'x': resource: " + TOO_DEEP + "; span 1 of scope 'x': resource: "
                        + TOO_DEEP + "; span 0 of scope 'y': scope: " + TOO_DEEP), spansBothWays(spans));
    }

    @Test
    void json_idsThatAreNotHex_rejectRecordNotRequest() throws IOException {
        String[] badTraceIds = {
            "W47/95gDgQPSabYzgT/GDA==", // the same id in base64, as proto3 JSON would write it
            "5B8EFFF798038103D269B633813FC60", // odd length
            "5B8EFFF798038103D269B633813FC6 G",
            "٣".repeat(32), // digits, but not ASCII ones
        };
        for (String id : badTraceIds) {
            Decoded<SpanRecord> decoded = Bodies.jsonSpans(spansDoc("\"traceId\":\"" + id + "\",\"spanId\":\"EEE19B7EC3C1B174\""));
            assertEquals(1, decoded.rejected(), id);
            assertEquals(1, decoded.records().size(), id);
            assertEquals("rejected 1 of 2 spans: span 0 of scope 'x': trace_id is not hex: " + Rejections.quote(id),
                    decoded.message());
        }
        Decoded<SpanRecord> badLink = Bodies.jsonSpans(spansDoc(
                "\"traceId\":\"5B8EFFF798038103D269B633813FC60C\",\"spanId\":\"EEE19B7EC3C1B174\","
                        + "\"links\":[{\"traceId\":\"xyz\"}]"));
        assertEquals("rejected 1 of 2 spans: span 0 of scope 'x': link trace_id is not hex: 'xyz'", badLink.message());
        Decoded<LogRecord> badLog = Bodies.jsonLogs("{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"spanId\":\"0x12\"},{}]}]}]}");
        assertEquals(new Decoded<>(List.of(LogRecord.builder().build()), 1,
                "rejected 1 of 2 log records: log record 0 of scope '': span_id is not hex: '0x12'"), badLog);
    }

    @Test
    void json_bytesThatAreNotBase64_rejectRecordNotRequest() throws IOException {
        Decoded<SpanRecord> decoded = Bodies.jsonSpans(spansDoc(
                "\"traceId\":\"5B8EFFF798038103D269B633813FC60C\",\"spanId\":\"EEE19B7EC3C1B174\","
                        + "\"attributes\":[{\"key\":\"b\",\"value\":{\"bytesValue\":\"!!!\"}}]"));
        assertEquals("rejected 1 of 2 spans: span 0 of scope 'x': bytesValue is not base64: '!!!'", decoded.message());
        assertEquals(1, decoded.records().size());
    }

    /** A request with the span {@code fields} and then one valid span, in scope 'x'. */
    private static String spansDoc(String fields) {
        return "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":\"x\"},\"spans\":[{" + fields + "},"
                + "{\"traceId\":\"5B8EFFF798038103D269B633813FC60C\",\"spanId\":\"EEE19B7EC3C1B175\"}]}]}]}";
    }

    @Test
    void proto_stringTableIndexes_readAsAbsent() throws IOException {
        io.opentelemetry.proto.common.v1.AnyValue strindex =
                io.opentelemetry.proto.common.v1.AnyValue.newBuilder().setStringValueStrindex(7).build();
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .addScopeSpans(ScopeSpans.newBuilder().addSpans(Span.newBuilder()
                        .setTraceId(ByteString.copyFrom(filled(16, 1).unsafeArray()))
                        .setSpanId(ByteString.copyFrom(filled(8, 1).unsafeArray()))
                        .addAttributes(io.opentelemetry.proto.common.v1.KeyValue.newBuilder().setKey("k").setValue(strindex)))))
                .build();
        SpanRecord span = OtlpWire.decodeSpans(request.toByteArray()).records().get(0);
        assertEquals(List.of(new KeyValue("k", AnyValue.Empty.INSTANCE)), span.attributes());
    }

    @Test
    void protoParse_valueJustTooDeep_parsedAndRejectedRecordByRecord() throws IOException {
        // A kvlist chain costs the most message levels per value level; put it under an event, the deepest place.
        AnyValue kvChain = AnyValue.of(1L);
        for (int i = 0; i <= ValueCodec.MAX_DEPTH; i++) {
            kvChain = new AnyValue.KvList(List.of(new KeyValue("k", kvChain)));
        }
        SpanRecord s = span(2);
        SpanRecord bad = SpanRecord.builder().resource(s.resource()).scope(s.scope()).traceId(s.traceId())
                .spanId(s.spanId()).events(List.of(new SpanEvent(0, "e", List.of(new KeyValue("deep", kvChain)), 0)))
                .build();
        assertEquals(1, spansBothWays(List.of(span(1), bad)).rejected());
    }

    @Test
    void protoParse_farTooDeep_decodeException() {
        byte[] value = {0x0a, 0x01, 'x'}; // AnyValue{string_value: "x"}
        for (int i = 0; i < 2_000; i++) {
            value = WireBytes.field(5, WireBytes.field(1, value)); // AnyValue{array_value: ArrayValue{values: [value]}}
        }
        byte[] span = WireBytes.cat(WireBytes.field(1, filled(16, 1).unsafeArray()), WireBytes.field(2, filled(8, 1).unsafeArray()),
                WireBytes.field(9, WireBytes.cat(WireBytes.field(1, new byte[] {'k'}), WireBytes.field(2, value))));
        byte[] request = WireBytes.field(1, WireBytes.field(2, WireBytes.field(2, span)));
        OtlpDecodeException e = assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeSpans(request));
        assertTrue(e.getMessage().startsWith("not an OTLP ExportTraceServiceRequest: "), e.getMessage());
    }

    @Test
    void jsonDecode_streamError_passesThroughUnwrapped() {
        IOException broken = new IOException("connection reset");
        InputStream body = new InputStream() {
            @Override
            public int read() throws IOException {
                throw broken;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                throw broken;
            }
        };
        IOException json = assertThrows(IOException.class, () -> OtlpJson.decodeSpans(body));
        assertSame(broken, json);
    }
}
