package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** model → protobuf → model, protobuf → model → protobuf and model → JSON → model give back exactly what went in. */
final class OtlpRoundTripTest {

    private static final int RECORDS = 5_000;

    @Test
    void protoRoundTrip_randomSpans_exact() throws IOException {
        protoRoundTrip(SignalKind.SPANS, new RandomOtlp(1, true), RandomOtlp::spans);
    }

    @Test
    void protoRoundTrip_randomLogs_exact() throws IOException {
        protoRoundTrip(SignalKind.LOGS, new RandomOtlp(2, true), RandomOtlp::logs);
    }

    @Test
    void jsonRoundTrip_randomSpans_exactAndEqualToProtoDecode() throws IOException {
        jsonRoundTrip(SignalKind.SPANS, new RandomOtlp(3, false), RandomOtlp::spans);
    }

    @Test
    void jsonRoundTrip_randomLogs_exactAndEqualToProtoDecode() throws IOException {
        jsonRoundTrip(SignalKind.LOGS, new RandomOtlp(4, false), RandomOtlp::logs);
    }

    /** Requests of {@code next}'s records, {@value #RECORDS} records in all: encoded, decoded and encoded again. */
    private static <R> void protoRoundTrip(SignalKind<R> kind, RandomOtlp random, Function<RandomOtlp, List<R>> next)
            throws IOException {
        int seen = 0;
        for (int request = 0; seen < RECORDS; request++) {
            List<R> records = next.apply(random);
            seen += records.size();
            byte[] proto = kind.encodeWire(records);
            Decoded<R> decoded = kind.decodeWire(proto, proto.length);
            assertEquals(new Decoded<>(records, 0, ""), decoded, "request " + request);
            assertArrayEquals(proto, kind.encodeWire(decoded.records()), "request " + request);
        }
    }

    /** Requests of {@code next}'s records through JSON, which decode as their protobuf does. */
    private static <R> void jsonRoundTrip(SignalKind<R> kind, RandomOtlp random, Function<RandomOtlp, List<R>> next)
            throws IOException {
        int seen = 0;
        for (int request = 0; seen < RECORDS; request++) {
            List<R> records = next.apply(random);
            seen += records.size();
            Decoded<R> fromJson = Bodies.json(kind, Bodies.json(kind, records));
            assertEquals(new Decoded<>(records, 0, ""), fromJson, "request " + request);
            byte[] proto = kind.encodeWire(records);
            assertEquals(kind.decodeWire(proto, proto.length), fromJson, "request " + request);
        }
    }

    @Test
    void jsonDecode_ofBuilderMadeRequest_equalsProtoDecode() throws IOException {
        ExportTraceServiceRequest proto = ProtoSamples.everyFieldSpans();
        Decoded<SpanRecord> fromProto = OtlpWire.decodeSpans(proto.toByteArray());
        assertEquals(0, fromProto.rejected());
        assertArrayEquals(proto.toByteArray(), OtlpWireWriter.encodeSpans(fromProto.records()), "the sample is in canonical form");
        assertEquals(fromProto, Bodies.jsonSpans(Bodies.spansJson(fromProto.records())));

        ExportLogsServiceRequest logs = ProtoSamples.everyFieldLogs();
        Decoded<LogRecord> logsFromProto = OtlpWire.decodeLogs(logs.toByteArray());
        assertEquals(0, logsFromProto.rejected());
        assertArrayEquals(logs.toByteArray(), OtlpWireWriter.encodeLogs(logsFromProto.records()), "the sample is in canonical form");
        assertEquals(logsFromProto, Bodies.jsonLogs(Bodies.logsJson(logsFromProto.records())));
    }

    @Test
    void decode_recordsOfOneGroup_shareResourceAndScopeInstances() throws IOException {
        List<SpanRecord> spans = new RandomOtlp(5, false).spans();
        for (Decoded<SpanRecord> decoded : List.of(OtlpWire.decodeSpans(OtlpWireWriter.encodeSpans(spans)),
                Bodies.jsonSpans(Bodies.spansJson(spans)))) {
            List<SpanRecord> got = decoded.records();
            for (int i = 1; i < got.size(); i++) {
                if (spans.get(i).resource() == spans.get(i - 1).resource()) {
                    assertSame(got.get(i - 1).resource(), got.get(i).resource());
                    if (spans.get(i).scope() == spans.get(i - 1).scope()) {
                        assertSame(got.get(i - 1).scope(), got.get(i).scope());
                    }
                }
            }
        }
    }

