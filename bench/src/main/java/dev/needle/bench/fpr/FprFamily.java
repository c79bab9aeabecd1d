package dev.needle.bench.fpr;

import com.fasterxml.jackson.annotation.JsonValue;
import dev.needle.corpus.TraceIdFamily;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.KeyMix;
import java.util.SplittableRandom;

/** The kinds of key whose false-positive rate the sweep measures: the four trace-id families of TRACE_IDX, and one attribute of ATTR_IDX. */
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
    ATTRIBUTE(null);

    /** The attribute key of {@link #ATTRIBUTE}'s pairs. */
    static final String ATTRIBUTE_KEY = "user.id";

    private final TraceIdFamily traceIds;

    FprFamily(TraceIdFamily traceIds) {
        this.traceIds = traceIds;
    }

    /** The family's name in tables, JSON and chart legends: the trace-id family's label, or {@code attr}. */
    @JsonValue
    public String label() {
        return traceIds == null ? "attr" : traceIds.label();
    }

    /**
     * Writes the (lo, hi) halves of key number {@code t} into {@code lo[t]}, {@code hi[t]}: present
     * or certainly (COUNTER, ATTRIBUTE) or overwhelmingly (the random families) absent.
     */
    void key(int t, boolean absent, long epochSecond, SplittableRandom random, long[] lo, long[] hi) {
        if (traceIds == null) {
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
