package dev.needle.blocks.otlp;

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
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Decodes OTLP's protobuf export requests from their wire bytes straight into needle's records,
 * reading each record once from the byte array, with no protobuf message objects in between.
 *
 * <p>The messages and fields read (field number: name, wire type); every other field is skipped:
 * <pre>
 * ExportTraceServiceRequest  1: resource_spans (message, repeated)
 * ExportLogsServiceRequest   1: resource_logs (message, repeated)
 * ResourceSpans/ResourceLogs 1: resource (message)  2: scope_spans/scope_logs (message, repeated)  3: schema_url (string)
 * ScopeSpans/ScopeLogs       1: scope (message)  2: spans/log_records (message, repeated)  3: schema_url (string)
 * Resource                   1: attributes (KeyValue, repeated)  2: dropped_attributes_count (varint)
 *                            3: entity_refs (EntityRef, repeated; checked, not kept)
 * EntityRef                  1: schema_url  2: type  3: id_keys  4: description_keys (strings; checked, not kept)
 * InstrumentationScope       1: name (string)  2: version (string)  3: attributes (KeyValue, repeated)
 *                            4: dropped_attributes_count (varint)
 * Span                       1: trace_id (bytes)  2: span_id (bytes)  3: trace_state (string)  4: parent_span_id (bytes)
 *                            5: name (string)  6: kind (varint)  7: start_time_unix_nano (fixed64)
 *                            8: end_time_unix_nano (fixed64)  9: attributes (KeyValue, repeated)
 *                            10: dropped_attributes_count (varint)  11: events (Event, repeated)
 *                            12: dropped_events_count (varint)  13: links (Link, repeated)
 *                            14: dropped_links_count (varint)  15: status (Status)  16: flags (fixed32)
 * Span.Event                 1: time_unix_nano (fixed64)  2: name (string)  3: attributes (KeyValue, repeated)
 *                            4: dropped_attributes_count (varint)
 * Span.Link                  1: trace_id (bytes)  2: span_id (bytes)  3: trace_state (string)
 *                            4: attributes (KeyValue, repeated)  5: dropped_attributes_count (varint)  6: flags (fixed32)
 * Status                     2: message (string)  3: code (varint)
 * LogRecord                  1: time_unix_nano (fixed64)  2: severity_number (varint)  3: severity_text (string)
 *                            5: body (AnyValue)  6: attributes (KeyValue, repeated)  7: dropped_attributes_count (varint)
 *                            8: flags (fixed32)  9: trace_id (bytes)  10: span_id (bytes)
 *                            11: observed_time_unix_nano (fixed64)  12: event_name (string)
 * KeyValue                   1: key (string)  2: value (AnyValue)  3: key_strindex (varint; read as absent)
 * AnyValue (one of)          1: string_value (string)  2: bool_value (varint)  3: int_value (varint)
 *                            4: double_value (fixed64)  5: array_value (ArrayValue)  6: kvlist_value (KeyValueList)
 *                            7: bytes_value (bytes)  8: string_value_strindex (varint; read as absent)
 * ArrayValue                 1: values (AnyValue, repeated)
 * KeyValueList               1: values (KeyValue, repeated)
 * </pre>
 *
 * <p>It gives what protobuf-java's parser followed by the conversion to the model gave: the same
 * records, rejections and failures, byte for byte of input.
 */
public final class OtlpWire {

    /*
     * Protobuf-java's parser is the reference, quirks included, so that a request is accepted or
     * refused the same whichever way it is read:
     * - a field whose wire type is not the declared one is an unknown field, skipped;
     * - a singular message field seen twice is merged (lists appended, scalars overwritten), so a
     *   resource or scope may be completed after its records: a ResourceSpans or ScopeSpans is
     *   read twice, first its resource or scope and schema url, then its records;
     * - an AnyValue keeps the array or kvlist it has begun even when another kind of value comes
     *   between two parts of it;
     * - strings must be UTF-8; an end-group tag outside a group, a group ending with another
     *   field's tag, wire types 6 and 7 and nesting beyond RECURSION_LIMIT (messages and unknown
     *   groups together) refuse the request.
     * Rejections as the JSON path makes them: what Rejections rules out and values nested deeper
     * than ValueCodec.MAX_DEPTH, record by record; a resource's or scope's problem rejects all its
     * records. Entity refs and the profiling-only string-table indexes have no place in the model
     * (OTLP tells non-profiling receivers to treat the latter as absent).
     */

