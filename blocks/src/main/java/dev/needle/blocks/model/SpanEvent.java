package dev.needle.blocks.model;

import java.util.List;

/** A time-stamped event inside a span. */
public record SpanEvent(long timeUnixNano, String name, List<KeyValue> attributes, int droppedAttributesCount) {

    public SpanEvent {
        attributes = List.copyOf(attributes);
    }
}
