package dev.needle.bench.fpr;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.needle.corpus.TraceIdFamily;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.KeyMix;
import java.util.SplittableRandom;

/**
 * The kinds of key whose false-positive rate the sweep measures: the four trace-id families of
 * TRACE_IDX, one attribute of ATTR_IDX, and that attribute's (pair, batch) keys of BATCH_ATTR_IDX.
 */
public enum FprFamily {
    /** W3C trace ids: 16 random bytes. */
    RANDOM(TraceIdFamily.RANDOM),
    /** X-Ray trace ids: epoch seconds in bytes 0–3. */
    XRAY(TraceIdFamily.XRAY),
    /** 64-bit trace ids zero-padded to 16 bytes. */
    SHORT64(TraceIdFamily.SHORT64),
    /** Trace ids that are constant but for a counter in bytes 4–7. */
    COUNTER(TraceIdFamily.COUNTER),
    /** ATTR_IDX pairs {@code user.id = "user-<counter>"}: present counters even, absent ones odd. */
    ATTRIBUTE(null),
    /**
     * BATCH_ATTR_IDX keys of pairs {@code user.id = "user-<p>"}: present, pair p in 4 consecutive of 37
     * batches; absent, the same pairs in the other 33 batches, which a block asks about as often.
     */
    BATCH_ATTRIBUTE(null);

    /** The attribute key of {@link #ATTRIBUTE}'s and {@link #BATCH_ATTRIBUTE}'s pairs. */
    static final String ATTRIBUTE_KEY = "user.id";
    /** Record batches of {@link #BATCH_ATTRIBUTE}'s block, as in a 300,000-row block. */
    static final int BATCHES = 37;
    /** The batches each of {@link #BATCH_ATTRIBUTE}'s pairs is in. */
    static final int BATCHES_PER_PAIR = 4;

    private final TraceIdFamily traceIds;

    FprFamily(TraceIdFamily traceIds) {
        this.traceIds = traceIds;
    }

    /** The family's name in tables, JSON and chart legends: the trace-id family's label, {@code attr} or {@code batch-attr}. */
    @JsonValue
    public String label() {
        return this == BATCH_ATTRIBUTE ? "batch-attr" : traceIds == null ? "attr" : traceIds.label();
    }

    /**
     * Writes the (lo, hi) halves of key number {@code t} into {@code lo[t]}, {@code hi[t]}: present
     * or certainly (COUNTER, ATTRIBUTE, BATCH_ATTRIBUTE) or overwhelmingly (the random families) absent.
     */
    void key(int t, boolean absent, long epochSecond, SplittableRandom random, long[] lo, long[] hi) {
        if (this == BATCH_ATTRIBUTE) {
            int others = BATCHES - BATCHES_PER_PAIR;
            int pair = absent ? t / others : t / BATCHES_PER_PAIR;
            int batch = (pair + (absent ? BATCHES_PER_PAIR + t % others : t % BATCHES_PER_PAIR)) % BATCHES;
            AttributeHash hash = AttributeHash.ofString(ATTRIBUTE_KEY, "user-" + pair);
            lo[t] = KeyMix.batchLo(hash.lo(), batch);
            hi[t] = hash.hi();
        } else if (traceIds == null) {
            AttributeHash hash = AttributeHash.ofString(ATTRIBUTE_KEY, "user-" + (2L * t + (absent ? 1 : 0)));
            lo[t] = hash.lo();
            hi[t] = hash.hi();
        } else {
            byte[] id = absent ? traceIds.absent(t, epochSecond, random) : traceIds.present(t, epochSecond, random);
            lo[t] = KeyMix.traceIdLo(id, 0);
            hi[t] = KeyMix.traceIdHi(id, 0);
        }
    }
}