    /*
     * Refusing messages nested too deep bounds the recursion, but a whole request should not fail
     * over a value some 30 kvlists deep. A value sits at most six messages below the request
     * (resource spans, scope spans, span, event, key-value, value) and each kvlist level costs
     * three (KeyValueList, KeyValue, AnyValue): this limit reads a value one level deeper than
     * MAX_DEPTH, so that it is rejected with its record, and stops anything much deeper.
     */
    static final int RECURSION_LIMIT = 6 + 3 * (ValueCodec.MAX_DEPTH + 1) + 2;

    private static final Message<SpanRecord> TRACES = new Message<>("ExportTraceServiceRequest", "spans",
            Rejections::spans, OtlpWire::span, s -> Rejections.spanProblem(s.traceId(), s.spanId(), s.parentSpanId()));
    private static final Message<LogRecord> LOGS = new Message<>("ExportLogsServiceRequest", "log records",
            Rejections::logs, OtlpWire::log, r -> Rejections.logProblem(r.traceId(), r.spanId()));

    /** One of the AnyValue kinds, as {@link ValueParts#kind} holds it. */
    private static final int NONE = 0;
    private static final int SCALAR = 1;
    private static final int ARRAY = 2;
    private static final int KVLIST = 3;

    private final byte[] body;
    private CodedInputStream in;
    /** Where {@link #in} starts in {@link #body}. */
    private int base;
    /** Messages and groups entered, as protobuf-java counts them against its recursion limit. */
    private int depth;
    /** The first reason the resource, scope or record being read must be rejected, or null. */
    private String problem;
    /** Whether the value last built nests arrays and kvlists deeper than MAX_DEPTH. */
    private boolean deep;
    /** The parts of the value being read in the message at each depth. */
    private final ValueParts[] parts = new ValueParts[RECURSION_LIMIT + 1];

    private OtlpWire(byte[] body, int length) {
        this.body = body;
        this.in = CodedInputStream.newInstance(body, 0, length);
    }

    /** The valid spans of a protobuf request, each with its resource and scope, and what was rejected. */
    public static Decoded<SpanRecord> decodeSpans(byte[] body) throws OtlpDecodeException {
        return decode(body, body.length, TRACES);
    }

    /**
     * Like {@link #decodeSpans(byte[])} for the first {@code length} bytes of {@code body}, a buffer that
     * may be reused: nothing decoded refers to it afterwards.
     */
    public static Decoded<SpanRecord> decodeSpans(byte[] body, int length) throws OtlpDecodeException {
        return decode(body, length, TRACES);
    }

    /** The valid log records of a protobuf request, each with its resource and scope, and what was rejected. */
    public static Decoded<LogRecord> decodeLogs(byte[] body) throws OtlpDecodeException {
        return decode(body, body.length, LOGS);
    }

    /** Like {@link #decodeSpans(byte[], int)}, for log records. */
    public static Decoded<LogRecord> decodeLogs(byte[] body, int length) throws OtlpDecodeException {
        return decode(body, length, LOGS);
    }

    /**
     * Like {@link #decodeSpans(byte[], int)}, after counting the spans without building anything: a
     * body of millions of tiny spans is refused with an {@link OtlpTooManyRecordsException} before it
     * costs gigabytes of objects.
     */
    public static Decoded<SpanRecord> decodeSpans(byte[] body, int length, long maxRecords) throws IOException {
        checkCount(body, length, maxRecords, TRACES);
        return decode(body, length, TRACES);
    }

    /** Like {@link #decodeSpans(byte[], int, long)}, for log records. */
    public static Decoded<LogRecord> decodeLogs(byte[] body, int length, long maxRecords) throws IOException {
        checkCount(body, length, maxRecords, LOGS);
        return decode(body, length, LOGS);
    }

    /**
     * What differs between spans and log records: the request's message, what its records are called, how
     * one is read and which ids it needs.
     */
    private record Message<T>(String name, String records, Supplier<Rejections> rejections, RecordReader<T> reader,
                              Function<T, String> idProblem) {
    }

    /** Reads the record message {@code wire} is at. */
    private interface RecordReader<T> {
        T read(OtlpWire wire, Resource resource, Scope scope) throws IOException;
    }

    /** One request being decoded: its message, and its records kept and rejected so far. */
    private static final class Request<T> {
        final Message<T> message;
        final Rejections rejections;
        final List<T> kept = new ArrayList<>();

        Request(Message<T> message) {
            this.message = message;
            this.rejections = message.rejections().get();
        }
    }

