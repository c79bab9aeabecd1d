package dev.needle.blocks.model;

import java.util.List;

/** The instrumentation scope that produced the records. */
public record Scope(String name, String version, List<KeyValue> attributes, int droppedAttributesCount,
                    String schemaUrl) {

    /** A scope with no name, version or attributes. */
    public static final Scope EMPTY = new Scope("", "", List.of(), 0, "");

    public Scope {
        attributes = List.copyOf(attributes);
    }
}
