package dev.needle.sidecar;

import java.util.Optional;

/**
 * What one block's Bloom filter says about keys: "certainly absent" or "maybe". A filter that could
 * not be trusted says "maybe" to everything and names why. Implemented by a block's own {@link Sidecar}
 * and by the block's column in {@link BitSlicedFilters}, which must answer alike.
 */
public interface KeyFilter {

    /** False only when the verified filter proves the key (h1, h2) absent. */
    boolean mayContain(long h1, long h2);

    /**
     * False only when a verified ATTR_IDX (or BATCH_ATTR_IDX) says its block holds no double-valued
     * attribute, so that a fractional literal can be ruled out without probing.
     */
    boolean mayHoldDoubles();

    /** Why the filter was not trusted; empty when verified. */
    Optional<FailOpenReason> failOpenReason();

    /** Whether the filter was verified, so that a "no" from it is certain. */
    default boolean isVerified() {
        return failOpenReason().isEmpty();
    }

    /** False only when the verified filter proves trace id (lo, hi) absent. */
    default boolean mayContainTraceId(long lo, long hi) {
        return mayContain(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi));
    }

    /** False only when the verified filter proves the attribute pair absent. */
    default boolean mayContain(AttributeHash pair) {
        return mayContain(pair.h1(), pair.h2());
    }
}
