package dev.needle.blocks.otlp;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
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
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Writes needle's records as OTLP's protobuf export requests, straight from the records into one
 * byte array of exactly the request's length, with no protobuf message objects in between;
 * {@link OtlpWire} reads them back, and its Javadoc holds the table of the messages and fields.
 *
 * <p>The bytes are those protobuf-java's serialization gives for the same request: fields in
 * field-number order, a proto3 scalar only when it is not its default, a oneof member always.
 */
public final class OtlpWireWriter {

    /*
     * Encoding nests records by resource and scope and writes one canonical form: a resource and a
     * scope always, a status and a log body only when set, an attribute's value always (an empty
     * AnyValue for AnyValue.Empty). So OtlpWire's decode(encode(records)) gives grouped records
     * back exactly, and encode(decode(request)) gives back a canonical request.
     *
     * A nested message's length comes before its fields, so one walk over the records is made
     * twice. The first measures and keeps each nested message's length in `lengths`, in the order
     * the walk enters the messages; the second writes into an array of the measured size, taking
     * the lengths in that same order. Each message is measured once, so the cost is linear in the
     * request at any depth, and since both passes are the same code they cannot disagree on what
     * is written. Lists are walked by index: the model's are List.copyOf's, random access, and
     * their iterators, not always scalar-replaced in this recursion, were a fifth of the garbage.
     * (Decoding and encoding are two classes: the decoder follows protobuf-java's
     * parser through every input it may meet, the encoder writes the one canonical form; they
     * share nothing but the field numbers, which OtlpWire's table gives.)
     */

    /** The most bytes a Java array, and so a request, can hold. */
    private static final long MAX_LENGTH = Integer.MAX_VALUE - 8;

    /** True in the first pass, which only measures; false in the second, which writes. */
    private boolean measuring = true;
    /** While measuring: the length of the message being walked, so far. */
    private long size;
    /**
     * The length of each nested message, by the order the walk enters it. While a message is being
     * measured its slot holds the length of the message around it so far, tag included.
     */
    private int[] lengths;
    /** The slot of the next message the walk enters. */
    private int next;
    private CodedOutputStream out;

    /** Room for the lengths of a typical request of {@code records} records: a span with a few attributes has ten messages. */
    private OtlpWireWriter(int records) {
        lengths = new int[16 + 16 * records];
    }

    /** Spans as one ExportTraceServiceRequest, nested by resource and scope in order of first appearance. */
    public static byte[] encodeSpans(List<SpanRecord> spans) {
        return new OtlpWireWriter(spans.size()).encode(Grouping.group(spans, SpanRecord::resource, SpanRecord::scope),
                OtlpWireWriter::span);
    }

    /** Log records as one ExportLogsServiceRequest, nested by resource and scope in order of first appearance. */
    public static byte[] encodeLogs(List<LogRecord> logs) {
        return new OtlpWireWriter(logs.size()).encode(Grouping.group(logs, LogRecord::resource, LogRecord::scope),
                OtlpWireWriter::log);
    }

    /** Writes the fields of one span or log record message. */
    private interface RecordWriter<T> {
        void write(OtlpWireWriter writer, T record) throws IOException;
    }

    private <T> byte[] encode(Map<Resource, Map<Scope, List<T>>> groups, RecordWriter<T> record) {
        try {
            request(groups, record);
            checkLength(size);
            byte[] bytes = new byte[(int) size];
            measuring = false;
            next = 0;
            out = CodedOutputStream.newInstance(bytes);
            request(groups, record);
            out.checkNoSpaceLeft();
            return bytes;
        } catch (IOException e) {
            // Over an array, only running past its end fails: the two passes would have disagreed.
            throw new IllegalStateException("the request written is not the length measured", e);
        }
    }

