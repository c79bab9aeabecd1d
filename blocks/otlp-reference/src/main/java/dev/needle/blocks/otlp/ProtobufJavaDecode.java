package dev.needle.blocks.otlp;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
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
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The reference OtlpWire is held to: protobuf-java parses a request into its messages, which are
 * then converted to records, as needle decoded before it read the wire itself. Public for the
 * bench's OtlpDecodeBenchmark, whose baseline it is.
 */
public final class ProtobufJavaDecode {

    private ProtobufJavaDecode() {
    }

    /** Parses and converts spans; bytes protobuf-java refuses give an {@link OtlpDecodeException}. */
    public static Decoded<SpanRecord> spans(byte[] body) throws OtlpDecodeException {
        return decodeSpans(parse(body, ExportTraceServiceRequest::parseFrom, "ExportTraceServiceRequest"));
    }

    /** Parses and converts log records; bytes protobuf-java refuses give an {@link OtlpDecodeException}. */
    public static Decoded<LogRecord> logs(byte[] body) throws OtlpDecodeException {
        return decodeLogs(parse(body, ExportLogsServiceRequest::parseFrom, "ExportLogsServiceRequest"));
    }

    /** A generated message's {@code parseFrom(CodedInputStream)}. */
    private interface ParseFrom<M> {
        M parse(CodedInputStream in) throws IOException;
    }

    private static <M> M parse(byte[] body, ParseFrom<M> parseFrom, String message) throws OtlpDecodeException {
        CodedInputStream in = CodedInputStream.newInstance(body);
        in.setRecursionLimit(OtlpWire.RECURSION_LIMIT);
        try {
            // parseFrom(CodedInputStream) unwraps the stream's IOExceptions; what is left is about the bytes.
            return parseFrom.parse(in);
        } catch (IOException e) {
            throw new OtlpDecodeException("not an OTLP " + message + ": " + e.getMessage(), e);
        }
    }