    private static <T> Decoded<T> decode(byte[] body, int length, Message<T> message) throws OtlpDecodeException {
        Request<T> request = new Request<>(message);
        try {
            new OtlpWire(body, length).request(request);
        } catch (IOException e) {
            // A byte array has no I/O of its own to fail: what fails is the bytes.
            throw new OtlpDecodeException("not an OTLP " + message.name() + ": " + e.getMessage(), e);
        }
        return request.rejections.result(request.kept);
    }

    private <T> void request(Request<T> request) throws IOException {
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == 10) {
                resourceGroup(request);
            } else {
                skip(tag);
            }
        }
    }

    /** A ResourceSpans or ResourceLogs: its resource and schema url first, then its scopes. */
    private <T> void resourceGroup(Request<T> request) throws IOException {
        int limit = enter();
        int start = base + in.getTotalBytesRead();
        List<KeyValue> attributes = new ArrayList<>();
        int dropped = 0;
        String schemaUrl = "";
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> dropped = resource(attributes, dropped);
                case 26 -> schemaUrl = in.readStringRequireUtf8();
                default -> skip(tag);
            }
        }
        Resource resource = new Resource(attributes, dropped, schemaUrl);
        String resourceProblem = takeProblem("resource: ");
        Position outer = reread(start);
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == 18) {
                scopeGroup(request, resource, resourceProblem);
            } else {
                skip(tag);
            }
        }
        resume(outer, limit);
    }

    /** A ScopeSpans or ScopeLogs: its scope and schema url first, then its records. */
    private <T> void scopeGroup(Request<T> request, Resource resource, String resourceProblem) throws IOException {
        int limit = enter();
        int start = base + in.getTotalBytesRead();
        String[] nameVersion = {"", ""};
        List<KeyValue> attributes = new ArrayList<>();
        int dropped = 0;
        String schemaUrl = "";
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> dropped = scope(nameVersion, attributes, dropped);
                case 26 -> schemaUrl = in.readStringRequireUtf8();
                default -> skip(tag);
            }
        }
        Scope scope = new Scope(nameVersion[0], nameVersion[1], attributes, dropped, schemaUrl);
        String scopeProblem = takeProblem("scope: ");
        Position outer = reread(start);
        int index = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag != 18) {
                skip(tag);
                continue;
            }
            T record = request.message.reader().read(this, resource, scope);
            String own = takeProblem("");
            String reason = resourceProblem != null ? resourceProblem : scopeProblem != null ? scopeProblem : own;
            if (reason == null) {
                reason = request.message.idProblem().apply(record);
            }
            if (reason == null) {
                request.kept.add(record);
            } else {
                request.rejections.reject(index, scope.name(), reason);
            }
            index++;
        }
        resume(outer, limit);
    }

    /** Merges a Resource message into {@code attributes}; returns its dropped count, or {@code dropped} if it has none. */
    private int resource(List<KeyValue> attributes, int dropped) throws IOException {
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> attributes.add(attribute());
                case 16 -> dropped = in.readUInt32();
                case 26 -> entityRef();
                default -> skip(tag);
            }
        }
        leave(limit);
        return dropped;
    }

    /** An EntityRef has no place in the model, but protobuf-java refuses one whose strings are not UTF-8. */
    private void entityRef() throws IOException {
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10, 18, 26, 34 -> in.readStringRequireUtf8();
                default -> skip(tag);
            }
        }
        leave(limit);
    }

    /** Merges an InstrumentationScope message into {@code nameVersion} and {@code attributes}; returns its dropped count. */
    private int scope(String[] nameVersion, List<KeyValue> attributes, int dropped) throws IOException {
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> nameVersion[0] = in.readStringRequireUtf8();
                case 18 -> nameVersion[1] = in.readStringRequireUtf8();
                case 26 -> attributes.add(attribute());
                case 32 -> dropped = in.readUInt32();
                default -> skip(tag);
            }
        }
        leave(limit);
        return dropped;
    }

    private SpanRecord span(Resource resource, Scope scope) throws IOException {
        int limit = enter();
        Bytes traceId = Bytes.EMPTY;
        Bytes spanId = Bytes.EMPTY;
        Bytes parentSpanId = Bytes.EMPTY;
        String traceState = "";
        String name = "";
        int flags = 0;
        int kind = 0;
        long start = 0;
        long end = 0;
        List<KeyValue> attributes = new ArrayList<>();
        int droppedAttributes = 0;
        List<SpanEvent> events = new ArrayList<>(0);
        int droppedEvents = 0;
        List<SpanLink> links = new ArrayList<>(0);
        int droppedLinks = 0;
        Status status = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> traceId = bytes();
                case 18 -> spanId = bytes();
                case 26 -> traceState = in.readStringRequireUtf8();
                case 34 -> parentSpanId = bytes();
                case 42 -> name = in.readStringRequireUtf8();
                case 48 -> kind = in.readEnum();
                case 57 -> start = in.readFixed64();
                case 65 -> end = in.readFixed64();
                case 74 -> attributes.add(attribute());
                case 80 -> droppedAttributes = in.readUInt32();
                case 90 -> events.add(event());
                case 96 -> droppedEvents = in.readUInt32();
                case 106 -> links.add(link());
                case 112 -> droppedLinks = in.readUInt32();
                case 122 -> status = status(status == null ? new Status() : status);
                case 133 -> flags = in.readFixed32();
                default -> skip(tag);
            }
        }
        leave(limit);
        return new SpanRecord(resource, scope, traceId, spanId, traceState, parentSpanId, flags, name, kind, start, end,
                attributes, droppedAttributes, events, droppedEvents, links, droppedLinks,
                status == null ? 0 : status.code, status == null ? "" : status.message);
    }

    /** A span's status, merged over the times it is sent. */
    private static final class Status {
        int code;
        String message = "";
    }

    private Status status(Status status) throws IOException {
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 18 -> status.message = in.readStringRequireUtf8();
                case 24 -> status.code = in.readEnum();
                default -> skip(tag);
            }
        }
        leave(limit);
        return status;
    }

    private SpanEvent event() throws IOException {
        int limit = enter();
        long time = 0;
        String name = "";
        List<KeyValue> attributes = new ArrayList<>();
        int dropped = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 9 -> time = in.readFixed64();
                case 18 -> name = in.readStringRequireUtf8();
                case 26 -> attributes.add(attribute());
                case 32 -> dropped = in.readUInt32();
                default -> skip(tag);
            }
        }
        leave(limit);
        return new SpanEvent(time, name, attributes, dropped);
    }

    private SpanLink link() throws IOException {
        int limit = enter();
        Bytes traceId = Bytes.EMPTY;
        Bytes spanId = Bytes.EMPTY;
        String traceState = "";
        List<KeyValue> attributes = new ArrayList<>();
        int dropped = 0;
        int flags = 0;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> traceId = bytes();
                case 18 -> spanId = bytes();
                case 26 -> traceState = in.readStringRequireUtf8();
                case 34 -> attributes.add(attribute());
                case 40 -> dropped = in.readUInt32();
                case 53 -> flags = in.readFixed32();
                default -> skip(tag);
            }
        }
        leave(limit);
        return new SpanLink(traceId, spanId, traceState, attributes, dropped, flags);
    }

    private LogRecord log(Resource resource, Scope scope) throws IOException {
        int limit = enter();
        long time = 0;
        long observedTime = 0;
        int severityNumber = 0;
        String severityText = "";
        ValueParts body = null;
        List<KeyValue> attributes = new ArrayList<>();
        int dropped = 0;
        int flags = 0;
        Bytes traceId = Bytes.EMPTY;
        Bytes spanId = Bytes.EMPTY;
        String eventName = "";
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 9 -> time = in.readFixed64();
                case 16 -> severityNumber = in.readEnum();
                case 26 -> severityText = in.readStringRequireUtf8();
                case 42 -> body = anyValue(body == null ? parts() : body, 0);
                case 50 -> attributes.add(attribute());
                case 56 -> dropped = in.readUInt32();
                case 69 -> flags = in.readFixed32();
                case 74 -> traceId = bytes();
                case 82 -> spanId = bytes();
                case 89 -> observedTime = in.readFixed64();
                case 98 -> eventName = in.readStringRequireUtf8();
                default -> skip(tag);
            }
        }
        AnyValue value = AnyValue.Empty.INSTANCE;
        if (body != null) {
            value = build(body, 0);
            if (deep) {
                tooDeep();
            }
        }
        leave(limit);
        return new LogRecord(resource, scope, time, observedTime, severityNumber, severityText, value,
                attributes, dropped, flags, traceId, spanId, eventName);
    }

    /** A resource's, scope's or record's own attribute: a value too deep rejects what holds it. */
    private KeyValue attribute() throws IOException {
        KeyValue kv = keyValue(0);
        if (deep) {
            tooDeep();
        }
        return kv;
    }

    /** {@code enclosing} counts the arrays and kvlists around the value; sets {@link #deep} for it. */
    private KeyValue keyValue(int enclosing) throws IOException {
        int limit = enter();
        String key = "";
        ValueParts value = null;
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> key = key();
                case 18 -> value = anyValue(value == null ? parts() : value, enclosing);
                default -> skip(tag); // 24, key_strindex, too: non-profiling receivers treat it as absent
            }
        }
        AnyValue built = AnyValue.Empty.INSTANCE;
        deep = false;
        if (value != null) {
            built = build(value, enclosing);
        }
        leave(limit);
        return new KeyValue(key, built);
    }

    /** The value parts of the message at the current depth, cleared: one value at a time is read at each depth. */
    private ValueParts parts() {
        ValueParts p = parts[depth];
        if (p == null) {
            p = new ValueParts();
            parts[depth] = p;
        }
        p.clear();
        return p;
    }

    /** Reads one AnyValue message into {@code v}, merging it with what {@code v} holds; returns {@code v}. */
    private ValueParts anyValue(ValueParts v, int enclosing) throws IOException {
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            switch (tag) {
                case 10 -> v.scalar(new AnyValue.Str(in.readStringRequireUtf8()));
                case 16 -> v.scalar(new AnyValue.Bool(in.readBool()));
                case 24 -> v.scalar(new AnyValue.Int(in.readInt64()));
                case 33 -> v.scalar(new AnyValue.Dbl(in.readDouble()));
                case 42 -> arrayValue(v, enclosing + 1);
                case 50 -> kvlistValue(v, enclosing + 1);
                case 58 -> v.scalar(new AnyValue.Blob(bytes()));
                case 64 -> {
                    // string_value_strindex, which non-profiling receivers are to treat as absent.
                    in.readInt32();
                    v.scalar(AnyValue.Empty.INSTANCE);
                }
                default -> skip(tag);
            }
        }
        leave(limit);
        return v;
    }

    private void arrayValue(ValueParts v, int enclosing) throws IOException {
        if (!v.hasArray) {
            v.hasArray = true;
            v.array.clear();
            v.arrayDeep = false;
        }
        v.kind = ARRAY;
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == 10) {
                v.array.add(build(anyValue(parts(), enclosing), enclosing));
                v.arrayDeep |= deep;
            } else {
                skip(tag);
            }
        }
        leave(limit);
    }

    private void kvlistValue(ValueParts v, int enclosing) throws IOException {
        if (!v.hasKvlist) {
            v.hasKvlist = true;
            v.kvlist.clear();
            v.kvlistDeep = false;
        }
        v.kind = KVLIST;
        int limit = enter();
        for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
            if (tag == 10) {
                v.kvlist.add(keyValue(enclosing));
                v.kvlistDeep |= deep;
            } else {
                skip(tag);
            }
        }
        leave(limit);
    }

    /** The value {@code v} holds; sets {@link #deep} when it is an array or kvlist nested deeper than MAX_DEPTH. */
    private AnyValue build(ValueParts v, int enclosing) {
        switch (v.kind) {
            case ARRAY:
                deep = enclosing >= ValueCodec.MAX_DEPTH || v.arrayDeep;
                return new AnyValue.Array(v.array);
            case KVLIST:
                deep = enclosing >= ValueCodec.MAX_DEPTH || v.kvlistDeep;
                return new AnyValue.KvList(v.kvlist);
            case SCALAR:
                deep = false;
                return v.scalar;
            default:
                deep = false;
                return AnyValue.Empty.INSTANCE;
        }
    }

    /**
     * One AnyValue being read, from one message or several that protobuf merges. Like protobuf-java's
     * builder, it keeps an array or kvlist begun even while another kind of value is set.
     */
    private static final class ValueParts {
        int kind;
        AnyValue scalar;
        boolean hasArray;
        final List<AnyValue> array = new ArrayList<>();
        boolean arrayDeep;
        boolean hasKvlist;
        final List<KeyValue> kvlist = new ArrayList<>();
        boolean kvlistDeep;

        void clear() {
            kind = NONE;
            scalar = null;
            hasArray = false;
            hasKvlist = false;
        }

        void scalar(AnyValue value) {
            kind = SCALAR;
            scalar = value;
        }
    }

    /**
     * An attribute key. Keys repeat from record to record and request to request: one read before,
     * by this or any other request, is given as the same instance ({@link SharedKeys}); its bytes are
     * then the valid UTF-8 it was made from. (Values repeat less: looking them up cost more than it saved.)
     */
    private String key() throws IOException {
        int length = in.readRawVarint32();
        int at = base + in.getTotalBytesRead();
        // Refuses a negative length or one past the message's end, as readStringRequireUtf8 does.
        in.skipRawBytes(length);
        if (length == 0) {
            return "";
        }
        String s = SharedKeys.get(body, at, length);
        if (s == null) {
            s = newString(at, length);
            SharedKeys.put(s, body, at, length);
        }
        return s;
    }

    /** Protobuf-java refuses a string field that is not UTF-8, with the same validator. */
    private String newString(int at, int length) throws InvalidProtocolBufferException {
        if (!UnsafeByteOperations.unsafeWrap(body, at, length).isValidUtf8()) {
            throw new InvalidProtocolBufferException("a string field is not valid UTF-8");
        }
        return new String(body, at, length, StandardCharsets.UTF_8);
    }

    private Bytes bytes() throws IOException {
        return Bytes.wrap(in.readByteArray());
    }

    /** Marks what is being read as holding a value no block could hold. */
    private void tooDeep() {
        if (problem == null) {
            problem = Rejections.TOO_DEEP;
        }
    }

    /** The problem met since the last call, prefixed, or null; and forgets it. */
    private String takeProblem(String prefix) {
        String p = problem == null ? null : prefix + problem;
        problem = null;
        return p;
    }

    /** Enters the length-delimited message at hand, as protobuf-java's readMessage does; returns the old limit. */
    private int enter() throws IOException {
        int length = in.readRawVarint32();
        if (depth >= RECURSION_LIMIT) {
            throw tooDeeplyNested();
        }
        int limit = in.pushLimit(length);
        depth++;
        return limit;
    }

    /** Leaves the message entered with {@link #enter}, whose fields have all been read. */
    private void leave(int limit) {
        depth--;
        in.popLimit(limit);
    }

    /** A stream and where it starts in the body. */
    private record Position(CodedInputStream in, int base) {
    }

    /** Goes back to {@code start}, with a stream of its own up to where the message just read ends. */
    private Position reread(int start) {
        Position outer = new Position(in, base);
        int end = base + in.getTotalBytesRead();
        in = CodedInputStream.newInstance(body, start, end - start);
        base = start;
        return outer;
    }

    /** Returns to the stream {@link #reread} left, at the end of the message, and leaves the message. */
    private void resume(Position outer, int limit) {
        in = outer.in();
        base = outer.base();
        leave(limit);
    }

    /** Skips a field the model has no place for, checking it as protobuf-java's unknown-field parsing does. */
    private void skip(int tag) throws IOException {
        switch (WireFormat.getTagWireType(tag)) {
            case WireFormat.WIRETYPE_START_GROUP -> {
                if (depth >= RECURSION_LIMIT) {
                    throw tooDeeplyNested();
                }
                depth++;
                int end = tag - WireFormat.WIRETYPE_START_GROUP + WireFormat.WIRETYPE_END_GROUP;
                int inner = in.readTag();
                while (inner != 0 && WireFormat.getTagWireType(inner) != WireFormat.WIRETYPE_END_GROUP) {
                    skip(inner);
                    inner = in.readTag();
                }
                if (inner != end) {
                    throw new InvalidProtocolBufferException("group " + WireFormat.getTagFieldNumber(tag)
                            + " is not ended by its own end-group tag");
                }
                depth--;
            }
            case WireFormat.WIRETYPE_END_GROUP -> throw new InvalidProtocolBufferException(
                    "end-group tag of field " + WireFormat.getTagFieldNumber(tag) + " where no group is open");
            // Read, not skipped: skipField refuses a varint of over ten bytes that readInt64 cuts short.
            case WireFormat.WIRETYPE_VARINT -> in.readInt64();
            // Fixed widths and length-delimited fields; wire types 6 and 7 are refused.
            default -> in.skipField(tag);
        }
    }

    private static InvalidProtocolBufferException tooDeeplyNested() {
        return new InvalidProtocolBufferException("messages and groups nested deeper than " + RECURSION_LIMIT);
    }

    private static void checkCount(byte[] body, int length, long maxRecords, Message<?> message) throws IOException {
        long count;
        try {
            count = countRecords(CodedInputStream.newInstance(body, 0, length), 0);
        } catch (InvalidProtocolBufferException e) {
            throw new OtlpDecodeException("not an OTLP " + message.name() + ": " + e.getMessage(), e);
        }
        if (count > maxRecords) {
            throw new OtlpTooManyRecordsException("the request holds " + count + " " + message.records()
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
}