    /**
     * An export request: ResourceSpans or ResourceLogs, each holding ScopeSpans or ScopeLogs. The
     * two signals' messages have the same field numbers down to the records.
     */
    private <T> void request(Map<Resource, Map<Scope, List<T>>> groups, RecordWriter<T> record) throws IOException {
        for (Map.Entry<Resource, Map<Scope, List<T>>> byResource : groups.entrySet()) {
            Resource resource = byResource.getKey();
            int resourceGroup = begin(1);
            resource(resource);
            for (Map.Entry<Scope, List<T>> byScope : byResource.getValue().entrySet()) {
                Scope scope = byScope.getKey();
                int scopeGroup = begin(2);
                scope(scope);
                for (T r : byScope.getValue()) {
                    int at = begin(2);
                    record.write(this, r);
                    end(at);
                }
                string(3, scope.schemaUrl());
                end(scopeGroup);
            }
            string(3, resource.schemaUrl());
            end(resourceGroup);
        }
    }

    private void resource(Resource r) throws IOException {
        int at = begin(1);
        keyValues(1, r.attributes());
        uint32(2, r.droppedAttributesCount());
        end(at);
    }

    private void scope(Scope s) throws IOException {
        int at = begin(1);
        string(1, s.name());
        string(2, s.version());
        keyValues(3, s.attributes());
        uint32(4, s.droppedAttributesCount());
        end(at);
    }

    private void span(SpanRecord r) throws IOException {
        bytes(1, r.traceId());
        bytes(2, r.spanId());
        string(3, r.traceState());
        bytes(4, r.parentSpanId());
        string(5, r.name());
        int32(6, r.kind());
        fixed64(7, r.startTimeUnixNano());
        fixed64(8, r.endTimeUnixNano());
        keyValues(9, r.attributes());
        uint32(10, r.droppedAttributesCount());
        List<SpanEvent> events = r.events();
        for (int i = 0; i < events.size(); i++) {
            SpanEvent e = events.get(i);
            int at = begin(11);
            fixed64(1, e.timeUnixNano());
            string(2, e.name());
            keyValues(3, e.attributes());
            uint32(4, e.droppedAttributesCount());
            end(at);
        }
        uint32(12, r.droppedEventsCount());
        List<SpanLink> links = r.links();
        for (int i = 0; i < links.size(); i++) {
            SpanLink l = links.get(i);
            int at = begin(13);
            bytes(1, l.traceId());
            bytes(2, l.spanId());
            string(3, l.traceState());
            keyValues(4, l.attributes());
            uint32(5, l.droppedAttributesCount());
            fixed32(6, l.flags());
            end(at);
        }
        uint32(14, r.droppedLinksCount());
        if (r.statusCode() != 0 || !r.statusMessage().isEmpty()) {
            int at = begin(15);
            string(2, r.statusMessage());
            int32(3, r.statusCode());
            end(at);
        }
        fixed32(16, r.flags());
    }

    private void log(LogRecord r) throws IOException {
        fixed64(1, r.timeUnixNano());
        int32(2, r.severityNumber());
        string(3, r.severityText());
        if (!(r.body() instanceof AnyValue.Empty)) {
            anyValue(5, r.body());
        }
        keyValues(6, r.attributes());
        uint32(7, r.droppedAttributesCount());
        fixed32(8, r.flags());
        bytes(9, r.traceId());
        bytes(10, r.spanId());
        fixed64(11, r.observedTimeUnixNano());
        string(12, r.eventName());
    }

    private void keyValues(int field, List<KeyValue> pairs) throws IOException {
        for (int i = 0; i < pairs.size(); i++) {
            KeyValue kv = pairs.get(i);
            int at = begin(field);
            string(1, kv.key());
            anyValue(2, kv.value());
            end(at);
        }
    }

