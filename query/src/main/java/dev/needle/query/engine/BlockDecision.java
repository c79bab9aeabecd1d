package dev.needle.query.engine;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.annotation.Nulls;

/**
 * What the plan did with one block, and why: the step that decided, the reason in words, and what
 * reading cost. In EXPLAIN's JSON the block and the step are required; a missing reason is empty,
 * a missing count 0, and a null {@code failedOpen} is left out.
 *
 * @param block          the block's name
 * @param decidedBy      the step that decided: the last one to run
 * @param pruned         whether the block was skipped without reading any record batch
 * @param reason         why, in words ("TRACE_IDX rules the trace id out", "batch 3 matched 7 rows")
 * @param failedOpen     the label of a sidecar that could not be trusted (missing, crc, …; a BATCH_ATTR_IDX's as
 *                       batch_attr_idx:missing, …), or null
 * @param batchesRead    record batches whose columns were read
 * @param batchesSkipped record batches ruled out by their zone maps or BATCH_ATTR_IDX, or left unread once a limit
 *                       was met by newer rows
 * @param rowsScanned    rows whose predicate columns were read and tested
 * @param matched        rows that matched
 * @param bytesToDecide  bytes read before any batch: sidecar, meta.json, the Arrow footer
 * @param bytesRead      every byte read for this block
 * @param requests       requests made to the store for this block (sidecars, meta.json, data.arrow): on an object
 *                       store its GETs, locally its read calls; a decoded sidecar or footer taken from the cache costs
 *                       none. 0 in the EXPLAIN of a server that did not count them
 */
public record BlockDecision(
        @JsonSetter(nulls = Nulls.FAIL) String block,
        @JsonSetter(nulls = Nulls.FAIL) Step decidedBy,
        boolean pruned,
        @JsonSetter(nulls = Nulls.AS_EMPTY) String reason,
        @JsonInclude(JsonInclude.Include.NON_NULL) String failedOpen,
        int batchesRead,
        int batchesSkipped,
        long rowsScanned,
        long matched,
        long bytesToDecide,
        long bytesRead,
        long requests) {

    /** The steps of the plan, in the order they run. */
    public enum Step {
        /** The time range in the block's name. */
        TIME("time"),
        /** The block's TRACE_IDX. */
        TRACE_IDX("trace_idx"),
        /** The block's ATTR_IDX. */
        ATTR_IDX("attr_idx"),
        /** The record batches' zone maps in meta.json. */
        ZONE_MAPS("zone_maps"),
        /** The block's BATCH_ATTR_IDX, which rules out record batches one by one: ATTR_IDX's mechanism. */
        BATCH_ATTR_IDX("batch_attr_idx"),
        /** The rows themselves. */
        ROWS("rows"),
        /** Not read: a metrics query added the block's COUNTS rows instead of its records. */
        COUNTS("counts"),
        /** Not read: the limit was reached with records newer than any this block holds. */
        LIMIT("limit"),
        /** The block could not be read. */
        ERROR("error");

        private final String label;

        Step(String label) {
            this.label = label;
        }

        /** The lower-case name used in EXPLAIN output (its JSON too) and metrics. */
        @JsonValue
        public String label() {
            return label;
        }
    }

    /** Whether the block was opened: read, or pruned batch by batch after reading its meta.json and footer. */
    public boolean opened() {
        return !pruned || decidedBy == Step.ZONE_MAPS || decidedBy == Step.BATCH_ATTR_IDX;
    }

    /** Whether the block was opened but held no match: a sidecar false positive, or no sidecar help. */
    public boolean openedForNothing() {
        return opened() && matched == 0 && decidedBy != Step.ERROR;
    }
}
