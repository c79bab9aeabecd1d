package dev.needle.blocks.meta;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * Reads and writes a block's {@code meta.json}, the {@link BlockMeta} of the block, field by field
 * with Jackson's streaming parser and generator: no data binding, so that the first read in a fresh
 * process does not pay for a mapper's start-up. A block of three spans in one batch, as writer
 * version 4 writes it (a real batch has one column offset and checksum per schema column):
 *
 * <pre>{@code
 * {
 *   "format": "needle-block",
 *   "writerVersion": 4,
 *   "metaCrc32c": 3256029280,
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
 *       "crc32c": 2417630513,
 *       "headerCrc32c": 1306393711,
 *       "columnOffsets": [0, 24, 40],
 *       "columnCrc32c": [2705798400, 2704976913, 4255151596]
 *     }
 *   ]
 * }
 * }</pre>
 *
 * The fields are the components of {@link BlockMeta} and {@link BatchMeta}, under the same names
 * and in the same order, after {@code format}, always {@value BlockMeta#FORMAT}, and (from version 4)
 * {@code metaCrc32c} right after {@code writerVersion}. {@code signal} is the signal's directory
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
 *   <tr><td>3</td><td>required, and {@code headerCrc32c}, {@code columnOffsets}, {@code columnCrc32c}</td>
 *       <td>checks the header and each column it reads against its own checksum</td></tr>
 *   <tr><td>4</td><td>as version 3, and the top-level {@code metaCrc32c}</td>
 *       <td>checks meta.json's own bytes against {@code metaCrc32c} before it trusts any of them</td></tr>
 * </table>
 *
 * <p>{@code metaCrc32c} (version 4) is the CRC-32C of every byte of the file except the value's own
 * digits: the bytes before them, then the bytes after them, written as an unsigned 32-bit JSON integer.
 * So it covers every field a reader acts on, the names, the punctuation and the fields it skips too: a
 * zone map damaged into another valid number ({@code 0} into {@code 1}) would otherwise make a batch
 * look certain to hold nothing. The bytes are checked as they are, not a form rebuilt from the values
 * read, so that a reader need not write JSON exactly as the writer did, and a field a later writer adds
 * is covered without this reader knowing it. Leaving the digits out (rather than fixing their width)
 * keeps the value an integer like every other checksum here. A version-4 file without it, or whose
 * bytes do not give it, is corrupt, as is one of an earlier version that has it.
 *
 * <p>From version 3 a batch also has {@code headerCrc32c}, {@code columnOffsets} and {@code columnCrc32c}
 * ({@link ColumnChecksums}), the two arrays written on one line; before version 3 they are absent, and
 * present they are corrupt meta.
 *
 * <p>{@code crc32c} is the CRC-32C ({@link java.util.zip.CRC32C}) of the batch's whole Arrow IPC
 * message as data.arrow holds it: the {@code metadataLength + bodyLength} bytes at the offset the
 * Arrow footer gives for the batch, that is the continuation marker, the metadata length, the
 * flatbuffer metadata with its padding, then the body, written as an unsigned 32-bit JSON integer.
 * meta.json does not repeat the offset and lengths: a footer that points elsewhere covers other
 * bytes, whose checksum then differs. The data.arrow of version 2 is the same as version 1's.
 *
 * <p>A block written by the compactor ends with {@code "replaces"}: an array of the names of the blocks it
 * replaces (strings, in name order, no name twice), which readers skip once this block is visible.
 * Every other block leaves it out, and a reader takes its absence for an empty list. A reader from
 * before this field skips it as an unknown one, so it would read both a compaction's output and its
 * inputs until the inputs are deleted (a few seconds later).
 *
 * <p>Reading is forward compatible: unknown fields are skipped, so that a later writer may add some
 * without changing {@code writerVersion}; a writer changes it when an existing field changes
 * meaning or a new one becomes required, and a reader refuses versions newer than
 * {@link BlockMeta#WRITER_VERSION_CURRENT}. It reads {@code format} and {@code writerVersion} in a
 * pass of their own before the rest, wherever they are, so that a newer layout is refused as newer
 * and not as corrupt. Everything else that is wrong — not JSON, a duplicate,
 * missing, null or mistyped required field, a negative count, a minimum above its maximum, batches
 * that do not cover the rows one after another, a version-2 batch without its checksum — is a
 * {@link CorruptMetaException} whose message names the field, and nothing else is thrown: a reader
 * then treats the block as one without zone maps or checksums. The bytes written are a contract
 * too: the golden blocks' meta.json files pin them.
 */
public final class BlockMetaJson {

    /** The field holding the checksum of meta.json's own bytes (writer version 4). */
    private static final String META_CRC32C = "metaCrc32c";

    // Duplicates are refused by the parser, so also inside the values of fields this reader skips.
    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .build();

    // "key": value, one field a line, two spaces a level, "\n" on every platform: the bytes are the same everywhere.
    private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                    .withArrayEmptySeparator(""))
            .withObjectIndenter(new DefaultIndenter("  ", "\n"))
            .withArrayIndenter(new DefaultIndenter("  ", "\n"));

    /**
     * The fields read before the rest: a newer layout may lack what this one requires, and from version 4
     * no field is trusted before the file's bytes are checked against {@code metaCrc32c}.
     */
    private record Header(String format, int writerVersion, StoredChecksum checksum) {
    }

    /** {@code metaCrc32c}'s value and where its digits lie in the file: bytes {@code start} to {@code end}. */
    private record StoredChecksum(long value, int start, int end) {
    }

    /** Reads the document's object, which the parser has just entered, up to and including its end. */
    @FunctionalInterface
    private interface DocumentReader<T> {
        T read(JsonParser p) throws IOException;
    }

    private BlockMetaJson() {
    }

    /** The pretty-printed UTF-8 JSON of {@code meta}, with its {@code metaCrc32c} from writer version 4. */
    public static byte[] write(BlockMeta meta) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // Where the checksum's placeholder digit lies, once written.
        int checksumAt = -1;
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.setPrettyPrinter(PRETTY.createInstance());
            g.writeStartObject();
            g.writeStringField("format", BlockMeta.FORMAT);
            g.writeNumberField("writerVersion", meta.writerVersion());
            if (meta.hasMetaChecksum()) {
                g.writeNumberField(META_CRC32C, 0);
                g.flush();
                checksumAt = out.size() - 1;
            }
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
            if (!meta.replaces().isEmpty()) {
                g.writeArrayFieldStart("replaces");
                for (BlockName name : meta.replaces()) {
                    g.writeString(name.toString());
                }
                g.writeEndArray();
            }
            g.writeEndObject();
        } catch (IOException e) {
            // A generator over memory does no I/O; this would be a bug.
            throw new IllegalStateException("writing meta.json failed", e);
        }
        byte[] json = out.toByteArray();
        if (checksumAt < 0) {
            return json;
        }
        byte[] digits = Long.toString(checksum(json, checksumAt, checksumAt + 1)).getBytes(StandardCharsets.US_ASCII);
        byte[] sealed = new byte[json.length - 1 + digits.length];
        System.arraycopy(json, 0, sealed, 0, checksumAt);
        System.arraycopy(digits, 0, sealed, checksumAt, digits.length);
        System.arraycopy(json, checksumAt + 1, sealed, checksumAt + digits.length, json.length - checksumAt - 1);
        return sealed;
    }

    /** The CRC-32C of {@code json} without bytes {@code start..end}, the digits of {@code metaCrc32c}. */
    private static long checksum(byte[] json, int start, int end) {
        CRC32C crc = new CRC32C();
        crc.update(json, 0, start);
        crc.update(json, end, json.length - end);
        return crc.getValue();
    }

    private static void writeBatch(JsonGenerator g, BatchMeta batch) throws IOException {
        g.writeStartObject();
        g.writeNumberField("index", batch.index());
        g.writeNumberField("firstRow", batch.firstRow());
        g.writeNumberField("rows", batch.rows());
        g.writeNumberField("minTimeUnixNano", batch.minTimeUnixNano());
        g.writeNumberField("maxTimeUnixNano", batch.maxTimeUnixNano());
        writeHex(g, "minTraceId", batch.minTraceId());
        writeHex(g, "maxTraceId", batch.maxTraceId());
        g.writeNumberField("traceIdNullCount", batch.traceIdNullCount());
        writeNumber(g, "minDurationNano", batch.minDurationNano());
        writeNumber(g, "maxDurationNano", batch.maxDurationNano());
        writeNumber(g, "minSeverity", batch.minSeverity());
        writeNumber(g, "maxSeverity", batch.maxSeverity());
        writeNumber(g, "severityNullCount", batch.severityNullCount());
        writeNumber(g, "crc32c", batch.crc32c());
        if (batch.columns() != null) {
            g.writeNumberField("headerCrc32c", batch.columns().headerCrc32c());
            writeInline(g, "columnOffsets", batch.columns().offsets());
            writeInline(g, "columnCrc32c", batch.columns().crc32c());
        }
        g.writeEndObject();
    }

    /** An array of integers on one line: one a line would make meta.json several times longer. */
    private static void writeInline(JsonGenerator g, String name, List<Long> values) throws IOException {
        g.writeFieldName(name);
        StringBuilder array = new StringBuilder("[");
        for (int i = 0; i < values.size(); i++) {
            array.append(i == 0 ? "" : ", ").append(values.get(i));
        }
        g.writeRawValue(array.append(']').toString());
    }

    /** A trace id as lower-case hex; null is left out. */
    private static void writeHex(JsonGenerator g, String name, Bytes value) throws IOException {
        if (value != null) {
            g.writeStringField(name, value.hex());
        }
    }

    /** An optional integer; null is left out. */
    private static void writeNumber(JsonGenerator g, String name, Number value) throws IOException {
        if (value != null) {
            g.writeNumberField(name, value.longValue());
        }
    }

    /** Parses a meta.json; anything wrong with it is a {@link CorruptMetaException} naming the problem. */
    public static BlockMeta read(byte[] json) throws CorruptMetaException {
        Objects.requireNonNull(json, "json");
        Header header = parse(json, BlockMetaJson::readHeader);
        if (!BlockMeta.FORMAT.equals(header.format())) {
            throw new CorruptMetaException("format is \"" + abbreviate(header.format()) + "\", expected \""
                    + BlockMeta.FORMAT + "\"");
        }
        if (header.writerVersion() > BlockMeta.WRITER_VERSION_CURRENT) {
            throw new CorruptMetaException("writerVersion " + header.writerVersion() + " is newer than this reader ("
                    + BlockMeta.WRITER_VERSION_CURRENT + ")");
        }
        verify(json, header);
        return parse(json, p -> readMeta(p, header.writerVersion()));
    }

    /** Checks the file's bytes against {@code metaCrc32c}, which version 4 requires and earlier ones never wrote. */
    private static void verify(byte[] json, Header header) throws CorruptMetaException {
        StoredChecksum stored = header.checksum();
        if (!BlockMeta.hasMetaChecksum(header.writerVersion())) {
            if (stored != null) {
                throw new CorruptMetaException("field " + META_CRC32C + " in a meta.json of writerVersion "
                        + header.writerVersion() + ", which has none");
            }
            return;
        }
        if (stored == null) {
            throw new CorruptMetaException("missing field " + META_CRC32C);
        }
        long actual = checksum(json, stored.start(), stored.end());
        if (actual != stored.value()) {
            throw new CorruptMetaException("checksum failed: " + META_CRC32C + " is " + stored.value()
                    + ", the file's bytes give " + actual);
        }
    }

    /** The object {@code json} holds, read by {@code reader}; nothing may follow it. */
    private static <T> T parse(byte[] json, DocumentReader<T> reader) throws CorruptMetaException {
        try (JsonParser p = JSON.createParser(json)) {
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new CorruptMetaException("meta.json does not start with a JSON object");
                }
                T value = reader.read(p);
                if (p.nextToken() != null) {
                    throw new CorruptMetaException("content after the closing brace" + at(p.currentLocation()));
                }
                return value;
            } catch (JacksonException e) {
                // The parser's own refusals: a duplicate, or not JSON at all.
                throw new CorruptMetaException(e.getOriginalMessage().startsWith("Duplicate field")
                        ? "duplicate field " + where(p)
                        : "not valid JSON: " + e.getOriginalMessage() + at(e.getLocation()), e);
            }
        } catch (CorruptMetaException e) {
            throw e;
        } catch (IOException e) {
            // Bytes that are not UTF-8; a parser over a byte array does no other I/O.
            throw new CorruptMetaException("not valid JSON: " + e.getMessage(), e);
        }
    }

    private static Header readHeader(JsonParser p) throws IOException {
        String format = null;
        Integer writerVersion = null;
        StoredChecksum checksum = null;
        for (String name = nextField(p); name != null; name = nextField(p)) {
            switch (name) {
                case "format" -> format = notNull(p, string(p, "a string"));
                case "writerVersion" -> writerVersion = notNull(p, int32(p));
                case META_CRC32C -> checksum = storedChecksum(p);
                default -> p.skipChildren();
            }
        }
        return new Header(required(p, "format", format), required(p, "writerVersion", writerVersion), checksum);
    }

    /** {@code metaCrc32c}'s value, an unsigned 32-bit integer, and where its digits lie. */
    private static StoredChecksum storedChecksum(JsonParser p) throws IOException {
        long value = notNull(p, int64(p));
        if (value < 0 || value > 0xFFFF_FFFFL) {
            throw fieldProblem(p, "(" + value + ") must be an unsigned 32-bit value");
        }
        // The parser reads a byte array: its offsets are the file's, and an integer's text is ASCII.
        int start = (int) p.currentTokenLocation().getByteOffset();
        return new StoredChecksum(value, start, start + p.getTextLength());
    }

    private static BlockMeta readMeta(JsonParser p, int writerVersion) throws IOException {
        Signal signal = null;
        Long rows = null;
        Long dataBytes = null;
        Long minTime = null;
        Long maxTime = null;
        Integer distinctTraceIds = null;
        Long traceIdxBytes = null;
        Long attrIdxBytes = null;
        Long distinctAttributePairs = null;
        Long createdUnixMillis = null;
        List<BatchMeta> batches = null;
        List<BlockName> replaces = List.of();
        for (String name = nextField(p); name != null; name = nextField(p)) {
            switch (name) {
                case "signal" -> signal = notNull(p, signal(p));
                case "rows" -> rows = notNull(p, int64(p));
                case "dataBytes" -> dataBytes = notNull(p, int64(p));
                case "minTimeUnixNano" -> minTime = notNull(p, int64(p));
                case "maxTimeUnixNano" -> maxTime = notNull(p, int64(p));
                case "distinctTraceIds" -> distinctTraceIds = notNull(p, int32(p));
                case "traceIdxBytes" -> traceIdxBytes = notNull(p, int64(p));
                case "attrIdxBytes" -> attrIdxBytes = notNull(p, int64(p));
                case "distinctAttributePairs" -> distinctAttributePairs = notNull(p, int64(p));
                case "createdUnixMillis" -> createdUnixMillis = notNull(p, int64(p));
                case "batches" -> batches = notNull(p, batches(p));
                case "replaces" -> replaces = notNull(p, blockNames(p));
                // format and writerVersion were read by the header's pass.
                default -> p.skipChildren();
            }
        }
        try {
            return new BlockMeta(writerVersion, required(p, "signal", signal), required(p, "rows", rows),
                    required(p, "dataBytes", dataBytes), required(p, "minTimeUnixNano", minTime),
                    required(p, "maxTimeUnixNano", maxTime), required(p, "distinctTraceIds", distinctTraceIds),
                    required(p, "traceIdxBytes", traceIdxBytes), required(p, "attrIdxBytes", attrIdxBytes),
                    required(p, "distinctAttributePairs", distinctAttributePairs),
                    required(p, "createdUnixMillis", createdUnixMillis), required(p, "batches", batches), replaces);
        } catch (IllegalArgumentException e) {
            throw invalid(p, e);
        }
    }

    /** The batches, or null for JSON null. */
    private static List<BatchMeta> batches(JsonParser p) throws IOException {
        if (isNull(p, JsonToken.START_ARRAY, "an array of objects")) {
            return null;
        }
        List<BatchMeta> batches = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            batches.add(notNull(p, batch(p)));
        }
        return batches;
    }

    /** Block names, or null for JSON null; no name twice. */
    private static List<BlockName> blockNames(JsonParser p) throws IOException {
        if (isNull(p, JsonToken.START_ARRAY, "an array of block names")) {
            return null;
        }
        List<BlockName> names = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            String text = notNull(p, string(p, "a block name"));
            BlockName name = BlockName.parse(text)
                    .orElseThrow(() -> fieldProblem(p, "is not a block name: \"" + abbreviate(text) + "\""));
            if (names.contains(name)) {
                throw fieldProblem(p, "names " + name + " a second time");
            }
            names.add(name);
        }
        return names;
    }

    /** One batch, or null for JSON null. */
    private static BatchMeta batch(JsonParser p) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return null;
        }
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw new CorruptMetaException(where(p) + " is not an object");
        }
        Integer index = null;
        Long firstRow = null;
        Integer rows = null;
        Long minTime = null;
        Long maxTime = null;
        Bytes minTraceId = null;
        Bytes maxTraceId = null;
        Integer traceIdNullCount = null;
        Long minDuration = null;
        Long maxDuration = null;
        Integer minSeverity = null;
        Integer maxSeverity = null;
        Integer severityNullCount = null;
        Long crc32c = null;
        Long headerCrc32c = null;
        List<Long> columnOffsets = null;
        List<Long> columnCrc32c = null;
        for (String name = nextField(p); name != null; name = nextField(p)) {
            switch (name) {
                case "index" -> index = notNull(p, int32(p));
                case "firstRow" -> firstRow = notNull(p, int64(p));
                case "rows" -> rows = notNull(p, int32(p));
                case "minTimeUnixNano" -> minTime = notNull(p, int64(p));
                case "maxTimeUnixNano" -> maxTime = notNull(p, int64(p));
                case "minTraceId" -> minTraceId = hex(p);
                case "maxTraceId" -> maxTraceId = hex(p);
                case "traceIdNullCount" -> traceIdNullCount = notNull(p, int32(p));
                case "minDurationNano" -> minDuration = int64(p);
                case "maxDurationNano" -> maxDuration = int64(p);
                case "minSeverity" -> minSeverity = int32(p);
                case "maxSeverity" -> maxSeverity = int32(p);
                case "severityNullCount" -> severityNullCount = int32(p);
                case "crc32c" -> crc32c = int64(p);
                case "headerCrc32c" -> headerCrc32c = notNull(p, int64(p));
                case "columnOffsets" -> columnOffsets = notNull(p, int64s(p));
                case "columnCrc32c" -> columnCrc32c = notNull(p, int64s(p));
                default -> p.skipChildren();
            }
        }
        ColumnChecksums columns = null;
        if (headerCrc32c != null || columnOffsets != null || columnCrc32c != null) {
            try {
                columns = new ColumnChecksums(required(p, "headerCrc32c", headerCrc32c),
                        required(p, "columnOffsets", columnOffsets), required(p, "columnCrc32c", columnCrc32c));
            } catch (IllegalArgumentException e) {
                throw invalid(p, e);
            }
        }
        try {
            return new BatchMeta(required(p, "index", index), required(p, "firstRow", firstRow),
                    required(p, "rows", rows), required(p, "minTimeUnixNano", minTime),
                    required(p, "maxTimeUnixNano", maxTime), minTraceId, maxTraceId,
                    required(p, "traceIdNullCount", traceIdNullCount), minDuration, maxDuration, minSeverity,
                    maxSeverity, severityNullCount, crc32c, columns);
        } catch (IllegalArgumentException e) {
            throw invalid(p, e);
        }
    }

    /** The next field's name with the parser on its value, or null at the end of the object. */
    private static String nextField(JsonParser p) throws IOException {
        String name = p.nextFieldName();
        if (name != null) {
            p.nextToken();
        }
        return name;
    }

    /** An integer of up to 64 bits, or null for JSON null. */
    private static Long int64(JsonParser p) throws IOException {
        if (isNull(p, JsonToken.VALUE_NUMBER_INT, "an integer")) {
            return null;
        }
        if (p.getNumberType() == JsonParser.NumberType.BIG_INTEGER) {
            throw wrongType(p, "an integer");
        }
        return p.getLongValue();
    }

    /** An array of integers of up to 64 bits (no nulls in it), or null for JSON null. */
    private static List<Long> int64s(JsonParser p) throws IOException {
        if (isNull(p, JsonToken.START_ARRAY, "an array of integers")) {
            return null;
        }
        List<Long> values = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
            values.add(notNull(p, int64(p)));
        }
        return values;
    }

    /** An integer of up to 32 bits, or null for JSON null. */
    private static Integer int32(JsonParser p) throws IOException {
        Long value = int64(p);
        if (value == null) {
            return null;
        }
        if (value.intValue() != value) {
            throw fieldProblem(p, "(" + abbreviate(p.getText()) + ") does not fit in 32 bits");
        }
        return value.intValue();
    }

    /** A string, or null for JSON null; {@code expected} names the string's kind for a message. */
    private static String string(JsonParser p, String expected) throws IOException {
        return isNull(p, JsonToken.VALUE_STRING, expected) ? null : p.getText();
    }

    /** A signal by its directory name, or null for JSON null. */
    private static Signal signal(JsonParser p) throws IOException {
        String name = string(p, "a string");
        if (name == null) {
            return null;
        }
        for (Signal signal : Signal.values()) {
            if (signal.dirName().equals(name)) {
                return signal;
            }
        }
        throw fieldProblem(p, "is \"" + abbreviate(name) + "\", expected \"spans\" or \"logs\"");
    }

    /** A trace id in hex, or null for JSON null. */
    private static Bytes hex(JsonParser p) throws IOException {
        String hex = string(p, "a hex string");
        if (hex == null) {
            return null;
        }
        try {
            return Bytes.fromHex(hex);
        } catch (IllegalArgumentException e) {
            throw fieldProblem(p, "is not hex: \"" + abbreviate(hex) + "\"");
        }
    }

    /** Whether the value is JSON null; a value that is neither null nor {@code token} is not {@code expected}. */
    private static boolean isNull(JsonParser p, JsonToken token, String expected) throws CorruptMetaException {
        if (p.currentToken() == JsonToken.VALUE_NULL) {
            return true;
        }
        if (p.currentToken() != token) {
            throw wrongType(p, expected);
        }
        return false;
    }

    /** {@code value}, which may not be JSON null. */
    private static <T> T notNull(JsonParser p, T value) throws CorruptMetaException {
        if (value == null) {
            throw fieldProblem(p, "is null");
        }
        return value;
    }

    /** {@code value}, the field {@code name} of the object the parser has just left, which must have been there. */
    private static <T> T required(JsonParser p, String name, T value) throws CorruptMetaException {
        if (value == null) {
            String object = where(p);
            throw new CorruptMetaException("missing field " + (object.isEmpty() ? name : object + "." + name));
        }
        return value;
    }

    /** A record's refusal of the object the parser has just left, prefixed by where that object is. */
    private static CorruptMetaException invalid(JsonParser p, IllegalArgumentException e) {
        String object = where(p);
        return new CorruptMetaException(object.isEmpty() ? e.getMessage() : object + ": " + e.getMessage(), e);
    }

    private static CorruptMetaException wrongType(JsonParser p, String expected) {
        return fieldProblem(p, "should be " + expected + ", found " + found(p));
    }

    /** "field {@code where} {@code problem}", about the value the parser is at. */
    private static CorruptMetaException fieldProblem(JsonParser p, String problem) {
        return new CorruptMetaException("field " + where(p) + " " + problem);
    }

    /** The value the parser is at, described for a message. */
    private static String found(JsonParser p) {
        JsonToken token = p.currentToken();
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
            return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * The value or field the parser is at, as a person writes it: {@code rows}, {@code batches[1].index};
     * after an object or array has ended, that object or array; "" for the whole document.
     */
    private static String where(JsonParser p) {
        JsonStreamContext context = p.getParsingContext();
        JsonToken token = p.currentToken();
        // An object or array that starts has opened its own context already: it is a value of the one around it.
        return where(token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY ? context.getParent() : context);
    }

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

    /** " at line L, column C", or nothing when the parser knows no location. */
    private static String at(JsonLocation location) {
        return location == null ? "" : " at line " + location.getLineNr() + ", column " + location.getColumnNr();
    }

    /** A value from the input short enough for a message. */
    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }
}
