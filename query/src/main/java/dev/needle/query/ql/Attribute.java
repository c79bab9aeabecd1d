package dev.needle.query.ql;

import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.model.Signal;
import java.util.List;
import java.util.Objects;

/**
 * What a condition tests: an attribute in a scope, or an intrinsic field, of one signal's records.
 *
 * <p>The signal is part of the attribute because it decides which record attributes are meant
 * ({@code span.} or {@code log.}) and which intrinsics exist: {@code name}, {@code status},
 * {@code kind} and {@code duration} for spans, {@code severity} for logs.
 *
 * @param signal the records queried
 * @param scope where the attribute lives
 * @param key the attribute's key, or for {@link Scope#INTRINSIC} the field's name
 */
public record Attribute(Signal signal, Scope scope, String key) {

    /** The span name, a string. */
    public static final String NAME = "name";
    /** The span status code, an int: unset 0, ok 1, error 2. */
    public static final String STATUS = "status";
    /** The span kind, an int: OTLP's SpanKind, unspecified 0 to consumer 5. */
    public static final String KIND = "kind";
    /** The span duration in nanoseconds, an int; not in ATTR_IDX. */
    public static final String DURATION = "duration";
    /** The log severity number, an int 0 to 24. */
    public static final String SEVERITY = "severity";

    private static final List<String> SPAN_INTRINSICS = List.of(NAME, STATUS, KIND, DURATION);
    private static final List<String> LOG_INTRINSICS = List.of(SEVERITY);

    /** Where an attribute lives. */
    public enum Scope {
        /** {@code resource.<key>} */
        RESOURCE,
        /** {@code instrumentation.<key>} or {@code scope.<key>}: the instrumentation scope. */
        SCOPE,
        /** {@code span.<key>} or {@code log.<key>}: the record's own attributes. */
        RECORD,
        /** {@code .<key>}: a resource, scope or record attribute; any of them may satisfy the condition. */
        UNSCOPED,
        /** An intrinsic field of the record, such as {@code name} or {@code severity}. */
        INTRINSIC
    }

    /** Checks that an intrinsic exists for the signal; the message names the ones that do. */
    public Attribute {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
        if (scope == Scope.INTRINSIC && !intrinsics(signal).contains(key)) {
            Signal other = signal == Signal.SPANS ? Signal.LOGS : Signal.SPANS;
            String why = intrinsics(other).contains(key)
                    ? "'" + key + "' is a field of " + other.dirName() + ", not of " + signal.dirName()
                    : "unknown intrinsic '" + key + "'";
            throw new IllegalArgumentException(why + "; " + signal.dirName() + " have "
                    + String.join(", ", intrinsics(signal)) + ", and attributes are written like ."
                    + key + " or " + recordScope(signal) + key);
        }
    }

    /**
     * The ATTR_IDX keys under which a value of this attribute is indexed, any of which may hold
     * the match: one per scope for {@code .key}; none for {@code duration}, which is not indexed.
     */
    public List<String> indexedKeys() {
        String record = signal == Signal.SPANS ? IndexedPairs.SPAN : IndexedPairs.LOG;
        return switch (scope) {
            case RESOURCE -> List.of(IndexedPairs.RESOURCE + key);
            case SCOPE -> List.of(IndexedPairs.SCOPE + key);
            case RECORD -> List.of(record + key);
            case UNSCOPED -> List.of(IndexedPairs.RESOURCE + key, IndexedPairs.SCOPE + key, record + key);
            case INTRINSIC -> switch (key) {
                case NAME -> List.of(IndexedPairs.INTRINSIC_NAME);
                case STATUS -> List.of(IndexedPairs.INTRINSIC_STATUS);
                case KIND -> List.of(IndexedPairs.INTRINSIC_KIND);
                case SEVERITY -> List.of(IndexedPairs.INTRINSIC_SEVERITY);
                default -> List.of();
            };
        };
    }

    /** The canonical text: {@code resource.k}, {@code instrumentation.k}, {@code span.k}/{@code log.k}, {@code .k}, or the intrinsic; odd keys quoted. */
    @Override
    public String toString() {
        String k = Canonical.key(key);
        return switch (scope) {
            case RESOURCE -> "resource." + k;
            case SCOPE -> "instrumentation." + k;
            case RECORD -> recordScope(signal) + k;
            case UNSCOPED -> "." + k;
            case INTRINSIC -> key;
        };
    }

    /** The intrinsics of a signal. */
    static List<String> intrinsics(Signal signal) {
        return signal == Signal.SPANS ? SPAN_INTRINSICS : LOG_INTRINSICS;
    }

    /** How record attributes are prefixed for a signal: {@code span.} or {@code log.}. */
    static String recordScope(Signal signal) {
        return signal == Signal.SPANS ? "span." : "log.";
    }
}
