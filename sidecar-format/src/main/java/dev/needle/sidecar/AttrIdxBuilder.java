package dev.needle.sidecar;

import java.util.Optional;

/** Builds an ATTR_IDX from a block's (key, scalar value) pairs, setting HAS_DOUBLE when any value is a double. */
public final class AttrIdxBuilder {

    private final DistinctKeys keys;
    private boolean hasDouble;

    /** A builder for a block of unknown size. */
    public AttrIdxBuilder() {
        this(0);
    }

    /** A builder that expects about {@code expectedKeys} distinct keys, so that its set never grows. */
    public AttrIdxBuilder(int expectedKeys) {
        keys = new DistinctKeys(expectedKeys);
    }

    /** Adds (key, string value). */
    public AttrIdxBuilder addString(String key, String value) {
        return add(AttributeHash.ofString(key, value));
    }

    /** Adds (key, int64 value). */
    public AttrIdxBuilder addLong(String key, long value) {
        return add(AttributeHash.ofLong(key, value));
    }

    /** Adds (key, double value): an integral double as its int, NaN not at all; either way HAS_DOUBLE is set. */
    public AttrIdxBuilder addDouble(String key, double value) {
        holdingDouble();
        AttributeHash hash = AttributeHash.ofDouble(key, value);
        return hash == null ? this : add(hash);
    }

    /** Adds (key, boolean value). */
    public AttrIdxBuilder addBool(String key, boolean value) {
        return add(AttributeHash.ofBool(key, value));
    }

    /**
     * Adds a pair already hashed, for a writer that hashes each pair once for several sidecars; a
     * double-valued pair also needs {@link #holdingDouble}.
     */
    public AttrIdxBuilder add(AttributeHash hash) {
        keys.add(hash.lo(), hash.hi());
        return this;
    }

    /** Sets HAS_DOUBLE: the block holds a double-valued attribute (a NaN too, which adds no pair). */
    public AttrIdxBuilder holdingDouble() {
        hasDouble = true;
        return this;
    }

    /** Distinct pairs added so far (more than {@link BloomSidecar#MAX_KEYS} once past the cut-off). */
    public int distinctKeys() {
        return keys.size();
    }

    /** Whether a double-valued pair was added. */
    public boolean hasDouble() {
        return hasDouble;
    }

    /** The ATTR_IDX file, or empty when there are no pairs or more than MAX_KEYS: then none is written. */
    public Optional<byte[]> build() {
        return build(BloomSidecar.BITS_PER_KEY);
    }

    /** The file at {@code bitsPerKey} instead of {@value BloomSidecar#BITS_PER_KEY}: the sizing benchmarks compare. */
    public Optional<byte[]> build(int bitsPerKey) {
        BloomBits bits = keys.toBits(bitsPerKey);
        return bits == null ? Optional.empty()
                : Optional.of(BloomSidecar.encode(bits, hasDouble ? BloomSidecar.FLAG_HAS_DOUBLE : 0));
    }
}