    /** The valid spans of a request, each with its resource and scope, and what was rejected. */
    private static Decoded<SpanRecord> decodeSpans(ExportTraceServiceRequest request) {
        Rejections rejections = Rejections.spans();
        List<SpanRecord> kept = new ArrayList<>();
        ToModel to = new ToModel();
        for (ResourceSpans rs : request.getResourceSpansList()) {
            Resource resource = to.resource(rs.getResource(), rs.getSchemaUrl());
            String resourceProblem = to.takeProblem("resource: ");
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                Scope scope = to.scope(ss.getScope(), ss.getSchemaUrl());
                String scopeProblem = to.takeProblem("scope: ");
                for (int i = 0; i < ss.getSpansCount(); i++) {
                    SpanRecord span = to.span(ss.getSpans(i), resource, scope);
                    String problem = first(resourceProblem, scopeProblem, to.takeProblem(""));
                    if (problem == null) {
                        problem = Rejections.spanProblem(span.traceId(), span.spanId(), span.parentSpanId());
                    }
                    if (problem == null) {
                        kept.add(span);
                    } else {
                        rejections.reject(i, scope.name(), problem);
                    }
                }
            }
        }
        return rejections.result(kept);
    }

    /** The valid log records of a request, each with its resource and scope, and what was rejected. */
    private static Decoded<LogRecord> decodeLogs(ExportLogsServiceRequest request) {
        Rejections rejections = Rejections.logs();
        List<LogRecord> kept = new ArrayList<>();
        ToModel to = new ToModel();
        for (ResourceLogs rl : request.getResourceLogsList()) {
            Resource resource = to.resource(rl.getResource(), rl.getSchemaUrl());
            String resourceProblem = to.takeProblem("resource: ");
            for (ScopeLogs sl : rl.getScopeLogsList()) {
                Scope scope = to.scope(sl.getScope(), sl.getSchemaUrl());
                String scopeProblem = to.takeProblem("scope: ");
                for (int i = 0; i < sl.getLogRecordsCount(); i++) {
                    LogRecord log = to.log(sl.getLogRecords(i), resource, scope);
                    String problem = first(resourceProblem, scopeProblem, to.takeProblem(""));
                    if (problem == null) {
                        problem = Rejections.logProblem(log.traceId(), log.spanId());
                    }
                    if (problem == null) {
                        kept.add(log);
                    } else {
                        rejections.reject(i, scope.name(), problem);
                    }
                }
            }
        }
        return rejections.result(kept);
    }

    private static String first(String a, String b, String c) {
        return a != null ? a : b != null ? b : c;
    }

    /** Protobuf to model; remembers the first reason the resource, scope or record being converted must be rejected. */
    private static final class ToModel {
        private String problem;

        /** The problem met since the last call, prefixed, or null; and forgets it. */
        String takeProblem(String prefix) {
            String p = problem == null ? null : prefix + problem;
            problem = null;
            return p;
        }

        Resource resource(io.opentelemetry.proto.resource.v1.Resource r, String schemaUrl) {
            return new Resource(keyValues(r.getAttributesList(), 0), r.getDroppedAttributesCount(), schemaUrl);
        }

        Scope scope(InstrumentationScope s, String schemaUrl) {
            return new Scope(s.getName(), s.getVersion(), keyValues(s.getAttributesList(), 0),
                    s.getDroppedAttributesCount(), schemaUrl);
        }

        SpanRecord span(Span s, Resource resource, Scope scope) {
            List<SpanEvent> events = new ArrayList<>(s.getEventsCount());
            for (Span.Event e : s.getEventsList()) {
                events.add(new SpanEvent(e.getTimeUnixNano(), e.getName(), keyValues(e.getAttributesList(), 0),
                        e.getDroppedAttributesCount()));
            }
            List<SpanLink> links = new ArrayList<>(s.getLinksCount());
            for (Span.Link l : s.getLinksList()) {
                links.add(new SpanLink(bytes(l.getTraceId()), bytes(l.getSpanId()), l.getTraceState(),
                        keyValues(l.getAttributesList(), 0), l.getDroppedAttributesCount(), l.getFlags()));
            }
            return SpanRecord.builder().resource(resource).scope(scope).traceId(bytes(s.getTraceId()))
                    .spanId(bytes(s.getSpanId())).traceState(s.getTraceState())
                    .parentSpanId(bytes(s.getParentSpanId())).flags(s.getFlags()).name(s.getName())
                    .kind(s.getKindValue()).startTimeUnixNano(s.getStartTimeUnixNano())
                    .endTimeUnixNano(s.getEndTimeUnixNano()).attributes(keyValues(s.getAttributesList(), 0))
                    .droppedAttributesCount(s.getDroppedAttributesCount()).events(events)
                    .droppedEventsCount(s.getDroppedEventsCount()).links(links)
                    .droppedLinksCount(s.getDroppedLinksCount()).statusCode(s.getStatus().getCodeValue())
                    .statusMessage(s.getStatus().getMessage()).build();
        }

        LogRecord log(io.opentelemetry.proto.logs.v1.LogRecord l, Resource resource, Scope scope) {
            return LogRecord.builder().resource(resource).scope(scope).timeUnixNano(l.getTimeUnixNano())
                    .observedTimeUnixNano(l.getObservedTimeUnixNano()).severityNumber(l.getSeverityNumberValue())
                    .severityText(l.getSeverityText()).body(value(l.getBody(), 0))
                    .attributes(keyValues(l.getAttributesList(), 0))
                    .droppedAttributesCount(l.getDroppedAttributesCount()).flags(l.getFlags())
                    .traceId(bytes(l.getTraceId())).spanId(bytes(l.getSpanId())).eventName(l.getEventName()).build();
        }

        /** {@code enclosing} counts the arrays and kvlists around the pairs' values. */
        private List<KeyValue> keyValues(List<io.opentelemetry.proto.common.v1.KeyValue> pairs, int enclosing) {
            List<KeyValue> out = new ArrayList<>(pairs.size());
            for (io.opentelemetry.proto.common.v1.KeyValue kv : pairs) {
                out.add(new KeyValue(kv.getKey(), value(kv.getValue(), enclosing)));
            }
            return out;
        }

        private AnyValue value(io.opentelemetry.proto.common.v1.AnyValue v, int enclosing) {
            switch (v.getValueCase()) {
                case STRING_VALUE:
                    return new AnyValue.Str(v.getStringValue());
                case BOOL_VALUE:
                    return new AnyValue.Bool(v.getBoolValue());
                case INT_VALUE:
                    return new AnyValue.Int(v.getIntValue());
                case DOUBLE_VALUE:
                    return new AnyValue.Dbl(v.getDoubleValue());
                case BYTES_VALUE:
                    return new AnyValue.Blob(bytes(v.getBytesValue()));
                case ARRAY_VALUE: {
                    if (enclosing >= ValueCodec.MAX_DEPTH) {
                        return tooDeep();
                    }
                    List<AnyValue> values = new ArrayList<>(v.getArrayValue().getValuesCount());
                    for (io.opentelemetry.proto.common.v1.AnyValue element : v.getArrayValue().getValuesList()) {
                        values.add(value(element, enclosing + 1));
                    }
                    return new AnyValue.Array(values);
                }
                case KVLIST_VALUE:
                    if (enclosing >= ValueCodec.MAX_DEPTH) {
                        return tooDeep();
                    }
                    return new AnyValue.KvList(keyValues(v.getKvlistValue().getValuesList(), enclosing + 1));
                default:
                    // Nothing set, or string_value_strindex, which non-profiling receivers are to treat as absent.
                    return AnyValue.Empty.INSTANCE;
            }
        }

        /** Stands in for a value no block could hold, whose record is then rejected; recursion stops here. */
        private AnyValue tooDeep() {
            if (problem == null) {
                problem = Rejections.TOO_DEEP;
            }
            return AnyValue.Empty.INSTANCE;
        }

        private static Bytes bytes(ByteString b) {
            return b.isEmpty() ? Bytes.EMPTY : Bytes.wrap(b.toByteArray());
        }
    }
}
