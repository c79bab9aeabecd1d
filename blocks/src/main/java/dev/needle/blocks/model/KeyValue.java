package dev.needle.blocks.model;

/** One attribute: a key and its value. */
public record KeyValue(String key, AnyValue value) {

    /** Shorthand for a string attribute. */
    public static KeyValue of(String key, String value) {
        return new KeyValue(key, new AnyValue.Str(value));
    }

    /** Shorthand for an int attribute. */
    public static KeyValue of(String key, long value) {
        return new KeyValue(key, new AnyValue.Int(value));
    }
}
