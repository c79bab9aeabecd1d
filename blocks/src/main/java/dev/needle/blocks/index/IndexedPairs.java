package dev.needle.blocks.index;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which (key, value) pairs of a record go into ATTR_IDX (and, per record batch, BATCH_ATTR_IDX),
 * under which indexed key.
 *
 * <p>Every indexed key is a namespace, a dot, then the rest: {@code resource.} + a resource
 * attribute's key, {@code scope.} + a scope attribute's key, {@code span.} or {@code log.} + a
 * record attribute's key, and {@code intrinsic.} + a field name for the intrinsics that
 * {@link Intrinsic} gives an indexed key ({@code intrinsic.name}, {@code intrinsic.status},
 * {@code intrinsic.kind} for spans, {@code intrinsic.severity} for logs). The namespace ends at
 * the first dot and never contains one, so two different (namespace, key) pairs never give the
 * same indexed key: an attribute named {@code name} and the span name cannot collide. Scalar
 * values only (string, int, double, bool); bytes, arrays, maps and empty values are not indexed.
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

    /** The intrinsics of each signal that have an indexed key (all but duration), with that key. */
    private static final List<Indexed> SPAN_INTRINSICS = indexed(Signal.SPANS);
    private static final List<Indexed> LOG_INTRINSICS = indexed(Signal.LOGS);

    /** Remembered pairs stop growing here; past it, repeats are hashed again, which is only slower. */
    private static final int MAX_REMEMBERED = 200_000;
    /** Key instances remembered per namespace before they are forgotten all at once. */
    private static final int MAX_REMEMBERED_KEYS = 10_000;

    private final Sink sink;
    /** Where {@link TagsOnlyPairs}' pairs of a span go, or null when they are not wanted. */
    private final Sink tagsOnlySink;
    private final TagsOnlyPairs.Pairs tagsOnly = new TagsOnlyPairs.Pairs() {
        @Override
        public void string(String namespace, String key, String value) {
            IndexedPairs.this.string(namespace, key, value, tagsOnlySink);
        }

        @Override
        public void value(String namespace, String key, AnyValue value) {
            IndexedPairs.this.value(namespace, key, value, tagsOnlySink);
        }
    };
    private final SeenPairs seen = new SeenPairs(MAX_REMEMBERED);
    /**
     * The resource and scope instances whose pairs this batch passed on. Records of one request
     * share instances, and a batch sorted by trace id interleaves requests, so the previous
     * record's instance alone would be a poor guide; equal instances that are not the same pass
     * their pairs again, which {@link #seen} then skips.
     */
    private final Set<Object> seenInstances = Collections.newSetFromMap(new IdentityHashMap<>());
    /** Indexed keys by namespace and key instance: records of one request share key strings, so the joined one is shared too. */
    private final Map<String, Map<String, String>> indexedKeys = new HashMap<>();

    /**
     * Feeds the pairs of the records given to {@link #span} or {@link #log} into {@code sink}, each
     * distinct pair once (once per batch after {@link #newBatch}).
     */
    public IndexedPairs(Sink sink) {
        this(sink, null);
    }

    /**
     * Feeds the pairs of records into {@code sink} as {@link #IndexedPairs(Sink)} does, and the pairs
     * of spans that only TAGS holds ({@link TagsOnlyPairs}) into {@code tagsOnly}, each distinct pair
     * once per batch as well. Their keys are never ATTR_IDX keys, so one set remembers both kinds.
     */
    public IndexedPairs(Sink sink, Sink tagsOnly) {
        this.sink = sink;
        this.tagsOnlySink = tagsOnly;
    }

    /** The next records are another record batch's: pairs already passed on are passed on again, once. */
    public void newBatch() {
        seen.clear();
        seenInstances.clear();
    }

    /** The pairs of one span; a resource or scope instance already passed on in this batch is skipped cheaply. */
    public void span(SpanRecord s) {
        span(s, s.resource(), s.scope());
    }

    /**
     * The pairs of span {@code s} whose resource and scope are given as instances equal to its own:
     * a writer that shares one instance per distinct value has each passed on once per batch.
     */
    public void span(SpanRecord s, Resource resource, Scope scope) {
        resourceAndScope(resource, scope);
        attributes(SPAN, s.attributes());
        for (Indexed i : SPAN_INTRINSICS) {
            // The values Intrinsic#stored gives, taken without boxing them; IndexedPairsTest holds the two equal.
            switch (i.intrinsic()) {
                case NAME -> string("", i.key(), s.name(), sink);
                case STATUS -> integer("", i.key(), s.statusCode(), sink);
                case KIND -> integer("", i.key(), s.kind(), sink);
                default -> value("", i.key(), i.intrinsic().stored(s), sink);
            }
        }
        if (tagsOnlySink != null) {
            TagsOnlyPairs.span(s, resource, tagsOnly);
        }
    }

    /** The pairs of one log record. */
    public void log(LogRecord r) {
        log(r, r.resource(), r.scope());
    }

    /** The pairs of log record {@code r} whose resource and scope are given as instances equal to its own. */
    public void log(LogRecord r, Resource resource, Scope scope) {
        resourceAndScope(resource, scope);
        attributes(LOG, r.attributes());
        for (Indexed i : LOG_INTRINSICS) {
            if (i.intrinsic() == Intrinsic.SEVERITY) {
                integer("", i.key(), r.severityNumber(), sink);
            } else {
                value("", i.key(), i.intrinsic().stored(r), sink);
            }
        }
    }

    private void resourceAndScope(Resource resource, Scope scope) {
        if (firstSeen(resource)) {
            attributes(RESOURCE, resource.attributes());
        }
        if (firstSeen(scope)) {
            attributes(SCOPE, scope.attributes());
        }
    }

    /** Whether this batch has not met {@code instance} before; past the bound, instances not remembered count as new. */
    private boolean firstSeen(Object instance) {
        return seenInstances.size() < MAX_REMEMBERED ? seenInstances.add(instance) : !seenInstances.contains(instance);
    }

    /** An intrinsic with its indexed key. */
    private record Indexed(Intrinsic intrinsic, String key) {
    }

    private static List<Indexed> indexed(Signal signal) {
        return Intrinsic.of(signal).stream().filter(i -> i.indexedKey().isPresent())
                .map(i -> new Indexed(i, i.indexedKey().orElseThrow())).toList();
    }

    private void attributes(String namespace, List<KeyValue> attributes) {
        // By index: an iterator per list showed up among the block writer's allocations.
        for (int i = 0, n = attributes.size(); i < n; i++) {
            KeyValue kv = attributes.get(i);
            value(namespace, kv.key(), kv.value(), sink);
        }
    }

    /**
     * Passes a scalar value on unless this batch passed the same pair on before: then building and
     * hashing its key again is skipped. Bytes, arrays, maps and empty values are not indexed.
     */
    private void value(String namespace, String key, AnyValue v, Sink to) {
        if (v instanceof AnyValue.Str s) {
            string(namespace, key, s.value(), to);
        } else if (v instanceof AnyValue.Int i) {
            integer(namespace, key, i.value(), to);
        } else if (v instanceof AnyValue.Dbl d) {
            if (seen.firstSeen(namespace, key, SeenPairs.DOUBLE, null, Double.doubleToLongBits(d.value()))) {
                to.dbl(indexedKey(namespace, key), d.value());
            }
        } else if (v instanceof AnyValue.Bool b) {
            if (seen.firstSeen(namespace, key, SeenPairs.BOOL, null, b.value() ? 1 : 0)) {
                to.bool(indexedKey(namespace, key), b.value());
            }
        }
    }

    private void string(String namespace, String key, String value, Sink to) {
        if (seen.firstSeen(namespace, key, SeenPairs.STRING, value, 0)) {
            to.string(indexedKey(namespace, key), value);
        }
    }

    private void integer(String namespace, String key, long value, Sink to) {
        if (seen.firstSeen(namespace, key, SeenPairs.LONG, null, value)) {
            to.integer(indexedKey(namespace, key), value);
        }
    }

    /** {@code namespace + key}, the same instance for the same instances while few are remembered. */
    private String indexedKey(String namespace, String key) {
        Map<String, String> keys = indexedKeys.computeIfAbsent(namespace, n -> new IdentityHashMap<>());
        String indexed = keys.get(key);
        if (indexed == null) {
            if (keys.size() >= MAX_REMEMBERED_KEYS) {
                keys.clear();
            }
            indexed = namespace + key;
            keys.put(key, indexed);
        }
        return indexed;
    }
}
