package dev.needle.blocks.model;

import java.util.List;

/** A link from a span to a span of this or another trace. */
public record SpanLink(Bytes traceId, Bytes spanId, String traceState, List<KeyValue> attributes,
                       int droppedAttributesCount, int flags) {

    public SpanLink {
        attributes = List.copyOf(attributes);
    }
}
