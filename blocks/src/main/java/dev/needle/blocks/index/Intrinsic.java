package dev.needle.blocks.index;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The intrinsic fields of spans and logs, each defined once: the word a query names it by, its
 * signal, the ATTR_IDX key the writer indexes it under (part of the sidecar contract), its column
 * in the signal's block schema, and its value in a decoded record and in a batch row.
 *
 * <p>Names and status messages are strings, every other intrinsic an int. A value is what the record stores, except
 * that a log's severity number 0 (unspecified) is no value to a condition; the writer still
 * indexes it, which only makes the filter say "maybe" more often.
 */
public enum Intrinsic {
    /** The span name, a string. */
    NAME("name", "intrinsic.name", SpanColumns.NAME, Access.span(s -> new AnyValue.Str(s.name()))),
    /** The span status code, an int: unset 0, ok 1, error 2. */
    STATUS("status", "intrinsic.status", SpanColumns.STATUS_CODE, Access.span(s -> new AnyValue.Int(s.statusCode()))),
    /** The span kind, an int: OTLP's SpanKind, unspecified 0 to consumer 5. */
    KIND("kind", "intrinsic.kind", SpanColumns.KIND, Access.span(s -> new AnyValue.Int(s.kind()))),
    /** The span duration in nanoseconds (end − start), an int; not in ATTR_IDX: the batch zone maps decide it. */
    DURATION("duration", null, SpanColumns.DURATION, Access.span(s -> new AnyValue.Int(s.durationNano()))),
    /** The span status message, a string; "" when it has none. Not in ATTR_IDX: the rows decide it. */
    STATUS_MESSAGE("statusMessage", null, SpanColumns.STATUS_MESSAGE,
            Access.span(s -> new AnyValue.Str(s.statusMessage()))),
    /** The log severity number, an int 0 to 24; 0 (unspecified) is indexed but is no value to a condition. */
    SEVERITY("severity", "intrinsic.severity", LogColumns.SEVERITY_NUMBER,
            Access.log(r -> new AnyValue.Int(r.severityNumber()), new AnyValue.Int(0)));

    /** The intrinsics of each signal by query word, in declaration order. */
    private static final Map<Signal, Map<String, Intrinsic>> BY_WORD = byWord();
    /** The intrinsics of each signal, in declaration order. */
    private static final Map<Signal, List<Intrinsic>> BY_SIGNAL = bySignal();

    private final String word;
    private final String indexedKey;
    private final String column;
    private final Access access;

    Intrinsic(String word, String indexedKey, String column, Access access) {
        this.word = word;
        this.indexedKey = indexedKey;
        this.column = column;
        this.access = access;
    }

    /**
     * How the records of one signal hold a field: {@code span} for spans, {@code log} for logs (the
     * other is null); {@code none} is the stored value that means "no value", or null.
     */
    private record Access(Signal signal, Function<SpanRecord, AnyValue> span, Function<LogRecord, AnyValue> log,
            AnyValue none) {
        static Access span(Function<SpanRecord, AnyValue> span) {
            return new Access(Signal.SPANS, span, null, null);
        }

        static Access log(Function<LogRecord, AnyValue> log, AnyValue none) {
            return new Access(Signal.LOGS, null, log, none);
        }
    }

    private static Map<Signal, Map<String, Intrinsic>> byWord() {
        Map<Signal, Map<String, Intrinsic>> by = new EnumMap<>(Signal.class);
        for (Signal signal : Signal.values()) {
            by.put(signal, new LinkedHashMap<>());
        }
        for (Intrinsic i : values()) {
            by.get(i.signal()).put(i.word, i);
        }
        return by;
    }

    private static Map<Signal, List<Intrinsic>> bySignal() {
        Map<Signal, List<Intrinsic>> by = new EnumMap<>(Signal.class);
        BY_WORD.forEach((signal, words) -> by.put(signal, List.copyOf(words.values())));
        return by;
    }

    /** The intrinsics of {@code signal}, in declaration order. */
    public static List<Intrinsic> of(Signal signal) {
        return BY_SIGNAL.get(signal);
    }

    /** The intrinsic of {@code signal} that a query calls {@code word}, if there is one. */
    public static Optional<Intrinsic> find(Signal signal, String word) {
        return Optional.ofNullable(BY_WORD.get(signal).get(word));
    }

    /** The word a query names this field by, such as {@code name} or {@code severity}. */
    public String word() {
        return word;
    }

    /** The signal whose records have this field. */
    public Signal signal() {
        return access.signal();
    }

    /** Whether this field's values are strings (the others are ints). */
    public boolean isString() {
        return this == NAME || this == STATUS_MESSAGE;
    }

    /** The ATTR_IDX key of this field's values, such as {@code intrinsic.name}; none for duration. */
    public Optional<String> indexedKey() {
        return Optional.ofNullable(indexedKey);
    }

    /** This field's column in its signal's block schema ({@link SpanColumns} or {@link LogColumns}). */
    public String column() {
        return column;
    }

    /** The field as span {@code s} stores it, which is what ATTR_IDX indexes. */
    public AnyValue stored(SpanRecord s) {
        requireSignal(Signal.SPANS);
        return access.span().apply(s);
    }

    /** The field as log record {@code r} stores it, which is what ATTR_IDX indexes. */
    public AnyValue stored(LogRecord r) {
        requireSignal(Signal.LOGS);
        return access.log().apply(r);
    }

    /** The value a condition compares for span {@code s}; null when it has none. */
    public AnyValue value(SpanRecord s) {
        return value(stored(s));
    }

    /** The value a condition compares for log record {@code r}; null when it has none. */
    public AnyValue value(LogRecord r) {
        return value(stored(r));
    }

    /**
     * The values a condition compares, row by row, of a batch of this field's signal that holds
     * {@link #column()}; a row without a value gives null.
     */
    public IntFunction<AnyValue> values(VectorSchemaRoot batch) {
        FieldVector v = batch.getVector(column);
        if (v instanceof VarCharVector strings) {
            // A nullable string column (the status message) stores "" as null.
            return row -> value(new AnyValue.Str(strings.isNull(row) ? ""
                    : new String(strings.get(row), StandardCharsets.UTF_8)));
        } else if (v instanceof IntVector ints) {
            return row -> value(new AnyValue.Int(ints.get(row)));
        } else if (v instanceof BigIntVector longs) {
            return row -> value(new AnyValue.Int(longs.get(row)));
        }
        throw new IllegalArgumentException("a batch of " + signal().dirName() + " needs a " + column + " column, found "
                + (v == null ? "none" : v.getMinorType()));
    }

    /** Whether the stored int {@code stored} means "no value" to a condition, as a log's severity 0 does. */
    public boolean isNone(long stored) {
        return access.none() instanceof AnyValue.Int none && none.value() == stored;
    }

    private AnyValue value(AnyValue stored) {
        return access.none() != null && access.none().equals(stored) ? null : stored;
    }

    private void requireSignal(Signal of) {
        if (signal() != of) {
            throw new IllegalArgumentException("'" + word + "' is a field of " + signal().dirName() + ", not of "
                    + of.dirName());
        }
    }
}