    /** An AnyValue message; a oneof member is written even when it holds its type's default, to say which it is. */
    private void anyValue(int field, AnyValue v) throws IOException {
        int at = begin(field);
        if (v instanceof AnyValue.Str s) {
            if (measuring) {
                size += CodedOutputStream.computeStringSize(1, s.value());
            } else {
                out.writeString(1, s.value());
            }
        } else if (v instanceof AnyValue.Bool b) {
            if (measuring) {
                size += CodedOutputStream.computeBoolSize(2, b.value());
            } else {
                out.writeBool(2, b.value());
            }
        } else if (v instanceof AnyValue.Int i) {
            if (measuring) {
                size += CodedOutputStream.computeInt64Size(3, i.value());
            } else {
                out.writeInt64(3, i.value());
            }
        } else if (v instanceof AnyValue.Dbl d) {
            if (measuring) {
                size += CodedOutputStream.computeDoubleSize(4, d.value());
            } else {
                out.writeDouble(4, d.value());
            }
        } else if (v instanceof AnyValue.Blob blob) {
            if (measuring) {
                size += CodedOutputStream.computeByteArraySize(7, blob.value().unsafeArray());
            } else {
                out.writeByteArray(7, blob.value().unsafeArray());
            }
        } else if (v instanceof AnyValue.Array array) {
            int values = begin(5);
            List<AnyValue> elements = array.values();
            for (int i = 0; i < elements.size(); i++) {
                anyValue(1, elements.get(i));
            }
            end(values);
        } else if (v instanceof AnyValue.KvList kvlist) {
            int values = begin(6);
            keyValues(1, kvlist.values());
            end(values);
        }
        // AnyValue.Empty: no member set, an empty message.
        end(at);
    }

    /** Enters a nested message: measuring, keeps the length so far in its slot; writing, writes its tag and length. */
    private int begin(int field) throws IOException {
        int slot = next++;
        if (measuring) {
            if (slot == lengths.length) {
                lengths = Arrays.copyOf(lengths, 2 * slot);
            }
            long outer = size + CodedOutputStream.computeTagSize(field);
            checkLength(outer);
            lengths[slot] = (int) outer;
            size = 0;
        } else {
            out.writeTag(field, WireFormat.WIRETYPE_LENGTH_DELIMITED);
            out.writeUInt32NoTag(lengths[slot]);
        }
        return slot;
    }

    /** Leaves the message {@link #begin} entered at {@code slot}: measuring, keeps its length. */
    private void end(int slot) {
        if (measuring) {
            checkLength(size);
            int length = (int) size;
            size = lengths[slot] + CodedOutputStream.computeUInt32SizeNoTag(length) + size;
            lengths[slot] = length;
        }
    }

    private static void checkLength(long length) {
        if (length > MAX_LENGTH) {
            throw new IllegalArgumentException("the records make a request of over " + MAX_LENGTH
                    + " bytes, more than one byte array holds: encode fewer at a time");
        }
    }

    private void string(int field, String value) throws IOException {
        if (value.isEmpty()) {
            return;
        }
        if (measuring) {
            size += CodedOutputStream.computeStringSize(field, value);
        } else {
            out.writeString(field, value);
        }
    }

    private void bytes(int field, Bytes value) throws IOException {
        if (value.isEmpty()) {
            return;
        }
        if (measuring) {
            size += CodedOutputStream.computeByteArraySize(field, value.unsafeArray());
        } else {
            out.writeByteArray(field, value.unsafeArray());
        }
    }

    /** An enum, written as protobuf writes one: an int32, so a negative number takes ten bytes. */
    private void int32(int field, int value) throws IOException {
        if (value == 0) {
            return;
        }
        if (measuring) {
            size += CodedOutputStream.computeInt32Size(field, value);
        } else {
            out.writeInt32(field, value);
        }
    }

    /** A uint32, which the model holds in an int: a negative one is a value above 2^31. */
    private void uint32(int field, int value) throws IOException {
        if (value == 0) {
            return;
        }
        if (measuring) {
            size += CodedOutputStream.computeUInt32Size(field, value);
        } else {
            out.writeUInt32(field, value);
        }
    }

    private void fixed32(int field, int value) throws IOException {
        if (value == 0) {
            return;
        }
        if (measuring) {
            size += CodedOutputStream.computeFixed32Size(field, value);
        } else {
            out.writeFixed32(field, value);
        }
    }

    private void fixed64(int field, long value) throws IOException {
        if (value == 0) {
            return;
        }
        if (measuring) {
            size += CodedOutputStream.computeFixed64Size(field, value);
        } else {
            out.writeFixed64(field, value);
        }
    }
}
