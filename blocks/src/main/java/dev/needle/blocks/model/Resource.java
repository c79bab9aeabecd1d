package dev.needle.blocks.model;

import java.util.List;

/** The entity that produced the records: its attributes and where its schema lives. */
public record Resource(List<KeyValue> attributes, int droppedAttributesCount, String schemaUrl) {

    /** A resource with no attributes. */
    public static final Resource EMPTY = new Resource(List.of(), 0, "");

    public Resource {
        attributes = List.copyOf(attributes);
    }
}
