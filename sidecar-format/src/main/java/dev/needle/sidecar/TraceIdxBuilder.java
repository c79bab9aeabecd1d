package dev.needle.sidecar;

import java.util.Optional;

/**
 * Builds a TRACE_IDX from a block's trace ids. Feed a sorted column as is: the spans of one
 * trace repeat its id and are dropped with one comparison each.
 */
public final class TraceIdxBuilder {

    /** Length of a trace id in bytes. */
    public static final int TRACE_ID_BYTES = 16;

    private final DistinctKeys keys;

    /** A builder for a block of unknown size. */
    public TraceIdxBuilder() {
        this(0);
    }

    /** A builder that expects about {@code expectedKeys} distinct keys, so that its set never grows. */
    public TraceIdxBuilder(int expectedKeys) {
        keys = new DistinctKeys(expectedKeys);
    }

    /** Adds a 16-byte trace id. */
    public TraceIdxBuilder add(byte[] traceId) {
        checkTraceId(traceId);
        return add(traceId, 0);
    }

    /** Adds the 16-byte trace id that starts at {@code offset} of {@code buffer}. */
    public TraceIdxBuilder add(byte[] buffer, int offset) {
        keys.add(KeyMix.traceIdLo(buffer, offset), KeyMix.traceIdHi(buffer, offset));
        return this;
    }

    /** Adds a trace id given as its two little-endian halves. */
    public TraceIdxBuilder add(long lo, long hi) {
        keys.add(lo, hi);
        return this;
    }

    /** Distinct ids added so far (more than {@link BloomSidecar#MAX_KEYS} once past the cut-off). */
    public int distinctKeys() {
        return keys.size();
    }

    /** The TRACE_IDX file, or empty when there are no ids or more than MAX_KEYS: then none is written. */
    public Optional<byte[]> build() {
        BloomBits bits = keys.toBits();
        return bits == null ? Optional.empty() : Optional.of(BloomSidecar.encode(bits, 0));
    }

    static void checkTraceId(byte[] traceId) {
        if (traceId.length != TRACE_ID_BYTES) {
            throw new IllegalArgumentException("a trace id has 16 bytes, got " + traceId.length);
        }
    }
}
