package dev.needle.blocks.index;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import java.util.List;
import java.util.function.Consumer;

/**
 * The pairs of a span that {@link BlockTags} holds (from its version 2) beyond {@link IndexedPairs}'
 * ATTR_IDX pairs: its events' attributes under {@code event.} + key, its links' attributes under
 * {@code link.} + key, its events' names under {@value #EVENT_NAME} and its status message under
 * {@value #STATUS_MESSAGE} (an empty one is none, and not listed); and for a root span (one without a
 * parent) its name under {@value #ROOT_NAME} and its resource's {@code service.name} under
 * {@value #ROOT_SERVICE_NAME}, the values of TraceQL's {@code rootName} and {@code rootServiceName}
 * (a trace with several roots is judged by its earliest; each is listed). They feed the tag endpoints
 * only: ATTR_IDX never holds them, so no lookup prunes on them. Namespaces end at the first dot, as
 * in IndexedPairs, so none of these keys is an ATTR_IDX key.
 */
public final class TagsOnlyPairs {

    /** Namespace of span event attributes. */
    public static final String EVENT = "event.";
    /** Namespace of span link attributes. */
    public static final String LINK = "link.";
    /** The key of the names of a span's events (TraceQL's {@code event:name}). */
    public static final String EVENT_NAME = "intrinsic.event:name";
    /** The key of span status messages (TraceQL's {@code statusMessage}). */
    public static final String STATUS_MESSAGE = "intrinsic.statusMessage";
    /** The key of root span names (TraceQL's {@code rootName}). */
    public static final String ROOT_NAME = "intrinsic.rootName";
    /** The key of the service names of root spans (TraceQL's {@code rootServiceName}). */
    public static final String ROOT_SERVICE_NAME = "intrinsic.rootServiceName";
    private static final String SERVICE_NAME = "service.name";

    private TagsOnlyPairs() {
    }

    /** Whether {@code key} is one of these keys, which a TAGS file of version 1 does not hold. */
    public static boolean holds(String key) {
        return key.startsWith(EVENT) || key.startsWith(LINK) || key.equals(EVENT_NAME) || key.equals(STATUS_MESSAGE)
                || key.equals(ROOT_NAME) || key.equals(ROOT_SERVICE_NAME);
    }

    /** Every TAGS pair of the spans given to it, IndexedPairs' and these, into {@code tags}. */
    public static Consumer<SpanRecord> allOf(BlockTags.Builder tags) {
        IndexedPairs indexed = new IndexedPairs(tags, tags);
        return indexed::span;
    }

    /**
     * Receives the pairs of a span as a namespace (empty for the whole keys of this class) and the
     * rest of the key, so that a receiver that remembers pairs joins a key only for a pair it has not met.
     */
    interface Pairs {
        void string(String namespace, String key, String value);

        /** A value of any type: receivers take the scalars only, as IndexedPairs does. */
        void value(String namespace, String key, AnyValue value);
    }

    /** The pairs of span {@code s}, whose resource is {@code resource} (an instance equal to its own), into {@code pairs}. */
    static void span(SpanRecord s, Resource resource, Pairs pairs) {
        List<SpanEvent> events = s.events();
        for (int e = 0; e < events.size(); e++) {
            SpanEvent event = events.get(e);
            if (!event.name().isEmpty()) {
                pairs.string("", EVENT_NAME, event.name());
            }
            attributes(EVENT, event.attributes(), pairs);
        }
        List<SpanLink> links = s.links();
        for (int l = 0; l < links.size(); l++) {
            attributes(LINK, links.get(l).attributes(), pairs);
        }
        if (!s.statusMessage().isEmpty()) {
            pairs.string("", STATUS_MESSAGE, s.statusMessage());
        }
        if (s.parentSpanId().isEmpty()) {
            pairs.string("", ROOT_NAME, s.name());
            for (KeyValue kv : resource.attributes()) {
                if (kv.key().equals(SERVICE_NAME)) {
                    pairs.value("", ROOT_SERVICE_NAME, kv.value());
                    break;
                }
            }
        }
    }

    private static void attributes(String namespace, List<KeyValue> attributes, Pairs pairs) {
        for (int a = 0; a < attributes.size(); a++) {
            KeyValue kv = attributes.get(a);
            pairs.value(namespace, kv.key(), kv.value());
        }
    }
}
