package dev.needle.blocks.index;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Which (key, value) pairs of a record go into ATTR_IDX, under which indexed key.
 *
 * <p>Every indexed key is a namespace, a dot, then the rest: {@code resource.} + a resource
 * attribute's key, {@code scope.} + a scope attribute's key, {@code span.} or {@code log.} + a
 * record attribute's key, and {@code intrinsic.} + a field name for the intrinsics
 * ({@code intrinsic.name}, {@code intrinsic.status}, {@code intrinsic.kind} for spans,
 * {@code intrinsic.severity} for logs). The namespace ends at the first dot and never contains
 * one, so two different (namespace, key) pairs never give the same indexed key: an attribute
 * named {@code name} and the span name cannot collide. Scalar values only (string, int, double,
 * bool); bytes, arrays, maps and empty values are not indexed.
 */
public final class IndexedPairs {

    /** Namespace of resource attributes. */
    public static final String RESOURCE = "resource.";
    /** Namespace of instrumentation-scope attributes. */
    public static final String SCOPE = "scope.";
    /** Namespace of span attributes. */
    public static final String SPAN = "span.";
    /** Namespace of log record attributes. */
    public static final String LOG = "log.";
    /** The span name, a string. */
    public static final String INTRINSIC_NAME = "intrinsic.name";
    /** The span status code, an int (0 unset, 1 ok, 2 error). */
    public static final String INTRINSIC_STATUS = "intrinsic.status";
    /** The span kind, an int (OTLP's SpanKind). */
    public static final String INTRINSIC_KIND = "intrinsic.kind";
    /** The log severity number, an int (0, unspecified, included). */
    public static final String INTRINSIC_SEVERITY = "intrinsic.severity";

    /** Receives the indexed pairs of records. */
    public interface Sink {
        /** A string-valued pair. */
        void string(String key, String value);

        /** An int-valued pair. */
        void integer(String key, long value);

        /** A double-valued pair. */
        void dbl(String key, double value);

        /** A bool-valued pair. */
        void bool(String key, boolean value);
    }

    /** Remembered pairs stop growing here; past it, repeats are hashed again, which is only slower. */
    private static final int MAX_REMEMBERED = 200_000;

    private final Sink sink;
    private final Set<Pair> seen = new HashSet<>();
    private Resource lastResource;
    private Scope lastScope;

    /** One pair as the record holds it, before the namespaced key is built and hashed; doubles as Dbl, which compares bits. */
    private record Pair(String namespace, String key, Object value) {
    }

    /** Feeds the pairs of the records given to {@link #span} or {@link #log} into {@code sink}. */
    public IndexedPairs(Sink sink) {
        this.sink = sink;
    }

    /** The pairs of one span; a resource or scope repeated from the previous record is skipped cheaply. */
    public void span(SpanRecord s) {
        resourceAndScope(s.resource(), s.scope());
        attributes(SPAN, s.attributes());
        pair("", INTRINSIC_NAME, s.name());
        pair("", INTRINSIC_STATUS, (long) s.statusCode());
        pair("", INTRINSIC_KIND, (long) s.kind());
    }

    /** The pairs of one log record. */
    public void log(LogRecord r) {
        resourceAndScope(r.resource(), r.scope());
        attributes(LOG, r.attributes());
        pair("", INTRINSIC_SEVERITY, (long) r.severityNumber());
    }

    private void resourceAndScope(Resource resource, Scope scope) {
        if (resource != lastResource) {
            attributes(RESOURCE, resource.attributes());
            lastResource = resource;
        }
        if (scope != lastScope) {
            attributes(SCOPE, scope.attributes());
            lastScope = scope;
        }
    }

    private void attributes(String namespace, List<KeyValue> attributes) {
        for (KeyValue kv : attributes) {
            AnyValue v = kv.value();
            if (v instanceof AnyValue.Str s) {
                pair(namespace, kv.key(), s.value());
            } else if (v instanceof AnyValue.Int i) {
                pair(namespace, kv.key(), i.value());
            } else if (v instanceof AnyValue.Dbl d) {
                pair(namespace, kv.key(), d);
            } else if (v instanceof AnyValue.Bool b) {
                pair(namespace, kv.key(), b.value());
            }
        }
    }

    /** Passes one pair on, unless it was passed on before: then building and hashing its key again is skipped. */
    private void pair(String namespace, String key, Object value) {
        Pair pair = new Pair(namespace, key, value);
        if (seen.size() < MAX_REMEMBERED ? !seen.add(pair) : seen.contains(pair)) {
            return;
        }
        String indexedKey = namespace + key;
        if (value instanceof String s) {
            sink.string(indexedKey, s);
        } else if (value instanceof Long l) {
            sink.integer(indexedKey, l);
        } else if (value instanceof AnyValue.Dbl d) {
            sink.dbl(indexedKey, d.value());
        } else {
            sink.bool(indexedKey, (Boolean) value);
        }
    }
}
