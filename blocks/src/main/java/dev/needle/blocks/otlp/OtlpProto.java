package dev.needle.blocks.otlp;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnsafeByteOperations;
import com.google.protobuf.WireFormat;
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
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.common.v1.KeyValueList;
import io.opentelemetry.proto.logs.v1.ResourceLogs;
import io.opentelemetry.proto.logs.v1.ScopeLogs;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/** Conversions between OTLP's protobuf export requests and needle's records, both ways. */
public final class OtlpProto {

    /*
     * Decoding keeps every field the model has. Entity refs and the profiling-only string-table
     * indexes have no place in it (OTLP tells non-profiling receivers to treat the latter as absent).
     * It rejects, record by record, what Rejections rules out and values nested deeper than
     * ValueCodec.MAX_DEPTH. Encoding nests records by resource and scope and writes one canonical
     * form: a resource and a scope always, a status and a log body only when set, an attribute's
     * value always (an empty AnyValue for AnyValue.Empty). So decode(encode(records)) gives grouped
     * records back exactly, and encode(decode(request)) gives back a canonical request.
     */

    /*
     * Protobuf-java refuses messages nested deeper than its recursion limit (100 by default), which
     * would fail a whole request over a value some 30 kvlists deep. A value sits at most six messages
     * below the request (resource spans, scope spans, span, event, key-value, value) and each kvlist
     * level costs three (KeyValueList, KeyValue, AnyValue): this limit parses a value one level
     * deeper than MAX_DEPTH, so that it is rejected with its record, and stops anything much deeper.
     */
    static final int RECURSION_LIMIT = 6 + 3 * (ValueCodec.MAX_DEPTH + 1) + 2;

    private OtlpProto() {
    }

    /** Parses a protobuf request body; bytes that are not one give an {@link OtlpDecodeException}, the stream's own errors pass. */
    public static ExportTraceServiceRequest parseSpans(InputStream body) throws IOException {
        return parse(CodedInputStream.newInstance(body), ExportTraceServiceRequest::parseFrom, "ExportTraceServiceRequest");
    }

    /** Parses a protobuf request body; bytes that are not one give an {@link OtlpDecodeException}, the stream's own errors pass. */
    public static ExportLogsServiceRequest parseLogs(InputStream body) throws IOException {
        return parse(CodedInputStream.newInstance(body), ExportLogsServiceRequest::parseFrom, "ExportLogsServiceRequest");
    }

    /** Parses a protobuf request held in memory, read in place; bytes that are not one give an {@link OtlpDecodeException}. */
    public static ExportTraceServiceRequest parseSpans(byte[] body) throws OtlpDecodeException {
        return parseInPlace(body, ExportTraceServiceRequest::parseFrom, "ExportTraceServiceRequest");
    }

    /** Like {@link #parseSpans(byte[])}, for log records. */
    public static ExportLogsServiceRequest parseLogs(byte[] body) throws OtlpDecodeException {
        return parseInPlace(body, ExportLogsServiceRequest::parseFrom, "ExportLogsServiceRequest");
    }

    /**
     * Parses a protobuf request body held in memory after counting its records without building
     * anything: a body of millions of tiny records is refused before it costs gigabytes of objects.
     */
    public static ExportTraceServiceRequest parseSpans(byte[] body, long maxRecords) throws IOException {
        checkCount(body, maxRecords, "spans", "ExportTraceServiceRequest");
        return parseSpans(body);
    }

    /** Like {@link #parseSpans(byte[], long)}, for log records. */
    public static ExportLogsServiceRequest parseLogs(byte[] body, long maxRecords) throws IOException {
        checkCount(body, maxRecords, "log records", "ExportLogsServiceRequest");
        return parseLogs(body);
    }

    /** A generated message's {@code parseFrom(CodedInputStream)}. */
    private interface ParseFrom<M> {
        M parse(CodedInputStream in) throws IOException;
    }

