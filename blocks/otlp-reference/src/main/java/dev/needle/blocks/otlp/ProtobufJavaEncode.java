package dev.needle.blocks.otlp;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference OtlpWireWriter is held to: records built into protobuf-java's messages, in the
 * canonical form OtlpWireWriter describes, as needle encoded before it wrote the wire itself. Public
 * for the bench's OtlpEncodeBenchmark, whose baseline it is.
 */
public final class ProtobufJavaEncode {

    private ProtobufJavaEncode() {
    }

    /** Spans as one request, nested by resource and scope in order of first appearance: Tempo's trace-by-id shape. */
    public static ExportTraceServiceRequest spans(List<SpanRecord> spans) {
        ExportTraceServiceRequest.Builder request = ExportTraceServiceRequest.newBuilder();
        Grouping.group(spans, SpanRecord::resource, SpanRecord::scope).forEach((resource, scopes) -> {
            ResourceSpans.Builder rs = request.addResourceSpansBuilder()
                    .setResource(resource(resource)).setSchemaUrl(resource.schemaUrl());
            scopes.forEach((scope, records) -> {
                ScopeSpans.Builder ss = rs.addScopeSpansBuilder().setScope(scope(scope)).setSchemaUrl(scope.schemaUrl());
                for (SpanRecord span : records) {
                    ss.addSpans(span(span));
                }
            });
        });
        return request.build();
    }

    /** Log records as one request, nested by resource and scope in order of first appearance. */
    public static ExportLogsServiceRequest logs(List<LogRecord> logs) {
        ExportLogsServiceRequest.Builder request = ExportLogsServiceRequest.newBuilder();
        Grouping.group(logs, LogRecord::resource, LogRecord::scope).forEach((resource, scopes) -> {
            ResourceLogs.Builder rl = request.addResourceLogsBuilder()
                    .setResource(resource(resource)).setSchemaUrl(resource.schemaUrl());
            scopes.forEach((scope, records) -> {
                ScopeLogs.Builder sl = rl.addScopeLogsBuilder().setScope(scope(scope)).setSchemaUrl(scope.schemaUrl());
                for (LogRecord log : records) {
                    sl.addLogRecords(log(log));
                }
            });
        });
        return request.build();
    }

    private static io.opentelemetry.proto.resource.v1.Resource resource(Resource r) {
        return io.opentelemetry.proto.resource.v1.Resource.newBuilder()
                .addAllAttributes(keyValues(r.attributes())).setDroppedAttributesCount(r.droppedAttributesCount()).build();
    }

    private static InstrumentationScope scope(Scope s) {
        return InstrumentationScope.newBuilder().setName(s.name()).setVersion(s.version())
                .addAllAttributes(keyValues(s.attributes())).setDroppedAttributesCount(s.droppedAttributesCount()).build();
    }

    private static Span span(SpanRecord r) {
        Span.Builder s = Span.newBuilder()
                .setTraceId(byteString(r.traceId())).setSpanId(byteString(r.spanId())).setTraceState(r.traceState())
                .setParentSpanId(byteString(r.parentSpanId())).setFlags(r.flags()).setName(r.name())
                .setKindValue(r.kind()).setStartTimeUnixNano(r.startTimeUnixNano()).setEndTimeUnixNano(r.endTimeUnixNano())
                .addAllAttributes(keyValues(r.attributes())).setDroppedAttributesCount(r.droppedAttributesCount())
                .setDroppedEventsCount(r.droppedEventsCount()).setDroppedLinksCount(r.droppedLinksCount());
        for (SpanEvent e : r.events()) {
            s.addEventsBuilder().setTimeUnixNano(e.timeUnixNano()).setName(e.name())
                    .addAllAttributes(keyValues(e.attributes())).setDroppedAttributesCount(e.droppedAttributesCount());
        }
        for (SpanLink l : r.links()) {
            s.addLinksBuilder().setTraceId(byteString(l.traceId())).setSpanId(byteString(l.spanId()))
                    .setTraceState(l.traceState()).addAllAttributes(keyValues(l.attributes()))
                    .setDroppedAttributesCount(l.droppedAttributesCount()).setFlags(l.flags());
        }
        if (r.statusCode() != 0 || !r.statusMessage().isEmpty()) {
            s.setStatus(Status.newBuilder().setCodeValue(r.statusCode()).setMessage(r.statusMessage()));
        }
        return s.build();
    }

    private static io.opentelemetry.proto.logs.v1.LogRecord log(LogRecord r) {
        io.opentelemetry.proto.logs.v1.LogRecord.Builder l = io.opentelemetry.proto.logs.v1.LogRecord.newBuilder()
                .setTimeUnixNano(r.timeUnixNano()).setObservedTimeUnixNano(r.observedTimeUnixNano())
                .setSeverityNumberValue(r.severityNumber()).setSeverityText(r.severityText())
                .addAllAttributes(keyValues(r.attributes())).setDroppedAttributesCount(r.droppedAttributesCount())
                .setFlags(r.flags()).setTraceId(byteString(r.traceId())).setSpanId(byteString(r.spanId()))
                .setEventName(r.eventName());
        if (!(r.body() instanceof AnyValue.Empty)) {
            l.setBody(value(r.body()));
        }
        return l.build();
    }

    private static List<io.opentelemetry.proto.common.v1.KeyValue> keyValues(List<KeyValue> pairs) {
        List<io.opentelemetry.proto.common.v1.KeyValue> out = new ArrayList<>(pairs.size());
        for (KeyValue kv : pairs) {
            out.add(io.opentelemetry.proto.common.v1.KeyValue.newBuilder().setKey(kv.key()).setValue(value(kv.value())).build());
        }
        return out;
    }

    private static io.opentelemetry.proto.common.v1.AnyValue value(AnyValue v) {
        io.opentelemetry.proto.common.v1.AnyValue.Builder b = io.opentelemetry.proto.common.v1.AnyValue.newBuilder();
        if (v instanceof AnyValue.Str s) {
            b.setStringValue(s.value());
        } else if (v instanceof AnyValue.Bool bool) {
            b.setBoolValue(bool.value());
        } else if (v instanceof AnyValue.Int i) {
            b.setIntValue(i.value());
        } else if (v instanceof AnyValue.Dbl d) {
            b.setDoubleValue(d.value());
        } else if (v instanceof AnyValue.Blob blob) {
            b.setBytesValue(byteString(blob.value()));
        } else if (v instanceof AnyValue.Array a) {
            ArrayValue.Builder array = ArrayValue.newBuilder();
            for (AnyValue element : a.values()) {
                array.addValues(value(element));
            }
            b.setArrayValue(array);
        } else if (v instanceof AnyValue.KvList kv) {
            b.setKvlistValue(KeyValueList.newBuilder().addAllValues(keyValues(kv.values())));
        }
        // AnyValue.Empty: no case set.
        return b.build();
    }

    /** Bytes never change their array, so protobuf may share it instead of copying. */
    private static ByteString byteString(Bytes b) {
        return b.isEmpty() ? ByteString.EMPTY : UnsafeByteOperations.unsafeWrap(b.unsafeArray());
    }
}
