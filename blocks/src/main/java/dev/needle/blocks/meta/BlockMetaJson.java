package dev.needle.blocks.meta;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads and writes a block's {@code meta.json}, the {@link BlockMeta} of the block, with Jackson's
 * streaming parser and generator. A block of three spans in one batch:
 *
 * <pre>{@code
 * {
 *   "format": "needle-block",
 *   "writerVersion": 1,
 *   "signal": "spans",
 *   "rows": 3,
 *   "dataBytes": 2048,
 *   "minTimeUnixNano": 1764446100123000000,
 *   "maxTimeUnixNano": 1764446400456000000,
 *   "distinctTraceIds": 2,
 *   "traceIdxBytes": 144,
 *   "attrIdxBytes": 272,
 *   "distinctAttributePairs": 9,
 *   "createdUnixMillis": 1764446401000,
 *   "batches": [
 *     {
 *       "index": 0,
 *       "firstRow": 0,
 *       "rows": 3,
 *       "minTimeUnixNano": 1764446100123000000,
 *       "maxTimeUnixNano": 1764446400456000000,
 *       "minTraceId": "0af7651916cd43dd8448eb211c80319c",
 *       "maxTraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
 *       "traceIdNullCount": 0,
 *       "minDurationNano": 1000,
 *       "maxDurationNano": 250000000
 *     }
 *   ]
 * }
 * }</pre>
 *
 * The fields are the components of {@link BlockMeta} and {@link BatchMeta}, under the same names,
 * plus {@code format}, always {@value BlockMeta#FORMAT}. {@code signal} is the signal's directory
 * name ({@code spans} or {@code logs}); trace ids are lower-case hex; times are nanoseconds and
 * {@code createdUnixMillis} milliseconds since the epoch, as JSON integers. A null field is left
 * out: {@code minTraceId}/{@code maxTraceId} when no row of the batch has a trace id,
 * {@code minDurationNano}/{@code maxDurationNano} in logs, {@code minSeverity}/{@code maxSeverity}
 * when every severity is unspecified, and {@code severityNullCount} in spans.
 *
 * <p>Reading is forward compatible: unknown fields are ignored, so that a later writer may add
 * some without changing {@code writerVersion}; a writer changes it only when an existing field
 * changes meaning, and a reader refuses versions newer than {@link BlockMeta#WRITER_VERSION_CURRENT}.
 * Everything else that is wrong — not JSON, a duplicate, missing, null or mistyped required field,
 * a negative count, a minimum above its maximum, batches that do not cover the rows one after
 * another — is a {@link CorruptMetaException}, and nothing else is thrown: a reader then treats
 * the block as one without zone maps.
 */
public final class BlockMetaJson {

    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    // "key": value, one field a line, two spaces a level, "\n" on every platform: the bytes are the same everywhere.
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withArrayEmptySeparator(""))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"));

    private BlockMetaJson() {
    }

    /** The pretty-printed UTF-8 JSON of {@code meta}. */
    public static byte[] write(BlockMeta meta) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(512 + 384 * meta.batches().size());
        try (JsonGenerator g = FACTORY.createGenerator(out, JsonEncoding.UTF8)) {
            g.setPrettyPrinter(PRETTY.createInstance());
            g.writeStartObject();
            g.writeStringField("format", BlockMeta.FORMAT);
            g.writeNumberField("writerVersion", meta.writerVersion());
            g.writeStringField("signal", meta.signal().dirName());
            g.writeNumberField("rows", meta.rows());
            g.writeNumberField("dataBytes", meta.dataBytes());
            g.writeNumberField("minTimeUnixNano", meta.minTimeUnixNano());
            g.writeNumberField("maxTimeUnixNano", meta.maxTimeUnixNano());
            g.writeNumberField("distinctTraceIds", meta.distinctTraceIds());
            g.writeNumberField("traceIdxBytes", meta.traceIdxBytes());
            g.writeNumberField("attrIdxBytes", meta.attrIdxBytes());
            g.writeNumberField("distinctAttributePairs", meta.distinctAttributePairs());
            g.writeNumberField("createdUnixMillis", meta.createdUnixMillis());
            g.writeArrayFieldStart("batches");
            for (BatchMeta batch : meta.batches()) {
                writeBatch(g, batch);
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            // A ByteArrayOutputStream never fails; this would be a bug in the generator.
            throw new UncheckedIOException("writing meta.json to memory failed", e);
        }
        return out.toByteArray();
    }

    private static void writeBatch(JsonGenerator g, BatchMeta batch) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", batch.index());
        g.writeNumberField("firstRow", batch.firstRow());
        g.writeNumberField("rows", batch.rows());
        g.writeNumberField("minTimeUnixNano", batch.minTimeUnixNano());
        g.writeNumberField("maxTimeUnixNano", batch.maxTimeUnixNano());
        if (batch.minTraceId() != null) {
            g.writeStringField("minTraceId", batch.minTraceId().hex());
            g.writeStringField("maxTraceId", batch.maxTraceId().hex());
        }
        g.writeNumberField("traceIdNullCount", batch.traceIdNullCount());
        if (batch.minDurationNano() != null) {
            g.writeNumberField("minDurationNano", batch.minDurationNano());
            g.writeNumberField("maxDurationNano", batch.maxDurationNano());
        }
        if (batch.minSeverity() != null) {
            g.writeNumberField("minSeverity", batch.minSeverity());
            g.writeNumberField("maxSeverity", batch.maxSeverity());
        }
        if (batch.severityNullCount() != null) {
            g.writeNumberField("severityNullCount", batch.severityNullCount());
        }
        g.writeEndObject();
    }

    /** Parses a meta.json; anything wrong with it is a {@link CorruptMetaException} naming the problem. */
    public static BlockMeta read(byte[] json) throws CorruptMetaException {
        Objects.requireNonNull(json, "json");
        Fields top;
        try (JsonParser p = FACTORY.createParser(json)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new CorruptMetaException("meta.json does not start with a JSON object");
            }
            top = readObject(p, "", true);
            if (p.nextToken() != null) {
                throw new CorruptMetaException("content after the closing brace" + at(p.currentLocation()));
            }
        } catch (CorruptMetaException e) {
            throw e;
        } catch (JsonProcessingException e) {
            throw new CorruptMetaException("not valid JSON: " + e.getOriginalMessage() + at(e.getLocation()), e);
        } catch (IOException e) {
            // A parser over a byte array does no I/O; kept so that nothing but CorruptMetaException escapes.
            throw new CorruptMetaException("not valid JSON: " + e.getMessage(), e);
        }
        return toBlockMeta(top);
    }

    private static BlockMeta toBlockMeta(Fields top) throws CorruptMetaException {
        String format = top.string("format");
        if (!BlockMeta.FORMAT.equals(format)) {
            throw new CorruptMetaException("format is \"" + abbreviate(format) + "\", expected \"" + BlockMeta.FORMAT + "\"");
        }
        // Checked before the other fields: a newer layout may lack what this one requires.
        int writerVersion = top.intValue("writerVersion");
        if (writerVersion > BlockMeta.WRITER_VERSION_CURRENT) {
            throw new CorruptMetaException("writerVersion " + writerVersion + " is newer than this reader ("
                    + BlockMeta.WRITER_VERSION_CURRENT + ")");
        }
        Signal signal = signal(top.string("signal"));
        List<BatchMeta> batches = new ArrayList<>();
        for (Fields batch : top.batches()) {
            batches.add(toBatchMeta(batch));
        }
        try {
            return new BlockMeta(writerVersion, signal, top.longValue("rows"), top.longValue("dataBytes"),
                    top.longValue("minTimeUnixNano"), top.longValue("maxTimeUnixNano"), top.intValue("distinctTraceIds"),
                    top.longValue("traceIdxBytes"), top.longValue("attrIdxBytes"),
                    top.longValue("distinctAttributePairs"), top.longValue("createdUnixMillis"), batches);
        } catch (IllegalArgumentException e) {
            throw new CorruptMetaException(e.getMessage(), e);
        }
    }

    private static BatchMeta toBatchMeta(Fields f) throws CorruptMetaException {
        try {
            return new BatchMeta(f.intValue("index"), f.longValue("firstRow"), f.intValue("rows"),
                    f.longValue("minTimeUnixNano"), f.longValue("maxTimeUnixNano"),
                    f.optionalTraceId("minTraceId"), f.optionalTraceId("maxTraceId"), f.intValue("traceIdNullCount"),
                    f.optionalLong("minDurationNano"), f.optionalLong("maxDurationNano"),
                    f.optionalInt("minSeverity"), f.optionalInt("maxSeverity"), f.optionalInt("severityNullCount"));
        } catch (IllegalArgumentException e) {
            throw new CorruptMetaException(f.where + ": " + e.getMessage(), e);
        }
    }

    private static Signal signal(String name) throws CorruptMetaException {
        for (Signal signal : Signal.values()) {
            if (signal.dirName().equals(name)) {
                return signal;
            }
        }
        throw new CorruptMetaException("signal is \"" + abbreviate(name) + "\", expected \"spans\" or \"logs\"");
    }

    /** Reads the fields of the object whose START_OBJECT was just read, through its END_OBJECT. */
    private static Fields readObject(JsonParser p, String where, boolean withBatches) throws IOException {
        Fields fields = new Fields(where);
        for (JsonToken t = next(p); t != JsonToken.END_OBJECT; t = next(p)) {
            if (t != JsonToken.FIELD_NAME) {
                throw new CorruptMetaException("expected a field name, found " + t + at(p.currentLocation()));
            }
            String name = p.currentName();
            JsonToken value = next(p);
            if (withBatches && name.equals("batches") && value == JsonToken.START_ARRAY) {
                fields.put(name, readBatches(p));
            } else {
                fields.put(name, scalar(p, value));
            }
        }
        return fields;
    }

    private static Batches readBatches(JsonParser p) throws IOException {
        List<Fields> batches = new ArrayList<>();
        for (JsonToken t = next(p); t != JsonToken.END_ARRAY; t = next(p)) {
            String where = "batches[" + batches.size() + "]";
            if (t != JsonToken.START_OBJECT) {
                throw new CorruptMetaException(where + " is not an object");
            }
            batches.add(readObject(p, where, false));
        }
        return new Batches(batches);
    }

    /** The value of a field other than the batches: what a getter needs to check its type, containers skipped. */
    private static Object scalar(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case VALUE_STRING:
                return p.getText();
            case VALUE_NUMBER_INT:
                return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                        ? new Other("an integer beyond 64 bits") : (Object) p.getLongValue();
            case VALUE_NUMBER_FLOAT:
                return new Other("a decimal number");
            case VALUE_TRUE:
            case VALUE_FALSE:
                return new Other("a boolean");
            case VALUE_NULL:
                return Other.NULL;
            case START_OBJECT:
                p.skipChildren();
                return new Other("an object");
            case START_ARRAY:
                p.skipChildren();
                return new Other("an array");
            default:
                throw new CorruptMetaException("unexpected " + t + at(p.currentLocation()));
        }
    }

    /** The next token; the end of the input inside the root object is a corruption, not a null. */
    private static JsonToken next(JsonParser p) throws IOException {
        JsonToken t = p.nextToken();
        if (t == null) {
            throw new CorruptMetaException("meta.json ends inside its object");
        }
        return t;
    }

    /** A value that no field of this format can take, described for the message. */
    private record Other(String description) {
        static final Other NULL = new Other("null");
    }

    /** The parsed batch objects. */
    private record Batches(List<Fields> list) {
    }

    /** One object's fields by name, with getters that check presence and type. */
    private static final class Fields {
        private final String where;
        private final Map<String, Object> values = new HashMap<>();

        Fields(String where) {
            this.where = where;
        }

        void put(String name, Object value) throws CorruptMetaException {
            if (values.putIfAbsent(name, value) != null) {
                throw new CorruptMetaException("duplicate field " + path(name));
            }
        }

        private String path(String name) {
            return where.isEmpty() ? name : where + "." + name;
        }

        /** The value, or null when the field is absent or JSON null. */
        private Object optional(String name) {
            Object value = values.get(name);
            return value == Other.NULL ? null : value;
        }

        private Object require(String name) throws CorruptMetaException {
            Object value = values.get(name);
            if (value == null) {
                throw new CorruptMetaException("missing field " + path(name));
            }
            if (value == Other.NULL) {
                throw new CorruptMetaException("field " + path(name) + " is null");
            }
            return value;
        }

        private CorruptMetaException wrongType(String name, String expected, Object value) {
            String found = value instanceof Other other ? other.description()
                    : value instanceof Batches ? "an array" : value instanceof String ? "a string" : "an integer";
            return new CorruptMetaException("field " + path(name) + " should be " + expected + ", found " + found);
        }

        private long toLong(String name, Object value) throws CorruptMetaException {
            if (value instanceof Long l) {
                return l;
            }
            throw wrongType(name, "an integer", value);
        }

        private int toInt(String name, Object value) throws CorruptMetaException {
            long l = toLong(name, value);
            if (l != (int) l) {
                throw new CorruptMetaException("field " + path(name) + " (" + l + ") does not fit in 32 bits");
            }
            return (int) l;
        }

        long longValue(String name) throws CorruptMetaException {
            return toLong(name, require(name));
        }

        int intValue(String name) throws CorruptMetaException {
            return toInt(name, require(name));
        }

        String string(String name) throws CorruptMetaException {
            Object value = require(name);
            if (value instanceof String s) {
                return s;
            }
            throw wrongType(name, "a string", value);
        }

        List<Fields> batches() throws CorruptMetaException {
            Object value = require("batches");
            if (value instanceof Batches b) {
                return b.list();
            }
            throw wrongType("batches", "an array of objects", value);
        }

        Long optionalLong(String name) throws CorruptMetaException {
            Object value = optional(name);
            return value == null ? null : toLong(name, value);
        }

        Integer optionalInt(String name) throws CorruptMetaException {
            Object value = optional(name);
            return value == null ? null : toInt(name, value);
        }

        Bytes optionalTraceId(String name) throws CorruptMetaException {
            Object value = optional(name);
            if (value == null) {
                return null;
            }
            if (!(value instanceof String hex)) {
                throw wrongType(name, "a hex string", value);
            }
            try {
                return Bytes.fromHex(hex);
            } catch (IllegalArgumentException e) {
                throw new CorruptMetaException("field " + path(name) + " is not hex: \"" + abbreviate(hex) + "\"", e);
            }
        }
    }

    /** " at line L, column C", or nothing when the parser knows no location. */
    private static String at(JsonLocation location) {
        return location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /** A value from the input short enough for a message. */
    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
