package dev.needle.query.ql;

import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.Signal;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * What a condition tests: an attribute in a scope, or an intrinsic field, of one signal's records.
 *
 * <p>The signal is part of the attribute because it decides which record attributes are meant
 * ({@code span.} or {@code log.}) and which {@link Intrinsic}s exist: {@code name}, {@code status},
 * {@code kind} and {@code duration} for spans, {@code severity} for logs.
 *
 * @param signal the records queried
 * @param scope where the attribute lives
 * @param key the attribute's key, or for {@link Scope#INTRINSIC} the intrinsic's {@link Intrinsic#word()}
 */
public record Attribute(Signal signal, Scope scope, String key) {

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
        INTRINSIC,
        /**
         * A field of the span's whole trace, a {@link TraceField} ({@code trace:rootService}, …): judged
         * where the trace is looked up whole, never by an index.
         */
        TRACE,
        /** {@code event:name}: the name of any of the span's events; the key is {@code name}. */
        EVENT
    }

    /** The one key of {@link Scope#EVENT}: events are matched by name. */
    public static final String EVENT_NAME = "name";

    /** Checks that an intrinsic exists for the signal; the message names the ones that do. */
    public Attribute {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(scope, "scope");
        Objects.requireNonNull(key, "key");
        if (scope == Scope.INTRINSIC && Intrinsic.find(signal, key).isEmpty()) {
            Signal other = signal == Signal.SPANS ? Signal.LOGS : Signal.SPANS;
            String why = Intrinsic.find(other, key).isPresent()
                    ? "'" + key + "' is a field of " + other.dirName() + ", not of " + signal.dirName()
                    : "unknown intrinsic '" + key + "'";
            throw new IllegalArgumentException(why + "; " + signal.dirName() + " have " + intrinsics(signal)
                    + ", and attributes are written like ." + key + " or " + recordScope(signal) + key);
        }
        if (scope == Scope.TRACE && (signal != Signal.SPANS || TraceField.find(key).isEmpty())) {
            throw new IllegalArgumentException(signal != Signal.SPANS ? "log records belong to no trace: trace:" + key
                    : "unknown trace field 'trace:" + key + "'; traces have trace:" + String.join(", trace:", TraceField.words()));
        }
        if (scope == Scope.EVENT && (signal != Signal.SPANS || !key.equals(EVENT_NAME))) {
            throw new IllegalArgumentException(signal != Signal.SPANS ? "log records have no events: event:" + key
                    : "unknown event field 'event:" + key + "'; events are matched by event:" + EVENT_NAME);
        }
    }

    /**
     * Whether this intrinsic or trace field compares strings (else ints, as durations and codes);
     * an attribute may hold values of any type, so for one this is false.
     */
    public boolean isStringField() {
        return switch (scope) {
            case INTRINSIC -> intrinsic().isString();
            case TRACE -> TraceField.find(key).orElseThrow().isString();
            case EVENT -> true;
            default -> false;
        };
    }

    /** Whether this is an intrinsic or trace field, whose literals are typed by the field. */
    public boolean isField() {
        return scope == Scope.INTRINSIC || scope == Scope.TRACE || scope == Scope.EVENT;
    }

    /** The intrinsic field this attribute names; only for {@link Scope#INTRINSIC}. */
    public Intrinsic intrinsic() {
        if (scope != Scope.INTRINSIC) {
            throw new IllegalStateException(this + " is an attribute, not an intrinsic");
        }
        return Intrinsic.find(signal, key).orElseThrow();
    }

    /**
     * The ATTR_IDX keys under which a value of this attribute is indexed, any of which may hold
     * the match: one per scope for {@code .key}; none for {@code duration}, the status message and the
     * trace's fields and event names, which are not indexed.
     */
    public List<String> indexedKeys() {
        String record = signal == Signal.SPANS ? IndexedPairs.SPAN : IndexedPairs.LOG;
        return switch (scope) {
            case RESOURCE -> List.of(IndexedPairs.RESOURCE + key);
            case SCOPE -> List.of(IndexedPairs.SCOPE + key);
            case RECORD -> List.of(record + key);
            case UNSCOPED -> List.of(IndexedPairs.RESOURCE + key, IndexedPairs.SCOPE + key, record + key);
            case INTRINSIC -> intrinsic().indexedKey().stream().toList();
            case TRACE, EVENT -> List.of();
        };
    }

    /** The canonical text: {@code resource.k}, {@code instrumentation.k}, {@code span.k}/{@code log.k}, {@code .k}, the intrinsic, {@code trace:field} or {@code event:name}; odd keys quoted. */
    @Override
    public String toString() {
        String k = Canonical.key(key);
        return switch (scope) {
            case RESOURCE -> "resource." + k;
            case SCOPE -> "instrumentation." + k;
            case RECORD -> recordScope(signal) + k;
            case UNSCOPED -> "." + k;
            case INTRINSIC -> key;
            case TRACE -> "trace:" + key;
            case EVENT -> "event:" + key;
        };
    }

    /** The words of a signal's intrinsics, as a message lists them: {@code name, status, kind, duration}. */
    static String intrinsics(Signal signal) {
        return Intrinsic.of(signal).stream().map(Intrinsic::word).collect(Collectors.joining(", "));
    }

    /** How record attributes are prefixed for a signal: {@code span.} or {@code log.}. */
    static String recordScope(Signal signal) {
        return signal == Signal.SPANS ? "span." : "log.";
    }
}
