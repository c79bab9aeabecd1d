package dev.needle.blocks.model;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * One shared instance for each distinct value (by {@code equals}) seen: the first. Records decoded
 * from one request share their resource and scope instances, but a block gathers thousands of
 * requests, so equal resources arrive as many instances; mapping each instance once (by identity)
 * to the shared one costs one deep hash per instance instead of one per record.
 */
public final class Interner<T> {

    private final Map<T, T> byInstance = new IdentityHashMap<>();
    private final Map<T, T> byValue = new HashMap<>();

    /** The shared instance equal to {@code value}. */
    public T shared(T value) {
        T shared = byInstance.get(value);
        if (shared == null) {
            shared = byValue.putIfAbsent(value, value);
            if (shared == null) {
                shared = value;
            }
            byInstance.put(value, shared);
        }
        return shared;
    }
}
