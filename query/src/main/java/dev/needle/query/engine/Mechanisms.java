package dev.needle.query.engine;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * Which pruning mechanisms a query may use. Turning one off never changes an answer, only what is
 * read to reach it; that is what the pruned-equals-scanned tests hold the engine to. EXPLAIN's
 * JSON names all four.
 *
 * @param time      skip blocks whose name's time range misses the query's
 * @param traceIdx  skip blocks whose TRACE_IDX rules the trace id out
 * @param attrIdx   skip blocks whose ATTR_IDX rules the conditions out
 * @param zoneMaps  skip record batches whose meta.json minimums and maximums rule the query out
 */
public record Mechanisms(@JsonProperty(required = true) boolean time, @JsonProperty(required = true) boolean traceIdx,
                         @JsonProperty(required = true) boolean attrIdx, @JsonProperty(required = true) boolean zoneMaps) {

    /** Every mechanism on: the default. */
    public static final Mechanisms ALL = new Mechanisms(true, true, true, true);
    /** Every mechanism off: a full scan. */
    public static final Mechanisms NONE = new Mechanisms(false, false, false, false);
}
