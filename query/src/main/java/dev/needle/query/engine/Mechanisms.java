package dev.needle.query.engine;

/**
 * Which pruning mechanisms a query may use. Turning one off never changes an answer, only what is
 * read to reach it; that is what the pruned-equals-scanned tests hold the engine to.
 *
 * @param time      skip blocks whose name's time range misses the query's
 * @param traceIdx  skip blocks whose TRACE_IDX rules the trace id out
 * @param attrIdx   skip blocks whose ATTR_IDX rules the conditions out
 * @param zoneMaps  skip record batches whose meta.json minimums and maximums rule the query out
 */
public record Mechanisms(boolean time, boolean traceIdx, boolean attrIdx, boolean zoneMaps) {

    /** Every mechanism on: the default. */
    public static final Mechanisms ALL = new Mechanisms(true, true, true, true);
    /** Every mechanism off: a full scan. */
    public static final Mechanisms NONE = new Mechanisms(false, false, false, false);
}
