package dev.needle.ingest.server;

import dev.needle.ingest.http.DecodeBudget;

/**
 * How the server divides its heap, decided at start: the head's bound and the sidecar cache as
 * configured, and what is left of {@link #PLANNED_SHARE} of the heap for decoding requests; the
 * rest is for queries and the HTTP server. A heap too small to decode even one request of the
 * largest allowed size next to the head is refused, with what to change.
 *
 * @param heapBytes         the JVM's maximum heap
 * @param headBytes         the head's bound (429 past it)
 * @param sidecarCacheBytes the query engine's decoded sidecars and the filters it holds of the stores'
 *                          indexes, which count under the cache's bound (the cache keeps what they leave)
 * @param decodeBytes       the heap requests being decoded may hold together (503 past it)
 */
record MemoryPlan(long heapBytes, long headBytes, long sidecarCacheBytes, long decodeBytes) {

    /** The share of the heap the plan hands out. */
    static final double PLANNED_SHARE = 0.8;

    /**
     * The plan for a heap of {@code heapBytes}.
     *
     * @throws IllegalArgumentException when decoding one request of {@code maxRequestBytes} would not fit
     */
    static MemoryPlan of(long heapBytes, long headBytes, long sidecarCacheBytes, long maxRequestBytes) {
        long decode = (long) (heapBytes * PLANNED_SHARE) - headBytes - sidecarCacheBytes;
        long needed = maxRequestBytes * DecodeBudget.EXPANSION;
        if (decode < needed) {
            throw new IllegalArgumentException(String.format("a heap of %s is too small: %d%% of it must hold the head"
                    + " (--max-head-bytes %s), the sidecar cache (%s) and the decoding of one request of"
                    + " --max-request-bytes %s (%s, %d times its size); give the server more heap"
                    + " (NEEDLE_HEAP=2g ./needle serve) or lower those limits",
                    Units.formatBytes(heapBytes), Math.round(PLANNED_SHARE * 100), Units.formatBytes(headBytes),
                    Units.formatBytes(sidecarCacheBytes), Units.formatBytes(maxRequestBytes), Units.formatBytes(needed),
                    DecodeBudget.EXPANSION));
        }
        // Whole MiB, so that the log states it in the unit the limits are given in.
        return new MemoryPlan(heapBytes, headBytes, sidecarCacheBytes, decode & -(1L << 20));
    }

    /** One line for the log. */
    String describe() {
        return String.format("memory: heap %s; head bound %s, sidecar cache and index filters %s, decoding %s",
                Units.formatBytes(heapBytes), Units.formatBytes(headBytes), Units.formatBytes(sidecarCacheBytes),
                Units.formatBytes(decodeBytes));
    }
}