    private static <M> M parse(CodedInputStream in, ParseFrom<M> parseFrom, String message) throws IOException {
        in.setRecursionLimit(RECURSION_LIMIT);
        try {
            // parseFrom(CodedInputStream) unwraps the stream's IOExceptions; what is left is about the bytes.
            return parseFrom.parse(in);
        } catch (InvalidProtocolBufferException e) {
            throw new OtlpDecodeException("not an OTLP " + message + ": " + e.getMessage(), e);
        }
    }

    private static <M> M parseInPlace(byte[] body, ParseFrom<M> parseFrom, String message) throws OtlpDecodeException {
        try {
            return parse(CodedInputStream.newInstance(body), parseFrom, message);
        } catch (OtlpDecodeException e) {
            throw e;
        } catch (IOException e) {
            // A byte array has no I/O of its own to fail.
            throw new OtlpDecodeException("not an OTLP " + message + ": " + e.getMessage(), e);
        }
    }

    private static void checkCount(byte[] body, long maxRecords, String what, String message) throws IOException {
        long count;
        try {
            count = countRecords(CodedInputStream.newInstance(body), 0);
        } catch (InvalidProtocolBufferException e) {
            throw new OtlpDecodeException("not an OTLP " + message + ": " + e.getMessage(), e);
        }
        if (count > maxRecords) {
            throw new OtlpTooManyRecordsException("the request holds " + count + " " + what
                    + ", more than the " + maxRecords + " one request may hold: send smaller batches");
        }
    }

    /**
     * Counts records by walking the wire format: field 1 of the request (resource spans or logs),
     * field 2 of that (scope spans or logs), field 2 of that (the records), skipping the rest.
     */
    private static long countRecords(CodedInputStream in, int depth) throws IOException {
        long count = 0;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            boolean nested = WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED
                    && WireFormat.getTagFieldNumber(tag) == (depth == 0 ? 1 : 2);
            if (!nested || depth == 2) {
                count += nested ? 1 : 0;
                in.skipField(tag);
                continue;
            }
            int limit = in.pushLimit(in.readRawVarint32());
            count += countRecords(in, depth + 1);
            in.popLimit(limit);
        }
        return count;
    }

    /** The valid spans of a request, each with its resource and scope, and what was rejected. */
    public static Decoded<SpanRecord> decodeSpans(ExportTraceServiceRequest request) {
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
    public static Decoded<LogRecord> decodeLogs(ExportLogsServiceRequest request) {
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

    /** Spans as one request, nested by resource and scope in order of first appearance: Tempo's trace-by-id shape. */
    public static ExportTraceServiceRequest encodeSpans(List<SpanRecord> spans) {
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
    public static ExportLogsServiceRequest encodeLogs(List<LogRecord> logs) {
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
            return new SpanRecord(resource, scope, bytes(s.getTraceId()), bytes(s.getSpanId()), s.getTraceState(),
                    bytes(s.getParentSpanId()), s.getFlags(), s.getName(), s.getKindValue(),
                    s.getStartTimeUnixNano(), s.getEndTimeUnixNano(), keyValues(s.getAttributesList(), 0),
                    s.getDroppedAttributesCount(), events, s.getDroppedEventsCount(), links, s.getDroppedLinksCount(),
                    s.getStatus().getCodeValue(), s.getStatus().getMessage());
        }

        LogRecord log(io.opentelemetry.proto.logs.v1.LogRecord l, Resource resource, Scope scope) {
            return new LogRecord(resource, scope, l.getTimeUnixNano(), l.getObservedTimeUnixNano(),
                    l.getSeverityNumberValue(), l.getSeverityText(), value(l.getBody(), 0),
                    keyValues(l.getAttributesList(), 0), l.getDroppedAttributesCount(), l.getFlags(),
                    bytes(l.getTraceId()), bytes(l.getSpanId()), l.getEventName());
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