    @Test
    void encode_interleavedResources_groupedInOrderOfFirstAppearance() throws IOException {
        Resource a = new Resource(List.of(KeyValue.of("service.name", "a")), 0, "");
        Resource b = new Resource(List.of(KeyValue.of("service.name", "b")), 0, "");
        Resource aWithSchema = new Resource(a.attributes(), 0, "https://opentelemetry.io/schemas/1.4.0");
        Scope x = new Scope("x", "", List.of(), 0, "");
        Scope y = new Scope("y", "", List.of(), 0, "");
        Resource aCopy = new Resource(List.copyOf(new ArrayList<>(a.attributes())), 0, "");
        List<SpanRecord> spans = List.of(span(a, x, 1), span(b, x, 2), span(aCopy, y, 3), span(a, x, 4),
                span(aWithSchema, x, 5));
        byte[] bytes = OtlpWireWriter.encodeSpans(spans);
        ExportTraceServiceRequest proto = ExportTraceServiceRequest.parseFrom(bytes);
        assertEquals(3, proto.getResourceSpansCount(), "equal resources merge; a schema url makes another");
        assertEquals(2, proto.getResourceSpans(0).getScopeSpansCount());
        assertEquals(List.of(span(a, x, 1), span(a, x, 4), span(a, y, 3), span(b, x, 2), span(aWithSchema, x, 5)),
                OtlpWire.decodeSpans(bytes).records());
        assertEquals(OtlpWire.decodeSpans(bytes).records(), Bodies.jsonSpans(Bodies.spansJson(spans)).records());
    }

    @Test
    void encodeJson_writesOtlpJsonConventions() {
        SpanRecord span = SpanRecord.builder().traceId(Bytes.fromHex("5B8EFFF798038103D269B633813FC60C"))
                .spanId(Bytes.fromHex("EEE19B7EC3C1B174")).flags(0x301).name("n").kind(2).startTimeUnixNano(-1L)
                .endTimeUnixNano(1544712661000000000L)
                .attributes(List.of(new KeyValue("i", AnyValue.of(Long.MIN_VALUE)), new KeyValue("d",
                        AnyValue.of(Double.NaN)), new KeyValue("b", new AnyValue.Blob(Bytes.fromHex("fbff"))),
                        new KeyValue("e", AnyValue.Empty.INSTANCE)))
                .droppedAttributesCount(-1).statusCode(2).build();
        String json = new String(Bodies.spansJson(List.of(span)), StandardCharsets.UTF_8);
        assertEquals("{\"resourceSpans\":[{\"resource\":{},\"scopeSpans\":[{\"scope\":{},\"spans\":[{"
                + "\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\",\"flags\":769,"
                + "\"name\":\"n\",\"kind\":2,\"startTimeUnixNano\":\"18446744073709551615\","
                + "\"endTimeUnixNano\":\"1544712661000000000\",\"attributes\":["
                + "{\"key\":\"i\",\"value\":{\"intValue\":\"-9223372036854775808\"}},"
                + "{\"key\":\"d\",\"value\":{\"doubleValue\":\"NaN\"}},"
                + "{\"key\":\"b\",\"value\":{\"bytesValue\":\"+/8=\"}},"
                + "{\"key\":\"e\",\"value\":{}}],\"droppedAttributesCount\":4294967295,"
                + "\"status\":{\"code\":2}}]}]}]}", json);
    }

    @Test
    void protoDecode_nanPayloadAndNegativeZero_keptBitForBit() throws IOException {
        double payloadNaN = Double.longBitsToDouble(0x7ff8_dead_beef_0001L);
        List<SpanRecord> spans = List.of(span(Resource.EMPTY, Scope.EMPTY, 1));
        SpanRecord withDoubles = withAttributes(spans.get(0), List.of(new KeyValue("nan", AnyValue.of(payloadNaN)),
                new KeyValue("negzero", AnyValue.of(-0.0))));
        List<KeyValue> got = OtlpWire.decodeSpans(OtlpWireWriter.encodeSpans(List.of(withDoubles))).records().get(0).attributes();
        assertEquals(0x7ff8_dead_beef_0001L, Double.doubleToRawLongBits(((AnyValue.Dbl) got.get(0).value()).value()));
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(((AnyValue.Dbl) got.get(1).value()).value()));
        assertTrue(got.equals(withDoubles.attributes()));
    }

    static SpanRecord span(Resource resource, Scope scope, int n) {
        byte[] traceId = new byte[16];
        traceId[15] = (byte) n;
        byte[] spanId = new byte[8];
        spanId[7] = (byte) n;
        return SpanRecord.builder().resource(resource).scope(scope).traceId(Bytes.wrap(traceId))
                .spanId(Bytes.wrap(spanId)).name("span " + n).kind(1).startTimeUnixNano(1_000L * n)
                .endTimeUnixNano(2_000L * n).build();
    }

    static SpanRecord withAttributes(SpanRecord s, List<KeyValue> attributes) {
        return s.toBuilder().attributes(attributes).build();
    }
}
