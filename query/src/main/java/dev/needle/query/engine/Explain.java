package dev.needle.query.engine;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The plan of one lookup over one signal, block by block, with its totals. Its JSON (written and
 * read by {@link ExplainFormat}) is {@code signal}, {@code mechanisms}, {@code source}, {@code totals}
 * and {@code blocks}; the head counts are written among the totals.
 *
 * @param signal     spans or logs
 * @param mechanisms the mechanisms the lookup was allowed
 * @param source     where the blocks were learnt: the store's index (with how many), or a listing and why
 *                   (the index is turned off, missing, damaged or unreadable)
 * @param blocks     one decision per listed block, newest first
 * @param headRows   unpublished records scanned in the ingest head
 * @param headMatched unpublished records that matched
 */
@JsonPropertyOrder({"signal", "mechanisms", "source", "totals", "blocks"})
public record Explain(String signal, Mechanisms mechanisms, String source, List<BlockDecision> blocks, @JsonIgnore long headRows,
                      @JsonIgnore long headMatched) {

    public Explain {
        // A lookup's own lazy list is immutable already, and copying it would make every decision it defers.
        blocks = blocks instanceof BlockDecisions ? blocks : List.copyOf(blocks);
    }

    /**
     * A plan from its JSON. The totals are not read but summed again from the blocks; a part an
     * older server left out is empty (no blocks, no head records, no source), its mechanisms all on.
     */
    @JsonCreator
    static Explain fromJson(@JsonProperty("signal") String signal, @JsonProperty("mechanisms") Mechanisms mechanisms,
                            @JsonProperty("source") String source, @JsonProperty("blocks") List<BlockDecision> blocks,
                            @JsonProperty("totals") Totals totals) {
        return new Explain(signal == null ? "" : signal, mechanisms == null ? Mechanisms.ALL : mechanisms,
                source == null ? "" : source,
                blocks == null ? List.of() : blocks, totals == null ? 0 : totals.headRows(),
                totals == null ? 0 : totals.headMatched());
    }

    /** The totals of an EXPLAIN, with the head's counts. */
    @JsonPropertyOrder({"blocksListed", "prunedByTime", "prunedByTraceIdx", "prunedByAttrIdx", "prunedByZoneMaps",
        "prunedByBatchAttrIdx", "skippedByLimit", "opened", "openedForNothing", "unreadable", "failedOpen", "rowsScanned", "matched", "bytesRead",
        "bytesToDecide", "requests", "headRecords", "headMatched"})
    public record Totals(@JsonProperty("blocksListed") int listed, int prunedByTime, int prunedByTraceIdx,
                         int prunedByAttrIdx, int prunedByZoneMaps, int prunedByBatchAttrIdx, int skippedByLimit,
                         int opened, int openedForNothing,
                         @JsonProperty("unreadable") int errors, Map<String, Integer> failedOpen, long rowsScanned,
                         long matched, long bytesToDecide, long bytesRead, long requests,
                         @JsonProperty("headRecords") long headRows,
                         long headMatched) {
    }

    /** Sums the decisions. */
    @JsonProperty("totals")
    public Totals totals() {
        int time = 0;
        int traceIdx = 0;
        int attrIdx = 0;
        int zoneMaps = 0;
        int batchAttrIdx = 0;
        int limit = 0;
        int opened = 0;
        int forNothing = 0;
        int errors = 0;
        long rows = 0;
        long matched = 0;
        long decide = 0;
        long read = 0;
        long requests = 0;
        Map<String, Integer> failedOpen = new TreeMap<>();
        List<BlockDecision> decided = blocks;
        if (blocks instanceof BlockDecisions lazy) {
            // The blocks one probe ruled out, counted without making their decisions: pruned, nothing read.
            decided = lazy.held();
            switch (lazy.ruledOutBy()) {
                case TRACE_IDX -> traceIdx += lazy.ruledOutCount();
                case ATTR_IDX -> attrIdx += lazy.ruledOutCount();
                default -> throw new IllegalStateException("blocks ruled out at once by " + lazy.ruledOutBy());
            }
        }
        for (BlockDecision d : decided) {
            if (d.pruned()) {
                switch (d.decidedBy()) {
                    case TIME -> time++;
                    case TRACE_IDX -> traceIdx++;
                    case ATTR_IDX -> attrIdx++;
                    case ZONE_MAPS -> zoneMaps++;
                    case BATCH_ATTR_IDX -> batchAttrIdx++;
                    case LIMIT -> limit++;
                    default -> { }
                }
            }
            if (d.decidedBy() == BlockDecision.Step.ERROR) {
                errors++;
            }
            opened += d.opened() ? 1 : 0;
            forNothing += d.openedForNothing() ? 1 : 0;
            if (d.failedOpen() != null) {
                failedOpen.merge(d.failedOpen(), 1, Integer::sum);
            }
            rows += d.rowsScanned();
            matched += d.matched();
            decide += d.bytesToDecide();
            read += d.bytesRead();
            requests += d.requests();
        }
        return new Totals(blocks.size(), time, traceIdx, attrIdx, zoneMaps, batchAttrIdx, limit, opened, forNothing, errors, failedOpen,
                rows, matched, decide, read, requests, headRows, headMatched);
    }
}
