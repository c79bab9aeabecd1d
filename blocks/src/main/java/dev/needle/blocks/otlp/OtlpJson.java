package dev.needle.blocks.otlp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.StreamWriteFeature;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/** OTLP/JSON export requests, read into records and written from them with Jackson's streaming API. */
public final class OtlpJson {

    /*
     * This is OTLP's JSON mapping, not plain proto3 JSON: trace and span ids are hex (read in either
     * case, written lower-case), enums are integers (names are accepted), keys are lowerCamelCase
     * (snake_case accepted), 64-bit integers are written as strings and read as strings or numbers,
     * doubles may be "NaN", "Infinity" or "-Infinity", bytes are base64, unknown fields are skipped
     * and a null counts as absent. Records are rejected by the same rules as OtlpWire's, and written
     * in OtlpWireWriter's nesting and canonical form, default values left out.
     */

    /*
     * Jackson's limit on nesting, stated rather than inherited. The deepest document needle accepts,
     * a value under 128 kvlists in a span event, is about 525 levels deep (four per kvlist level);
     * anything deeper than this fails the request before it can exhaust a stack.
     */
    static final int MAX_NESTING = 1000;

    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_NESTING).build())
            .disable(StreamReadFeature.AUTO_CLOSE_SOURCE)
            .disable(StreamWriteFeature.AUTO_CLOSE_TARGET)
            .build();

    private OtlpJson() {
    }

    /** The valid spans of an ExportTraceServiceRequest body; a body that is not one gives an {@link OtlpDecodeException}. */
    public static Decoded<SpanRecord> decodeSpans(InputStream body) throws IOException {
        return decodeSpans(body, Long.MAX_VALUE);
    }

    /** Like {@link #decodeSpans(InputStream)}, refusing a body of more than {@code maxRecords} spans as soon as it sees one. */
    public static Decoded<SpanRecord> decodeSpans(InputStream body, long maxRecords) throws IOException {
        return decode(body, maxRecords, OtlpJsonReader::spans);
    }

    /** The valid log records of an ExportLogsServiceRequest body; a body that is not one gives an {@link OtlpDecodeException}. */
    public static Decoded<LogRecord> decodeLogs(InputStream body) throws IOException {
        return decodeLogs(body, Long.MAX_VALUE);
    }

    /** Like {@link #decodeLogs(InputStream)}, refusing a body of more than {@code maxRecords} log records as soon as it sees one. */
    public static Decoded<LogRecord> decodeLogs(InputStream body, long maxRecords) throws IOException {
        return decode(body, maxRecords, OtlpJsonReader::logs);
    }

    /** Reads one signal's request with an {@link OtlpJsonReader}. */
    private interface Request<T> {
        Decoded<T> read(OtlpJsonReader reader) throws IOException;
    }

    private static <T> Decoded<T> decode(InputStream body, long maxRecords, Request<T> request) throws IOException {
        try (JsonParser p = FACTORY.createParser(body)) {
            return request.read(new OtlpJsonReader(p, maxRecords));
        } catch (CharConversionException | JsonProcessingException e) {
            // Only from detecting the encoding, before the reader (which names the place) has begun.
            throw new OtlpDecodeException("not JSON text: " + e.getMessage(), e);
        }
    }

    /** Writes spans as an ExportTraceServiceRequest, nested by resource and scope in order of first appearance. */
    public static void encodeSpans(List<SpanRecord> spans, OutputStream out) throws IOException {
        encode(out, g -> writeResourceSpans(g, spans));
    }

    /** Writes log records as an ExportLogsServiceRequest, nested by resource and scope in order of first appearance. */
    public static void encodeLogs(List<LogRecord> logs, OutputStream out) throws IOException {
        encode(out, g -> writeResourceLogs(g, logs));
    }

    /** Writes the request object whose one field {@code field} writes. */
    private interface Field {
        void write(JsonGenerator g) throws IOException;
    }

    private static void encode(OutputStream out, Field field) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            field.write(g);
            g.writeEndObject();
        }
    }

    /** Writes the {@code resourceSpans} field into the object {@code g} is in, for wrappers such as Tempo's {@code {"trace":{…}}}. */
    public static void writeResourceSpans(JsonGenerator g, List<SpanRecord> spans) throws IOException {
        writeGroups(g, "resourceSpans", "scopeSpans", "spans",
                Grouping.group(spans, SpanRecord::resource, SpanRecord::scope), OtlpJson::writeSpan);
    }

    /** Writes the {@code resourceLogs} field into the object {@code g} is in. */
    public static void writeResourceLogs(JsonGenerator g, List<LogRecord> logs) throws IOException {
        writeGroups(g, "resourceLogs", "scopeLogs", "logRecords",
                Grouping.group(logs, LogRecord::resource, LogRecord::scope), OtlpJson::writeLog);
    }

    private interface RecordWriter<T> {
        void write(JsonGenerator g, T record) throws IOException;
    }

    private static <T> void writeGroups(JsonGenerator g, String resourcesField, String scopesField, String itemsField,
                                        Map<Resource, Map<Scope, List<T>>> groups, RecordWriter<T> writer)
            throws IOException {
        g.writeArrayFieldStart(resourcesField);
        for (Map.Entry<Resource, Map<Scope, List<T>>> resource : groups.entrySet()) {
            Resource r = resource.getKey();
            g.writeStartObject();
            g.writeObjectFieldStart("resource");
            writeKeyValues(g, "attributes", r.attributes());
            writeUint32(g, "droppedAttributesCount", r.droppedAttributesCount());
            g.writeEndObject();
            g.writeArrayFieldStart(scopesField);
            for (Map.Entry<Scope, List<T>> scope : resource.getValue().entrySet()) {
                Scope s = scope.getKey();
                g.writeStartObject();
                g.writeObjectFieldStart("scope");
                writeString(g, "name", s.name());
                writeString(g, "version", s.version());
                writeKeyValues(g, "attributes", s.attributes());
                writeUint32(g, "droppedAttributesCount", s.droppedAttributesCount());
                g.writeEndObject();
                g.writeArrayFieldStart(itemsField);
                for (T record : scope.getValue()) {
                    writer.write(g, record);
                }
                g.writeEndArray();
                writeString(g, "schemaUrl", s.schemaUrl());
                g.writeEndObject();
            }
            g.writeEndArray();
            writeString(g, "schemaUrl", r.schemaUrl());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static void writeSpan(JsonGenerator g, SpanRecord s) throws IOException {
        g.writeStartObject();
        writeId(g, "traceId", s.traceId());
        writeId(g, "spanId", s.spanId());
        writeString(g, "traceState", s.traceState());
        writeId(g, "parentSpanId", s.parentSpanId());
        writeUint32(g, "flags", s.flags());
        writeString(g, "name", s.name());
        writeEnum(g, "kind", s.kind());
        writeUint64(g, "startTimeUnixNano", s.startTimeUnixNano());
        writeUint64(g, "endTimeUnixNano", s.endTimeUnixNano());
        writeKeyValues(g, "attributes", s.attributes());
        writeUint32(g, "droppedAttributesCount", s.droppedAttributesCount());
        if (!s.events().isEmpty()) {
            g.writeArrayFieldStart("events");
            for (SpanEvent e : s.events()) {
                g.writeStartObject();
                writeUint64(g, "timeUnixNano", e.timeUnixNano());
                writeString(g, "name", e.name());
                writeKeyValues(g, "attributes", e.attributes());
                writeUint32(g, "droppedAttributesCount", e.droppedAttributesCount());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        writeUint32(g, "droppedEventsCount", s.droppedEventsCount());
        if (!s.links().isEmpty()) {
            g.writeArrayFieldStart("links");
            for (SpanLink l : s.links()) {
                g.writeStartObject();
                writeId(g, "traceId", l.traceId());
                writeId(g, "spanId", l.spanId());
                writeString(g, "traceState", l.traceState());
                writeKeyValues(g, "attributes", l.attributes());
                writeUint32(g, "droppedAttributesCount", l.droppedAttributesCount());
                writeUint32(g, "flags", l.flags());
                g.writeEndObject();
            }
            g.writeEndArray();
        }
        writeUint32(g, "droppedLinksCount", s.droppedLinksCount());
        if (s.statusCode() != 0 || !s.statusMessage().isEmpty()) {
            g.writeObjectFieldStart("status");
            writeEnum(g, "code", s.statusCode());
            writeString(g, "message", s.statusMessage());
            g.writeEndObject();
        }
        g.writeEndObject();
    }

    private static void writeLog(JsonGenerator g, LogRecord l) throws IOException {
        g.writeStartObject();
        writeUint64(g, "timeUnixNano", l.timeUnixNano());
        writeUint64(g, "observedTimeUnixNano", l.observedTimeUnixNano());
        writeEnum(g, "severityNumber", l.severityNumber());
        writeString(g, "severityText", l.severityText());
        if (!(l.body() instanceof AnyValue.Empty)) {
            g.writeFieldName("body");
            writeValue(g, l.body());
        }
        writeKeyValues(g, "attributes", l.attributes());
        writeUint32(g, "droppedAttributesCount", l.droppedAttributesCount());
        writeUint32(g, "flags", l.flags());
        writeId(g, "traceId", l.traceId());
        writeId(g, "spanId", l.spanId());
        writeString(g, "eventName", l.eventName());
        g.writeEndObject();
    }

    /**
     * {@code "field":[{"key":…,"value":{…}},…]}, OTLP/JSON's KeyValue list (which is also protobuf's
     * JSON mapping of it, as Tempo's answers use); nothing when {@code pairs} is empty.
     */
    public static void writeKeyValues(JsonGenerator g, String field, List<KeyValue> pairs) throws IOException {
        if (pairs.isEmpty()) {
            return;
        }
        g.writeArrayFieldStart(field);
        for (KeyValue kv : pairs) {
            g.writeStartObject();
            g.writeStringField("key", kv.key());
            g.writeFieldName("value");
            writeValue(g, kv.value());
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** One AnyValue; the field of its kind is written even when it holds a default, or the kind would be lost. */
    private static void writeValue(JsonGenerator g, AnyValue v) throws IOException {
        g.writeStartObject();
        if (v instanceof AnyValue.Str s) {
            g.writeStringField("stringValue", s.value());
        } else if (v instanceof AnyValue.Bool b) {
            g.writeBooleanField("boolValue", b.value());
        } else if (v instanceof AnyValue.Int i) {
            g.writeStringField("intValue", Long.toString(i.value()));
        } else if (v instanceof AnyValue.Dbl d) {
            g.writeFieldName("doubleValue");
            writeDouble(g, d.value());
        } else if (v instanceof AnyValue.Blob b) {
            g.writeStringField("bytesValue", Base64.getEncoder().encodeToString(b.value().unsafeArray()));
        } else if (v instanceof AnyValue.Array a) {
            g.writeObjectFieldStart("arrayValue");
            if (!a.values().isEmpty()) {
                g.writeArrayFieldStart("values");
                for (AnyValue element : a.values()) {
                    writeValue(g, element);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        } else if (v instanceof AnyValue.KvList kv) {
            g.writeObjectFieldStart("kvlistValue");
            writeKeyValues(g, "values", kv.values());
            g.writeEndObject();
        }
        // AnyValue.Empty: {}.
        g.writeEndObject();
    }

    /** JSON has no NaN or infinities; proto3 JSON spells them as these strings. */
    private static void writeDouble(JsonGenerator g, double d) throws IOException {
        if (Double.isNaN(d)) {
            g.writeString("NaN");
        } else if (Double.isInfinite(d)) {
            g.writeString(d > 0 ? "Infinity" : "-Infinity");
        } else {
            g.writeNumber(d);
        }
    }

    private static void writeId(JsonGenerator g, String field, Bytes id) throws IOException {
        if (!id.isEmpty()) {
            g.writeStringField(field, id.hex());
        }
    }

    private static void writeString(JsonGenerator g, String field, String value) throws IOException {
        if (!value.isEmpty()) {
            g.writeStringField(field, value);
        }
    }

    private static void writeEnum(JsonGenerator g, String field, int value) throws IOException {
        if (value != 0) {
            g.writeNumberField(field, value);
        }
    }

    private static void writeUint32(JsonGenerator g, String field, int value) throws IOException {
        if (value != 0) {
            g.writeNumberField(field, Integer.toUnsignedLong(value));
        }
    }

    /** As a decimal string, as OTLP/JSON writes 64-bit integers (JavaScript's numbers would round them). */
    private static void writeUint64(JsonGenerator g, String field, long value) throws IOException {
        if (value != 0) {
            g.writeStringField(field, Long.toUnsignedString(value));
        }
    }
}
