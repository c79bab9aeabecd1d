package dev.needle.blocks.meta;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.InputCoercionException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import dev.needle.blocks.json.StrictJson;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import java.io.IOException;
import java.util.Collection;
import java.util.Objects;
import java.util.function.Function;

/**
 * Reads and writes a block's {@code meta.json}, the {@link BlockMeta} of the block, with
 * jackson-databind over the records (whose components name the fields) and the strict settings of
 * {@link StrictJson}. A block of three spans in one batch, as writer version 2 writes it:
 *
 * <pre>{@code
 * {
 *   "format": "needle-block",
 *   "writerVersion": 2,
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
 *       "maxDurationNano": 250000000,
 *       "crc32c": 2417630513
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
 * when every severity is unspecified, {@code severityNullCount} in spans, and {@code crc32c} in
 * version 1.
 *
 * <table>
 *   <caption>Writer versions</caption>
 *   <tr><th>writerVersion</th><th>batches[i].crc32c</th><th>a reader</th></tr>
 *   <tr><td>1</td><td>absent (present: corrupt)</td><td>reads the batches unchecked</td></tr>
 *   <tr><td>2</td><td>required, 0..4294967295</td><td>checks a batch's bytes against it before decoding</td></tr>
 * </table>
 *
 * <p>{@code crc32c} is the CRC-32C ({@link java.util.zip.CRC32C}) of the batch's whole Arrow IPC
 * message as data.arrow holds it: the {@code metadataLength + bodyLength} bytes at the offset the
 * Arrow footer gives for the batch, that is the continuation marker, the metadata length, the
 * flatbuffer metadata with its padding, then the body, written as an unsigned 32-bit JSON integer.
 * meta.json does not repeat the offset and lengths: a footer that points elsewhere covers other
 * bytes, whose checksum then differs. The data.arrow of version 2 is the same as version 1's.
 *
 * <p>Reading is forward compatible: unknown fields are ignored, so that a later writer may add
 * some without changing {@code writerVersion}; a writer changes it when an existing field changes
 * meaning or a new one becomes required, and a reader refuses versions newer than
 * {@link BlockMeta#WRITER_VERSION_CURRENT}. Everything else that is wrong — not JSON, a duplicate,
 * missing, null or mistyped required field, a negative count, a minimum above its maximum, batches
 * that do not cover the rows one after another, a version-2 batch without its checksum — is a
 * {@link CorruptMetaException} whose message names the field, and nothing else is thrown: a reader
 * then treats the block as one without zone maps or checksums. The bytes written are a contract
 * too: the golden blocks' meta.json files pin them.
 */
public final class BlockMetaJson {

