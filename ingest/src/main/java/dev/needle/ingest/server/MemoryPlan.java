package dev.needle.ingest.server;

import dev.needle.blocks.cli.Units;
import dev.needle.ingest.http.DecodeBudget;

/**
 * How the server divides its heap, decided at start: the head's bound and the sidecar cache as
 * configured, and what is left of {@link #PLANNED_SHARE} of the heap for decoding requests. Of the
 * rest, {@link #QUERY_SHARE} of the heap bounds the records running queries hold; what remains is for
 * the HTTP server, what queries hold besides records (a record batch per reading thread) and the
 * collector's headroom. A heap too small to decode even one request of the largest allowed size next to
 * the head is refused, with what to change. A query node holds no head and decodes no request: its
 * queries have what the sidecar cache leaves of the planned share.
 *
 * @param heapBytes         the JVM's maximum heap
 * @param headBytes         the head's bound (429 past it)
 * @param sidecarCacheBytes the query engine's decoded sidecars and the filters it holds of the stores'
 *                          indexes, which count under the cache's bound (the cache keeps what they leave)
 * @param queryBytes        the heap the records of every running query may hold together
 * @param decodeBytes       the heap requests being decoded may hold together (503 past it)
 */
record MemoryPlan(long heapBytes, long headBytes, long sidecarCacheBytes, long queryBytes, long decodeBytes) {

    /** The share of the heap the plan hands out. */
    static final double PLANNED_SHARE = 0.8;
    /** The share of the heap, beyond the planned share, for the records of running queries on a node that also ingests. */
    static final double QUERY_SHARE = 0.125;

    /**
     * The plan for a heap of {@code heapBytes} on a node that ingests.
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
        return new MemoryPlan(heapBytes, headBytes, sidecarCacheBytes, mib((long) (heapBytes * QUERY_SHARE)),
                mib(decode));
    }

    /** The plan of a query node: what the sidecar cache leaves of the planned share is the queries'. */
    static MemoryPlan ofQueryNode(long heapBytes, long sidecarCacheBytes) {
        long queries = mib((long) (heapBytes * PLANNED_SHARE) - sidecarCacheBytes);
        if (queries < 1 << 20) {
            throw new IllegalArgumentException("a heap of " + Units.formatBytes(heapBytes) + " is too small: it leaves"
                    + " nothing for queries beside the sidecar cache (" + Units.formatBytes(sidecarCacheBytes)
                    + "); give the server more heap (NEEDLE_HEAP=2g ./needle serve)");
        }
        return new MemoryPlan(heapBytes, 0, sidecarCacheBytes, queries, 0);
    }

    /** What one query's records may hold unless told otherwise: half of all queries', so that two heavy ones run at once. */
    long queryDefaultBytes() {
        return mib(queryBytes / 2);
    }

    /** Whole MiB, so that the log states it in the unit the limits are given in. */
    private static long mib(long bytes) {
        return bytes & -(1L << 20);
    }

    /** One line for the log. */
    String describe() {
        return String.format("memory: heap %s; head bound %s, sidecar cache and index filters %s, queries' records %s,"
                        + " decoding %s", Units.formatBytes(heapBytes), Units.formatBytes(headBytes),
                Units.formatBytes(sidecarCacheBytes), Units.formatBytes(queryBytes), Units.formatBytes(decodeBytes));
    }
}
