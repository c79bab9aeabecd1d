package dev.needle.query.engine;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Which pruning mechanisms a query may use. Turning one off never changes an answer, only what is
 * read to reach it; that is what the pruned-equals-scanned tests hold the engine to. EXPLAIN's
 * JSON names all six.
 *
 * @param time      skip blocks whose name's time range misses the query's
 * @param traceIdx  skip blocks whose TRACE_IDX rules the trace id out
 * @param attrIdx   skip blocks whose ATTR_IDX rules the conditions out
 * @param zoneMaps  skip record batches whose meta.json minimums and maximums rule the query out
 * @param index     learn the blocks, their meta.json and filters from the store's index instead of a
 *                  listing and each block's own files
 * @param counts    let a metrics query add a block's COUNTS rows instead of reading its records
 */
public record Mechanisms(boolean time, boolean traceIdx, boolean attrIdx, boolean zoneMaps, boolean index,
                         boolean counts) {

    /** Every mechanism on: the default. */
    public static final Mechanisms ALL = new Mechanisms(true, true, true, true, true, true);
    /** Every mechanism off: a full scan. */
    public static final Mechanisms NONE = new Mechanisms(false, false, false, false, false, false);

    /** These four mechanisms, with the index and counts on. */
    public Mechanisms(boolean time, boolean traceIdx, boolean attrIdx, boolean zoneMaps) {
        this(time, traceIdx, attrIdx, zoneMaps, true, true);
    }

    /** These five mechanisms, with counts on. */
    public Mechanisms(boolean time, boolean traceIdx, boolean attrIdx, boolean zoneMaps, boolean index) {
        this(time, traceIdx, attrIdx, zoneMaps, index, true);
    }

    /**
     * From EXPLAIN's JSON: the first four are required; {@code index} and {@code counts}, which older servers
     * leave out, are on when absent.
     */
    @JsonCreator
    static Mechanisms fromJson(@JsonProperty(value = "time", required = true) boolean time,
                               @JsonProperty(value = "traceIdx", required = true) boolean traceIdx,
                               @JsonProperty(value = "attrIdx", required = true) boolean attrIdx,
                               @JsonProperty(value = "zoneMaps", required = true) boolean zoneMaps,
                               @JsonProperty("index") Boolean index,
                               @JsonProperty("counts") Boolean counts) {
        return new Mechanisms(time, traceIdx, attrIdx, zoneMaps, index == null || index, counts == null || counts);
    }

    /** These mechanisms with the index on or off. */
    public Mechanisms withIndex(boolean on) {
        return new Mechanisms(time, traceIdx, attrIdx, zoneMaps, on, counts);
    }

    /** These mechanisms with COUNTS on or off. */
    public Mechanisms withCounts(boolean on) {
        return new Mechanisms(time, traceIdx, attrIdx, zoneMaps, index, on);
    }
}
