package dev.needle.blocks.otlp;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.resource.v1.Resource;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.HexFormat;

/** Requests made with the protobuf builders, in the canonical form the encoders write, every field and value kind set. */
final class ProtoSamples {

    private ProtoSamples() {
    }

    static ByteString hex(String hex) {
        return ByteString.copyFrom(HexFormat.of().parseHex(hex.toLowerCase()));
    }

    static KeyValue kv(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    static AnyValue str(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    static AnyValue dbl(double d) {
        return AnyValue.newBuilder().setDoubleValue(d).build();
    }

    /** One attribute of every value kind, nested ones included. */
    static Iterable<KeyValue> everyValueKind() {
        return java.util.List.of(
                kv("string", str("some string ✓ 🚀")),
                kv("empty.string", str("")),
                kv("bool", AnyValue.newBuilder().setBoolValue(true).build()),
                kv("false", AnyValue.newBuilder().setBoolValue(false).build()),
                kv("int", AnyValue.newBuilder().setIntValue(Long.MIN_VALUE).build()),
                kv("zero", AnyValue.newBuilder().setIntValue(0).build()),
                kv("double", dbl(637.704)),
                kv("nan", dbl(Double.NaN)),
                kv("negative.zero", dbl(-0.0)),
                kv("infinity", dbl(Double.NEGATIVE_INFINITY)),
                kv("bytes", AnyValue.newBuilder().setBytesValue(hex("00ff10")).build()),
                kv("empty.bytes", AnyValue.newBuilder().setBytesValue(ByteString.EMPTY).build()),
                kv("array", AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
                        .addValues(str("many")).addValues(AnyValue.getDefaultInstance())
                        .addValues(AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder().addValues(dbl(1.5))))).build()),
                kv("empty.array", AnyValue.newBuilder().setArrayValue(ArrayValue.getDefaultInstance()).build()),
                kv("map", AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
                        .addValues(kv("some.map.key", str("some value")))
                        .addValues(kv("some.map.key", AnyValue.newBuilder().setKvlistValue(KeyValueList.getDefaultInstance()).build()))).build()),
                kv("empty", AnyValue.getDefaultInstance()),
                kv("", str("empty key")));
    }

    static ExportTraceServiceRequest everyFieldSpans() {
        Span full = Span.newBuilder()
                .setTraceId(hex("5B8EFFF798038103D269B633813FC60C")).setSpanId(hex("EEE19B7EC3C1B174"))
                .setTraceState("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE").setParentSpanId(hex("EEE19B7EC3C1B173"))
                .setFlags(0x301).setName("I'm a server span").setKind(Span.SpanKind.SPAN_KIND_SERVER)
                .setStartTimeUnixNano(1544712660000000000L).setEndTimeUnixNano(-2L)
                .addAllAttributes(everyValueKind()).setDroppedAttributesCount(-1)
                .addEvents(Span.Event.newBuilder().setTimeUnixNano(1544712660500000000L).setName("exception")
                        .addAttributes(kv("exception.message", str("boom"))).setDroppedAttributesCount(2))
                .addEvents(Span.Event.getDefaultInstance())
                .setDroppedEventsCount(7)
                .addLinks(Span.Link.newBuilder().setTraceId(hex("0102030405060708090a0b0c0d0e0f10"))
                        .setSpanId(hex("0102030405060708")).setTraceState("k=v").addAttributes(kv("l", str("x")))
                        .setDroppedAttributesCount(1).setFlags(0x100))
                .addLinks(Span.Link.getDefaultInstance())
                .setDroppedLinksCount(3)
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).setMessage("failed"))
                .build();
        Span minimal = Span.newBuilder().setTraceId(hex("5B8EFFF798038103D269B633813FC60C"))
                .setSpanId(hex("EEE19B7EC3C1B175")).build();
        Span odd = Span.newBuilder().setTraceId(hex("ffffffffffffffffffffffffffffffff"))
                .setSpanId(hex("ffffffffffffffff")).setKindValue(42).setName("x".repeat(200_000))
                .setStatus(Status.newBuilder().setCodeValue(-7)).build();
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(Resource.newBuilder().addAllAttributes(everyValueKind()).setDroppedAttributesCount(3))
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.21.0")
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("my.library").setVersion("1.0.0")
                                        .addAttributes(kv("my.scope.attribute", str("some scope attribute")))
                                        .setDroppedAttributesCount(5))
                                .setSchemaUrl("https://opentelemetry.io/schemas/1.20.0")
                                .addSpans(full).addSpans(minimal))
                        .addScopeSpans(ScopeSpans.newBuilder().setScope(InstrumentationScope.getDefaultInstance())
                                .addSpans(odd)))
                .addResourceSpans(ResourceSpans.newBuilder().setResource(Resource.getDefaultInstance())
                        .addScopeSpans(ScopeSpans.newBuilder().setScope(InstrumentationScope.getDefaultInstance())
                                .addSpans(minimal)))
                .build();
    }

    static ExportLogsServiceRequest everyFieldLogs() {
        ScopeLogs.Builder scope = ScopeLogs.newBuilder()
                .setScope(InstrumentationScope.newBuilder().setName("my.library").setVersion("1.0.0"))
                .setSchemaUrl("https://opentelemetry.io/schemas/1.20.0");
        scope.addLogRecords(LogRecord.newBuilder().setTimeUnixNano(1544712660300000000L)
                .setObservedTimeUnixNano(-1L).setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_INFO2)
                .setSeverityText("Information").setBody(str("Example log record"))
                .addAllAttributes(everyValueKind()).setDroppedAttributesCount(4).setFlags(1)
                .setTraceId(hex("5B8EFFF798038103D269B633813FC60C")).setSpanId(hex("EEE19B7EC3C1B174"))
                .setEventName("browser.page_view"));
        scope.addLogRecords(LogRecord.getDefaultInstance());
        for (KeyValue kv : everyValueKind()) {
            if (kv.getValue().getValueCase() == AnyValue.ValueCase.VALUE_NOT_SET) {
                continue; // an empty body is written as no body, the canonical form
            }
            scope.addLogRecords(LogRecord.newBuilder().setBody(kv.getValue()).setSeverityNumberValue(99));
        }
        return ExportLogsServiceRequest.newBuilder()
                .addResourceLogs(ResourceLogs.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(kv("service.name", str("my.service"))))
                        .setSchemaUrl("https://opentelemetry.io/schemas/1.21.0")
                        .addScopeLogs(scope))
                .build();
    }

    /** trace.json of the OTLP repository's examples, made with the builders. */
    static ExportTraceServiceRequest exampleTrace() {
        return ExportTraceServiceRequest.newBuilder()
                .addResourceSpans(ResourceSpans.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(kv("service.name", str("my.service"))))
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName("my.library").setVersion("1.0.0")
                                        .addAttributes(kv("my.scope.attribute", str("some scope attribute"))))
                                .addSpans(Span.newBuilder()
                                        .setTraceId(hex("5B8EFFF798038103D269B633813FC60C"))
                                        .setSpanId(hex("EEE19B7EC3C1B174")).setParentSpanId(hex("EEE19B7EC3C1B173"))
                                        .setName("I'm a server span").setStartTimeUnixNano(1544712660000000000L)
                                        .setEndTimeUnixNano(1544712661000000000L).setKind(Span.SpanKind.SPAN_KIND_SERVER)
                                        .addAttributes(kv("my.span.attr", str("some value"))))))
                .build();
    }
}
