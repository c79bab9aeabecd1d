package dev.needle.sidecar;

import java.util.Optional;

/**
 * Builds a BATCH_ATTR_IDX: a Bloom sidecar (the {@link BloomSidecar} format, version 1) over a
 * block's distinct (attribute pair, record batch) keys, so that a reader can tell which record
 * batches may hold a pair that the block's ATTR_IDX says it may hold. It holds the pairs ATTR_IDX
 * holds, each under every batch whose rows hold it, and sets HAS_DOUBLE as ATTR_IDX does (for the
 * whole block).
 *
 * <p>Key of pair (lo, hi) in batch b: ({@link KeyMix#batchLo}(lo, b), hi), then the format's h1,
 * h2 and double hashing. Sized like ATTR_IDX, at {@value #BITS_PER_KEY} bits per distinct key
 * (rounded up to a power of two, at most {@link BloomSidecar#MAX_WORDS} words); above
 * {@link BloomSidecar#MAX_KEYS} distinct keys, or with none, no file is written and readers read
 * every batch.
 */
public final class BatchAttrIdxBuilder {

    /* Why 14 (docs/FORMAT.md, "Sizing, measured"): a block is probed once per batch (~37 in a
     * 300,000-row block), and only after ATTR_IDX said "maybe"; a false "maybe" costs reading that
     * batch. At 10 bits per key 6% of the blocks ATTR_IDX let through by a false positive still read a
     * batch, at 14 none did, for twice the bytes (0.3% of span data); 20 gave the same files. */

    /** Bits per distinct (pair, batch) key before rounding up to a power of two. */
    public static final int BITS_PER_KEY = 14;

    private final DistinctKeys keys;
    private boolean hasDouble;

    /** A builder for a block of unknown size. */
    public BatchAttrIdxBuilder() {
        this(0);
    }

    /** A builder that expects about {@code expectedKeys} distinct keys, so that its set never grows. */
    public BatchAttrIdxBuilder(int expectedKeys) {
        keys = new DistinctKeys(expectedKeys);
    }

    /** Adds pair {@code hash}, held by a row of record batch {@code batch} (0-based, in data.arrow's order). */
    public BatchAttrIdxBuilder add(int batch, AttributeHash hash) {
        keys.add(KeyMix.batchLo(hash.lo(), batch), hash.hi());
        return this;
    }

    /** Sets HAS_DOUBLE: the block holds a double-valued attribute (a NaN too, which adds no pair). */
    public BatchAttrIdxBuilder holdingDouble() {
        hasDouble = true;
        return this;
    }

    /** Distinct (pair, batch) keys added so far (more than {@link BloomSidecar#MAX_KEYS} once past the cut-off). */
    public int distinctKeys() {
        return keys.size();
    }

    /** The BATCH_ATTR_IDX file, or empty when there are no keys or more than MAX_KEYS: then none is written. */
    public Optional<byte[]> build() {
        return build(BITS_PER_KEY);
    }

    /** The file at {@code bitsPerKey} instead of {@value #BITS_PER_KEY}: the sizing benchmarks compare. */
    public Optional<byte[]> build(int bitsPerKey) {
        BloomBits bits = keys.toBits(bitsPerKey);
        return bits == null ? Optional.empty()
                : Optional.of(BloomSidecar.encode(bits, hasDouble ? BloomSidecar.FLAG_HAS_DOUBLE : 0));
    }
}
