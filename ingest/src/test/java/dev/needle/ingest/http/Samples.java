package dev.needle.ingest.http;

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
import java.util.Random;

/** OTLP export requests as an SDK would send them: every attribute value type, events, links, status. */
final class Samples {

    private static final long T0 = 1_764_446_100_000_000_000L;

    private Samples() {
    }

    /** {@code n} valid spans of service {@code service}, with ids drawn from {@code seed}. */
    static ExportTraceServiceRequest traces(String service, int n, long seed) {
        Random random = new Random(seed);
        ScopeSpans.Builder scope = ScopeSpans.newBuilder().setScope(scope());
        for (int i = 0; i < n; i++) {
            scope.addSpans(span(random, i));
        }
        return ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                .setResource(resource(service)).addScopeSpans(scope)
                .setSchemaUrl("https://opentelemetry.io/schemas/1.26.0"))
                .build();
    }

    /** {@code n} valid log records of service {@code service}, with ids drawn from {@code seed}. */
    static ExportLogsServiceRequest logs(String service, int n, long seed) {
        Random random = new Random(seed);
        ScopeLogs.Builder scope = ScopeLogs.newBuilder().setScope(scope());
        for (int i = 0; i < n; i++) {
            scope.addLogRecords(log(random, i));
        }
        return ExportLogsServiceRequest.newBuilder().addResourceLogs(ResourceLogs.newBuilder()
                .setResource(resource(service)).addScopeLogs(scope)).build();
    }

    static Span span(Random random, int i) {
        long start = T0 + i * 1_000_000L;
        return Span.newBuilder()
                .setTraceId(id(random, 16)).setSpanId(id(random, 8)).setParentSpanId(id(random, 8))
                .setName("GET /cart/" + i).setKind(Span.SpanKind.SPAN_KIND_SERVER)
                .setStartTimeUnixNano(start).setEndTimeUnixNano(start + 5_000_000L)
                .addAttributes(attr("http.route", str("/cart/{id}")))
                .addAttributes(attr("http.status_code", AnyValue.newBuilder().setIntValue(200 + i % 3).build()))
                .addAttributes(attr("ratio", AnyValue.newBuilder().setDoubleValue(i / 7.0).build()))
                .addAttributes(attr("cached", AnyValue.newBuilder().setBoolValue(i % 2 == 0).build()))
                .addAttributes(attr("tags", AnyValue.newBuilder().setArrayValue(ArrayValue.newBuilder()
                        .addValues(str("a")).addValues(AnyValue.newBuilder().setIntValue(i))).build()))
                .addAttributes(attr("user", AnyValue.newBuilder().setKvlistValue(KeyValueList.newBuilder()
                        .addValues(attr("id", str("u" + i)))).build()))
                .addAttributes(attr("blob", AnyValue.newBuilder().setBytesValue(id(random, 5)).build()))
                .addEvents(Span.Event.newBuilder().setName("retry").setTimeUnixNano(start + 1000)
                        .addAttributes(attr("attempt", AnyValue.newBuilder().setIntValue(2).build())))
                .addLinks(Span.Link.newBuilder().setTraceId(id(random, 16)).setSpanId(id(random, 8)))
                .setStatus(Status.newBuilder().setCode(Status.StatusCode.STATUS_CODE_ERROR).setMessage("boom"))
                .build();
    }

    static LogRecord log(Random random, int i) {
        return LogRecord.newBuilder()
                .setTimeUnixNano(T0 + i * 1_000_000L).setObservedTimeUnixNano(T0 + i * 1_000_000L + 10)
                .setSeverityNumber(SeverityNumber.SEVERITY_NUMBER_WARN).setSeverityText("WARN")
                .setBody(str("payment " + i + " declined"))
                .addAttributes(attr("order", AnyValue.newBuilder().setIntValue(i).build()))
                .setTraceId(id(random, 16)).setSpanId(id(random, 8))
                .build();
    }

    private static Resource resource(String service) {
        return Resource.newBuilder().addAttributes(attr("service.name", str(service)))
                .addAttributes(attr("host.name", str("node-1"))).build();
    }

    private static InstrumentationScope scope() {
        return InstrumentationScope.newBuilder().setName("io.opentelemetry.test").setVersion("1.0.0").build();
    }

    static KeyValue attr(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    static AnyValue str(String s) {
        return AnyValue.newBuilder().setStringValue(s).build();
    }

    /** Random id bytes, never all zero. */
    static ByteString id(Random random, int length) {
        byte[] bytes = new byte[length];
        random.nextBytes(bytes);
        bytes[0] |= 1;
        return ByteString.copyFrom(bytes);
    }
}