    // "key": value, one field a line, two spaces a level, "\n" on every platform: the bytes are the same everywhere.
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withArrayEmptySeparator(""))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"));

    private static final ObjectMapper MAPPER = StrictJson.requiringEveryField()
            // A signal as its directory name, a trace id as lower-case hex.
            .addModule(new SimpleModule("meta.json values")
                    .addSerializer(Signal.class, new AsString<>(Signal.class, Signal::dirName))
                    .addDeserializer(Signal.class, new FromString<>(Signal.class, "a string", BlockMetaJson::signal))
                    .addSerializer(Bytes.class, new AsString<>(Bytes.class, Bytes::hex))
                    .addDeserializer(Bytes.class, new FromString<>(Bytes.class, "a hex string", BlockMetaJson::hex)))
            .build();
    private static final ObjectWriter WRITER = MAPPER.writer(PRETTY);
    // bind() looks past the object itself, to say so in meta.json's words.
    private static final ObjectReader HEADER_READER = MAPPER.readerFor(Header.class)
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final ObjectReader META_READER = MAPPER.readerFor(BlockMeta.class)
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** The two fields read before the rest: a newer layout may lack what this one requires. */
    private record Header(String format, int writerVersion) {
    }

    private BlockMetaJson() {
    }

    /** The pretty-printed UTF-8 JSON of {@code meta}. */
    public static byte[] write(BlockMeta meta) {
        try {
            return WRITER.writeValueAsBytes(meta);
        } catch (JsonProcessingException e) {
            // Every field of a BlockMeta can be written; this would be a bug in the mapping.
            throw new IllegalStateException("writing meta.json failed", e);
        }
    }

    /** Parses a meta.json; anything wrong with it is a {@link CorruptMetaException} naming the problem. */
    public static BlockMeta read(byte[] json) throws CorruptMetaException {
        Objects.requireNonNull(json, "json");
        Header header = bind(json, HEADER_READER);
        if (!BlockMeta.FORMAT.equals(header.format())) {
            throw new CorruptMetaException("format is \"" + abbreviate(header.format()) + "\", expected \""
                    + BlockMeta.FORMAT + "\"");
        }
        if (header.writerVersion() > BlockMeta.WRITER_VERSION_CURRENT) {
            throw new CorruptMetaException("writerVersion " + header.writerVersion() + " is newer than this reader ("
                    + BlockMeta.WRITER_VERSION_CURRENT + ")");
        }
        return bind(json, META_READER);
    }

    /** The object {@code json} holds, bound by {@code reader}; nothing may follow it. */
    private static <T> T bind(byte[] json, ObjectReader reader) throws CorruptMetaException {
        try (JsonParser p = MAPPER.createParser(json)) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new CorruptMetaException("meta.json does not start with a JSON object");
                }
                T value = reader.readValue(p);
                if (p.nextToken() != null) {
                    throw new CorruptMetaException("content after the closing brace" + at(p.currentLocation()));
                }
                return value;
            } catch (JacksonException e) {
                throw corrupt(e, p);
            }
        } catch (CorruptMetaException e) {
            throw e;
        } catch (IOException e) {
            // Bytes that are not UTF-8; a parser over a byte array does no other I/O.
            throw new CorruptMetaException("not valid JSON: " + e.getMessage(), e);
        }
    }

    /** What {@code e} says is wrong, in the words of the format; {@code p} is still where it failed. */
    private static CorruptMetaException corrupt(JacksonException e, JsonParser p) {
        JacksonException root = e;
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof CorruptMetaException found) {
                return found;
            }
            if (cause instanceof JacksonException jackson) {
                root = jackson;
            }
        }
        JsonToken token = p.currentToken();
        String where = e instanceof JsonMappingException m ? StrictJson.where(m) : where(p.getParsingContext());
        if (root instanceof InputCoercionException) {
            return new CorruptMetaException(isBigInteger(p)
                    ? "field " + where + " should be an integer, found " + found(p)
                    : "field " + where + " (" + text(p) + ") does not fit in 32 bits", e);
        }
        if (!(root instanceof JsonMappingException mapping)) {
            // The parser's own refusals: a duplicate, or not JSON at all.
            return new CorruptMetaException(root.getOriginalMessage().startsWith("Duplicate field")
                    ? "duplicate field " + where
                    : "not valid JSON: " + root.getOriginalMessage() + at(root.getLocation()), e);
        }
        if (mapping instanceof ValueInstantiationException && mapping.getCause() instanceof IllegalArgumentException invalid) {
            return new CorruptMetaException(where.isEmpty() ? invalid.getMessage() : where + ": " + invalid.getMessage(), e);
        }
        if (token == JsonToken.END_OBJECT) {
            return new CorruptMetaException("missing field " + where, e);
        }
        if (token == JsonToken.VALUE_NULL) {
            return new CorruptMetaException("field " + where + " is null", e);
        }
        if (mapping instanceof MismatchedInputException mismatch && mismatch.getTargetType() != null) {
            Class<?> type = mismatch.getTargetType();
            if (type.isRecord()) {
                return new CorruptMetaException(where + " is not an object", e);
            }
            return wrongType(where, Collection.class.isAssignableFrom(type) ? "an array of objects"
                    : type == String.class ? "a string" : "an integer", p);
        }
        return new CorruptMetaException("field " + where + ": " + mapping.getOriginalMessage(), e);
    }

    private static CorruptMetaException wrongType(String where, String expected, JsonParser p) {
        return new CorruptMetaException("field " + where + " should be " + expected + ", found " + found(p));
    }

    /** The value the parser is at, described for a message. */
    private static String found(JsonParser p) {
        JsonToken token = p.currentToken();
        if (token == null) {
            return "nothing";
        }
        return switch (token) {
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT -> isBigInteger(p) ? "an integer beyond 64 bits" : "an integer";
            case VALUE_NUMBER_FLOAT -> "a decimal number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            case START_OBJECT -> "an object";
            case START_ARRAY -> "an array";
            default -> token.toString();
        };
    }

    private static boolean isBigInteger(JsonParser p) {
        try {
            return p.currentToken() == JsonToken.VALUE_NUMBER_INT && p.getNumberType() == JsonParser.NumberType.BIG_INTEGER;
        } catch (IOException e) {
            return false;
        }
    }

    private static String text(JsonParser p) {
        try {
            return abbreviate(p.getText());
        } catch (IOException e) {
            return "?";
        }
    }

    /** The field the parser is at, in the form of {@link StrictJson#where}. */
    private static String where(JsonStreamContext context) {
        if (context == null || context.inRoot()) {
            return "";
        }
        String parent = where(context.getParent());
        if (context.inArray()) {
            return parent + "[" + context.getCurrentIndex() + "]";
        }
        return parent.isEmpty() ? context.getCurrentName() : parent + "." + context.getCurrentName();
    }

    private static Signal signal(String where, String name) throws CorruptMetaException {
        for (Signal signal : Signal.values()) {
            if (signal.dirName().equals(name)) {
                return signal;
            }
        }
        throw new CorruptMetaException("field " + where + " is \"" + abbreviate(name) + "\", expected \"spans\" or \"logs\"");
    }

    private static Bytes hex(String where, String hex) throws CorruptMetaException {
        try {
            return Bytes.fromHex(hex);
        } catch (IllegalArgumentException e) {
            throw new CorruptMetaException("field " + where + " is not hex: \"" + abbreviate(hex) + "\"", e);
        }
    }

    /** Parses a field's string; a bad one is a {@link CorruptMetaException} naming the field. */
    @FunctionalInterface
    private interface StringParser<T> {
        T parse(String where, String text) throws CorruptMetaException;
    }

    /** A value that meta.json holds as a string. */
    private static final class AsString<T> extends StdSerializer<T> {
        private final Function<T, String> format;

        AsString(Class<T> type, Function<T, String> format) {
            super(type);
            this.format = format;
        }

        @Override
        public void serialize(T value, JsonGenerator g, SerializerProvider provider) throws IOException {
            g.writeString(format.apply(value));
        }
    }

    /** A value read from a string; any other JSON value is the wrong type. */
    private static final class FromString<T> extends StdDeserializer<T> {
        private final String expected;
        private final StringParser<T> parser;

        FromString(Class<T> type, String expected, StringParser<T> parser) {
            super(type);
            this.expected = expected;
            this.parser = parser;
        }

        @Override
        public T deserialize(JsonParser p, DeserializationContext context) throws IOException {
            String where = where(p.getParsingContext());
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                throw wrongType(where, expected, p);
            }
            return parser.parse(where, p.getText());
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
