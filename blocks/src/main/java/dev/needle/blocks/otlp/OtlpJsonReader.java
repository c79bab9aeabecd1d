package dev.needle.blocks.otlp;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.Descriptors.EnumDescriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
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
import io.opentelemetry.proto.logs.v1.SeverityNumber;
import io.opentelemetry.proto.trace.v1.Span;
import io.opentelemetry.proto.trace.v1.Status;
import java.io.CharConversionException;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Deque;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads one OTLP/JSON export request straight into records, in one pass of a streaming parser.
 *
 * <p>Keys may come in any order, so a scope's records are held until its object ends and a
 * resource's scopes until its object ends; only then do they get their shared Resource and Scope.
 * A problem inside a record (an id that is not hex, bytes that are not base64, a value nested
 * deeper than {@link ValueCodec#MAX_DEPTH}) rejects that record, or every record of the resource
 * or scope it is in; a body that is not OTLP JSON at all is an {@link OtlpDecodeException}.
 */
final class OtlpJsonReader {

    /** JSON's number grammar; proto3 JSON also allows numbers as strings. */
    private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?");
    /** Jackson's own limit on a number's length, applied to numbers sent as strings. */
    private static final int MAX_NUMBER_TEXT = 1000;
    private static final BigInteger UINT64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final int LONG_DIGITS = 19;
    private static final String LONG_MAX_DIGITS = Long.toString(Long.MAX_VALUE);
    private static final String LONG_MIN_DIGITS = Long.toString(Long.MIN_VALUE).substring(1);
    private static final int PATH_HEAD = 8;
    private static final int PATH_TAIL = 6;

    private final JsonParser p;
    private final long maxRecords;
    private long records;
    /** The first reason the resource, scope or record being read must be rejected; null while there is none. */
    private String problem;

    OtlpJsonReader(JsonParser p, long maxRecords) {
        this.p = p;
        this.maxRecords = maxRecords;
    }

    Decoded<SpanRecord> spans() throws IOException {
        return request(new Shape<>("resourceSpans", "scopeSpans", "spans", Rejections.spans(), this::span,
                OtlpJsonReader::ownSpan, s -> Rejections.spanProblem(s.traceId(), s.spanId(), s.parentSpanId())));
    }

    Decoded<LogRecord> logs() throws IOException {
        return request(new Shape<>("resourceLogs", "scopeLogs", "logRecords", Rejections.logs(), this::log,
                OtlpJsonReader::ownLog, l -> Rejections.logProblem(l.traceId(), l.spanId())));
    }

    /** What differs between the two requests: the field names, the record reader and the id rules. */
    private record Shape<T>(String resources, String scopes, String items, Rejections rejections, Reader<T> read,
                            Owner<T> own, Function<T, String> check) {
    }

    private interface Reader<T> {
        T read() throws IOException;
    }

    private interface Owner<T> {
        T own(T record, Resource resource, Scope scope);
    }

    private interface Element {
        void read(int index) throws IOException;
    }

    /** A record read before its resource and scope are known. */
    private record Draft<T>(int index, T record, String problem) {
    }

    private record ScopeDraft<T>(Scope scope, String problem, List<Draft<T>> items) {
    }

    private <T> Decoded<T> request(Shape<T> shape) throws IOException {
        try {
            List<T> kept = new ArrayList<>();
            p.nextToken();
            startObject();
            while (nextField()) {
                if (field().equals(shape.resources())) {
                    eachElement(i -> resource(shape, kept));
                } else {
                    p.skipChildren();
                }
            }
            if (p.nextToken() != null) {
                throw error("unexpected content after the request object", p.currentTokenLocation());
            }
            return shape.rejections().result(kept);
        } catch (JsonProcessingException e) {
            // Malformed JSON, and Jackson's limits (nesting, string and number length).
            throw new OtlpDecodeException(where(e.getOriginalMessage(), e.getLocation(), false), e);
        } catch (CharConversionException e) {
            // Jackson's UTF-32 reader reports bad bytes this way rather than as a JsonProcessingException.
            throw new OtlpDecodeException(where(e.getMessage(), p.currentLocation(), false), e);
        }
    }

    private <T> void resource(Shape<T> shape, List<T> kept) throws IOException {
        startObject();
        List<KeyValue> attributes = List.of();
        int dropped = 0;
        String schemaUrl = "";
        String resourceProblem = null;
        List<ScopeDraft<T>> scopes = new ArrayList<>();
        while (nextField()) {
            String field = field();
            if (field.equals("resource")) {
                problem = null;
                startObject();
                while (nextField()) {
                    switch (field()) {
                        case "attributes" -> attributes = keyValues(0);
                        case "droppedAttributesCount" -> dropped = (int) integer(IntKind.UINT32);
                        default -> p.skipChildren();
                    }
                }
                resourceProblem = problem == null ? null : "resource: " + problem;
            } else if (field.equals(shape.scopes())) {
                eachElement(i -> scopes.add(scope(shape)));
            } else if (field.equals("schemaUrl")) {
                schemaUrl = string();
            } else {
                p.skipChildren();
            }
        }
        Resource resource = new Resource(attributes, dropped, schemaUrl);
        for (ScopeDraft<T> scope : scopes) {
            String ownerProblem = resourceProblem != null ? resourceProblem : scope.problem();
            for (Draft<T> draft : scope.items()) {
                String why = ownerProblem != null ? ownerProblem
                        : draft.problem() != null ? draft.problem() : shape.check().apply(draft.record());
                if (why == null) {
                    kept.add(shape.own().own(draft.record(), resource, scope.scope()));
                } else {
                    shape.rejections().reject(draft.index(), scope.scope().name(), why);
                }
            }
        }
    }

    private <T> ScopeDraft<T> scope(Shape<T> shape) throws IOException {
        startObject();
        String name = "";
        String version = "";
        List<KeyValue> attributes = List.of();
        int dropped = 0;
        String schemaUrl = "";
        String scopeProblem = null;
        List<Draft<T>> items = new ArrayList<>();
        while (nextField()) {
            String field = field();
            if (field.equals("scope")) {
                problem = null;
                startObject();
                while (nextField()) {
                    switch (field()) {
                        case "name" -> name = string();
                        case "version" -> version = string();
                        case "attributes" -> attributes = keyValues(0);
                        case "droppedAttributesCount" -> dropped = (int) integer(IntKind.UINT32);
                        default -> p.skipChildren();
                    }
                }
                scopeProblem = problem == null ? null : "scope: " + problem;
            } else if (field.equals(shape.items())) {
                eachElement(i -> {
                    if (++records > maxRecords) {
                        throw new OtlpTooManyRecordsException("the request holds more than " + maxRecords + " "
                                + shape.items() + ", the most one request may hold: send smaller batches");
                    }
                    problem = null;
                    T record = shape.read().read();
                    items.add(new Draft<>(i, record, problem));
                });
            } else if (field.equals("schemaUrl")) {
                schemaUrl = string();
            } else {
                p.skipChildren();
            }
        }
        return new ScopeDraft<>(new Scope(name, version, attributes, dropped, schemaUrl), scopeProblem, items);
    }

    private SpanRecord span() throws IOException {
        startObject();
        Bytes traceId = Bytes.EMPTY;
        Bytes spanId = Bytes.EMPTY;
        Bytes parentSpanId = Bytes.EMPTY;
        String traceState = "";
        String name = "";
        String statusMessage = "";
        int flags = 0;
        int kind = 0;
        int droppedAttributes = 0;
        int droppedEvents = 0;
        int droppedLinks = 0;
        int statusCode = 0;
        long start = 0;
        long end = 0;
        List<KeyValue> attributes = List.of();
        List<SpanEvent> events = List.of();
        List<SpanLink> links = List.of();
        while (nextField()) {
            switch (field()) {
                case "traceId" -> traceId = id("trace_id");
                case "spanId" -> spanId = id("span_id");
                case "traceState" -> traceState = string();
                case "parentSpanId" -> parentSpanId = id("parent_span_id");
                case "flags" -> flags = (int) integer(IntKind.UINT32);
                case "name" -> name = string();
                case "kind" -> kind = enumNumber(Span.SpanKind.getDescriptor());
                case "startTimeUnixNano" -> start = integer(IntKind.UINT64);
                case "endTimeUnixNano" -> end = integer(IntKind.UINT64);
                case "attributes" -> attributes = keyValues(0);
                case "droppedAttributesCount" -> droppedAttributes = (int) integer(IntKind.UINT32);
                case "events" -> events = events();
                case "droppedEventsCount" -> droppedEvents = (int) integer(IntKind.UINT32);
                case "links" -> links = links();
                case "droppedLinksCount" -> droppedLinks = (int) integer(IntKind.UINT32);
                case "status" -> {
                    startObject();
                    while (nextField()) {
                        switch (field()) {
                            case "code" -> statusCode = enumNumber(Status.StatusCode.getDescriptor());
                            case "message" -> statusMessage = string();
                            default -> p.skipChildren();
                        }
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new SpanRecord(null, null, traceId, spanId, traceState, parentSpanId, flags, name, kind, start, end,
                attributes, droppedAttributes, events, droppedEvents, links, droppedLinks, statusCode, statusMessage);
    }

    private static SpanRecord ownSpan(SpanRecord s, Resource resource, Scope scope) {
        return s.toBuilder().resource(resource).scope(scope).build();
    }

    private List<SpanEvent> events() throws IOException {
        List<SpanEvent> events = new ArrayList<>();
        eachElement(i -> {
            startObject();
            long time = 0;
            String name = "";
            List<KeyValue> attributes = List.of();
            int dropped = 0;
            while (nextField()) {
                switch (field()) {
                    case "timeUnixNano" -> time = integer(IntKind.UINT64);
                    case "name" -> name = string();
                    case "attributes" -> attributes = keyValues(0);
                    case "droppedAttributesCount" -> dropped = (int) integer(IntKind.UINT32);
                    default -> p.skipChildren();
                }
            }
            events.add(new SpanEvent(time, name, attributes, dropped));
        });
        return events;
    }

    private List<SpanLink> links() throws IOException {
        List<SpanLink> links = new ArrayList<>();
        eachElement(i -> {
            startObject();
            Bytes traceId = Bytes.EMPTY;
            Bytes spanId = Bytes.EMPTY;
            String traceState = "";
            List<KeyValue> attributes = List.of();
            int dropped = 0;
            int flags = 0;
            while (nextField()) {
                switch (field()) {
                    case "traceId" -> traceId = id("link trace_id");
                    case "spanId" -> spanId = id("link span_id");
                    case "traceState" -> traceState = string();
                    case "attributes" -> attributes = keyValues(0);
                    case "droppedAttributesCount" -> dropped = (int) integer(IntKind.UINT32);
                    case "flags" -> flags = (int) integer(IntKind.UINT32);
                    default -> p.skipChildren();
                }
            }
            links.add(new SpanLink(traceId, spanId, traceState, attributes, dropped, flags));
        });
        return links;
    }

    private LogRecord log() throws IOException {
        startObject();
        long time = 0;
        long observedTime = 0;
        int severityNumber = 0;
        String severityText = "";
        AnyValue body = AnyValue.Empty.INSTANCE;
        List<KeyValue> attributes = List.of();
        int dropped = 0;
        int flags = 0;
        Bytes traceId = Bytes.EMPTY;
        Bytes spanId = Bytes.EMPTY;
        String eventName = "";
        while (nextField()) {
            switch (field()) {
                case "timeUnixNano" -> time = integer(IntKind.UINT64);
                case "observedTimeUnixNano" -> observedTime = integer(IntKind.UINT64);
                case "severityNumber" -> severityNumber = enumNumber(SeverityNumber.getDescriptor());
                case "severityText" -> severityText = string();
                case "body" -> body = value(0);
                case "attributes" -> attributes = keyValues(0);
                case "droppedAttributesCount" -> dropped = (int) integer(IntKind.UINT32);
                case "flags" -> flags = (int) integer(IntKind.UINT32);
                case "traceId" -> traceId = id("trace_id");
                case "spanId" -> spanId = id("span_id");
                case "eventName" -> eventName = string();
                default -> p.skipChildren();
            }
        }
        return new LogRecord(null, null, time, observedTime, severityNumber, severityText, body, attributes, dropped,
                flags, traceId, spanId, eventName);
    }

    private static LogRecord ownLog(LogRecord l, Resource resource, Scope scope) {
        return l.toBuilder().resource(resource).scope(scope).build();
    }

    /** A list of KeyValues; {@code enclosing} counts the arrays and kvlists around their values. */
    private List<KeyValue> keyValues(int enclosing) throws IOException {
        List<KeyValue> pairs = new ArrayList<>();
        eachElement(i -> {
            startObject();
            String key = "";
            AnyValue value = AnyValue.Empty.INSTANCE;
            while (nextField()) {
                switch (field()) {
                    case "key" -> key = key();
                    case "value" -> value = value(enclosing);
                    default -> p.skipChildren();
                }
            }
            pairs.add(new KeyValue(key, value));
        });
        return pairs;
    }

    private AnyValue value(int enclosing) throws IOException {
        startObject();
        AnyValue value = AnyValue.Empty.INSTANCE;
        while (nextField()) {
            switch (field()) {
                case "stringValue" -> value = new AnyValue.Str(string());
                case "boolValue" -> value = new AnyValue.Bool(bool());
                case "intValue" -> value = new AnyValue.Int(integer(IntKind.INT64));
                case "doubleValue" -> value = new AnyValue.Dbl(dbl());
                case "bytesValue" -> value = blob();
                case "arrayValue" -> value = enclosing < ValueCodec.MAX_DEPTH ? array(enclosing + 1) : tooDeep();
                case "kvlistValue" -> value = enclosing < ValueCodec.MAX_DEPTH ? kvlist(enclosing + 1) : tooDeep();
                default -> p.skipChildren();
            }
        }
        return value;
    }

    private AnyValue array(int enclosing) throws IOException {
        startObject();
        List<AnyValue> values = new ArrayList<>();
        while (nextField()) {
            if (field().equals("values")) {
                requireArray();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    // A null element stays in its place as an empty value: positions in an array mean something.
                    values.add(p.currentToken() == JsonToken.VALUE_NULL ? AnyValue.Empty.INSTANCE : value(enclosing));
                }
            } else {
                p.skipChildren();
            }
        }
        return new AnyValue.Array(values);
    }

    private AnyValue kvlist(int enclosing) throws IOException {
        startObject();
        List<KeyValue> values = List.of();
        while (nextField()) {
            if (field().equals("values")) {
                values = keyValues(enclosing);
            } else {
                p.skipChildren();
            }
        }
        return new AnyValue.KvList(values);
    }

    /** Skips a value no block could hold, without recursing into it, and rejects its record. */
    private AnyValue tooDeep() throws IOException {
        p.skipChildren();
        problem(Rejections.TOO_DEEP);
        return AnyValue.Empty.INSTANCE;
    }

    private AnyValue blob() throws IOException {
        String text = string();
        try {
            return new AnyValue.Blob(Bytes.wrap(Base64.getDecoder().decode(text)));
        } catch (IllegalArgumentException notStandard) {
            // proto3 JSON readers accept the URL-safe alphabet too.
            try {
                return new AnyValue.Blob(Bytes.wrap(Base64.getUrlDecoder().decode(text)));
            } catch (IllegalArgumentException notBase64) {
                problem("bytesValue is not base64: " + Rejections.quote(text));
                return AnyValue.Empty.INSTANCE;
            }
        }
    }

    /** A trace or span id: hex of either case, as OTLP/JSON says (not proto3 JSON's base64). */
    private Bytes id(String name) throws IOException {
        String text = string();
        if ((text.length() & 1) != 0) {
            problem(name + " is not hex: " + Rejections.quote(text));
            return Bytes.EMPTY;
        }
        byte[] out = new byte[text.length() / 2];
        for (int i = 0; i < out.length; i++) {
            int hi = nibble(text.charAt(2 * i));
            int lo = nibble(text.charAt(2 * i + 1));
            if ((hi | lo) < 0) {
                problem(name + " is not hex: " + Rejections.quote(text));
                return Bytes.EMPTY;
            }
            out[i] = (byte) (hi << 4 | lo);
        }
        return Bytes.wrap(out);
    }

    /** ASCII hex only: Character.digit would take other scripts' digits too. */
    private static int nibble(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private void problem(String reason) {
        if (problem == null) {
            problem = reason;
        }
    }

    private enum IntKind {
        INT32("a 32-bit integer", Integer.MIN_VALUE, Integer.MAX_VALUE),
        UINT32("an unsigned 32-bit integer", 0, 0xFFFF_FFFFL),
        INT64("a 64-bit integer", Long.MIN_VALUE, Long.MAX_VALUE),
        /** Above Long.MAX_VALUE only through the slow path; kept as the same 64 bits. */
        UINT64("an unsigned 64-bit integer", 0, Long.MAX_VALUE);

        final String expected;
        final long min;
        final long max;

        IntKind(String expected, long min, long max) {
            this.expected = expected;
            this.min = min;
            this.max = max;
        }
    }

    /**
     * An integer sent as a JSON number or as a string (OTLP writes 64-bit ones as strings), exponent
     * forms included when exact; unsigned kinds keep their bits in the returned long.
     */
    private long integer(IntKind kind) throws IOException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_NUMBER_INT && t != JsonToken.VALUE_NUMBER_FLOAT && t != JsonToken.VALUE_STRING) {
            throw wrongType(kind.expected);
        }
        long v;
        if (t == JsonToken.VALUE_NUMBER_INT && p.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
            v = p.getLongValue();
        } else if (t == JsonToken.VALUE_STRING && isPlainLong(p.getText())) {
            v = Long.parseLong(p.getText());
        } else {
            BigInteger exact = exactInteger(p.getText());
            if (exact == null) {
                throw wrongType(kind.expected);
            }
            if (kind == IntKind.UINT64 && exact.signum() >= 0 && exact.compareTo(UINT64_MAX) <= 0) {
                return exact.longValue();
            }
            if (exact.bitLength() > 63) {
                throw wrongType(kind.expected);
            }
            v = exact.longValue();
        }
        if (v < kind.min || v > kind.max) {
            throw wrongType(kind.expected);
        }
        return v;
    }

    /**
     * Digits (and a minus) that Long.parseLong takes without failing: the common case, without
     * BigDecimal. Nineteen digits too when they are within a long, as every nanosecond time of this
     * century is: digit strings of one length compare as their numbers.
     */
    private static boolean isPlainLong(String s) {
        boolean negative = s.startsWith("-");
        int start = negative ? 1 : 0;
        int digits = s.length() - start;
        if (digits == 0 || digits > LONG_DIGITS) {
            return false;
        }
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return digits < LONG_DIGITS || s.substring(start).compareTo(negative ? LONG_MIN_DIGITS : LONG_MAX_DIGITS) <= 0;
    }

    /** The integer a JSON number's text denotes exactly, or null; never expands a huge exponent. */
    private static BigInteger exactInteger(String text) {
        if (text.length() > MAX_NUMBER_TEXT || !NUMBER.matcher(text).matches()) {
            return null;
        }
        BigDecimal d = new BigDecimal(text);
        if (d.signum() == 0) {
            return BigInteger.ZERO;
        }
        d = d.stripTrailingZeros();
        // More than 20 integer digits is beyond 64 bits; a fraction left after stripping zeros is no integer.
        if (d.scale() > 0 || d.precision() - d.scale() > 20) {
            return null;
        }
        return d.toBigIntegerExact();
    }

    private double dbl() throws IOException {
        JsonToken t = p.currentToken();
        if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
            // From the text, so that "-0" stays negative zero.
            return Double.parseDouble(p.getText());
        }
        if (t == JsonToken.VALUE_STRING) {
            String s = p.getText();
            switch (s) {
                case "NaN":
                    return Double.NaN;
                case "Infinity":
                    return Double.POSITIVE_INFINITY;
                case "-Infinity":
                    return Double.NEGATIVE_INFINITY;
                default:
                    if (s.length() <= MAX_NUMBER_TEXT && NUMBER.matcher(s).matches()) {
                        return Double.parseDouble(s);
                    }
            }
        }
        throw wrongType("a double");
    }

    /** An enum as its number (what OTLP/JSON writes), or leniently as its proto name. */
    private int enumNumber(EnumDescriptor type) throws IOException {
        if (p.currentToken() == JsonToken.VALUE_STRING && !p.getText().isEmpty() && !NUMBER.matcher(p.getText()).matches()) {
            EnumValueDescriptor value = type.findValueByName(p.getText());
            if (value == null) {
                throw error("unknown " + type.getName() + " " + Rejections.quote(p.getText()), p.currentTokenLocation());
            }
            return value.getNumber();
        }
        return (int) integer(IntKind.INT32);
    }

    private boolean bool() throws IOException {
        JsonToken t = p.currentToken();
        if (t != JsonToken.VALUE_TRUE && t != JsonToken.VALUE_FALSE) {
            throw wrongType("true or false");
        }
        return t == JsonToken.VALUE_TRUE;
    }

    /**
     * An attribute key. Keys repeat from record to record and request to request: one read before, by
     * this or any other request, is given as the same instance ({@link SharedKeys}), so that the block
     * writer and the sidecars hash one String per distinct key instead of one per attribute. Its chars
     * were checked for unpaired surrogates when it was first read.
     */
    private String key() throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING || p.getTextLength() > SharedKeys.MAX_LENGTH) {
            return string();
        }
        String key = SharedKeys.get(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
        if (key == null) {
            key = string();
            SharedKeys.put(key);
        }
        return key;
    }

    /** A string; one with an unpaired surrogate (possible through \\u escapes) has no UTF-8 form to store. */
    private String string() throws IOException {
        if (p.currentToken() != JsonToken.VALUE_STRING) {
            throw wrongType("a string");
        }
        String s = p.getText();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    throw error("string has an unpaired surrogate \\u" + Integer.toHexString(c).toUpperCase(),
                            p.currentTokenLocation());
                }
            }
        }
        return s;
    }

    private void startObject() throws IOException {
        if (p.currentToken() != JsonToken.START_OBJECT) {
            throw wrongType("an object");
        }
    }

    private void requireArray() throws IOException {
        if (p.currentToken() != JsonToken.START_ARRAY) {
            throw wrongType("an array");
        }
    }

    /** Moves to the next field's value; false at the end of the object. A null value counts as absent. */
    private boolean nextField() throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            if (p.nextToken() != JsonToken.VALUE_NULL) {
                return true;
            }
        }
        return false;
    }

    /** The current field's name in lowerCamelCase: receivers accept the proto's snake_case names too. */
    private String field() throws IOException {
        String name = p.currentName();
        if (name.indexOf('_') < 0) {
            return name;
        }
        StringBuilder camel = new StringBuilder(name.length());
        boolean upper = false;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '_') {
                upper = true;
            } else {
                camel.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return camel.toString();
    }

    /** Calls {@code element} for each element of the array the parser is at; null elements count as absent. */
    private void eachElement(Element element) throws IOException {
        requireArray();
        int index = 0;
        while (p.nextToken() != JsonToken.END_ARRAY) {
            if (p.currentToken() != JsonToken.VALUE_NULL) {
                element.read(index);
            }
            index++;
        }
    }

    private OtlpDecodeException wrongType(String expected) throws IOException {
        return error("expected " + expected + ", got " + describe(p.currentToken()), p.currentTokenLocation());
    }

    private String describe(JsonToken t) throws IOException {
        if (t == null) {
            return "the end of the input";
        }
        switch (t) {
            case START_OBJECT:
                return "an object";
            case START_ARRAY:
                return "an array";
            case VALUE_STRING:
                return "the string " + Rejections.quote(p.getText());
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                return "the number " + Rejections.quote(p.getText());
            default:
                return t.asString() != null ? t.asString() : t.name();
        }
    }

    /** An error about the current token. */
    private OtlpDecodeException error(String message, JsonLocation location) {
        return new OtlpDecodeException(where(message, location, true));
    }

    /**
     * "resourceSpans[0].scopeSpans[1].spans[4].name: message (line 1, column 345)", the middle of a
     * deep path cut; {@code ofCurrentToken} when the message is about the token the parser is at.
     */
    private String where(String message, JsonLocation location, boolean ofCurrentToken) {
        Deque<String> segments = new ArrayDeque<>();
        JsonStreamContext context = p.getParsingContext();
        JsonToken t = p.currentToken();
        if (ofCurrentToken && (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) && context.getParent() != null) {
            // The object or array at hand has just opened a context with no name or index yet: its place is in the parent.
            context = context.getParent();
        }
        for (; context != null && !context.inRoot(); context = context.getParent()) {
            if (context.inArray()) {
                segments.addFirst("[" + Math.max(0, context.getCurrentIndex()) + "]");
            } else if (context.getCurrentName() != null) {
                segments.addFirst("." + context.getCurrentName());
            }
        }
        StringBuilder path = new StringBuilder();
        int i = 0;
        for (String segment : segments) {
            if (i < PATH_HEAD || i >= segments.size() - PATH_TAIL) {
                path.append(segment);
            } else if (i == PATH_HEAD) {
                path.append(".…");
            }
            i++;
        }
        String at = path.length() == 0 ? "request" : path.charAt(0) == '.' ? path.substring(1) : path.toString();
        String position = location == null ? "" : " (line " + location.getLineNr() + ", column " + location.getColumnNr() + ")";
        return at + ": " + message + position;
    }
}
