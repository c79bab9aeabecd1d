package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The records acknowledged by ingest but not yet in a published block, which every query scans.
 * Query owns this interface and ingest implements it, so that the dependency points from ingest
 * to query.
 *
 * <p>Contract: a record leaves the head only after the block that holds it is published and
 * listed by the store, and the head says which block each part of it is being published as. The
 * engine takes the head's snapshot before it lists blocks and drops the parts whose blocks it
 * lists, so a record being published during a query is seen exactly once. A head that could not
 * be read whole (an ingest node that did not answer) says so with a part that names the problem,
 * which makes the answer partial.
 */
public interface HeadSource {

    /** A head with nothing in it: for tools that read a data directory directly. */
    HeadSource EMPTY = new HeadSource() {
        @Override
        public List<Part<SpanRecord>> spanParts(TenantId tenant) {
            return List.of();
        }

        @Override
        public List<Part<LogRecord>> logParts(TenantId tenant) {
            return List.of();
        }
    };

    /**
     * Records of the head by origin.
     *
     * @param blockId the id of the block these records are being published as, or null while no block is
     * @param records the records, which do not change afterwards
     * @param problem why records of the head are missing from this snapshot (they may be anywhere), or null
     */
    record Part<R>(String blockId, List<R> records, String problem) {

        /** Records of the head, read whole. */
        public Part(String blockId, List<R> records) {
            this(blockId, records, null);
        }

        /** A part standing for records that could not be read: the answer is partial and names {@code problem}. */
        public static <R> Part<R> unreadable(String problem) {
            return new Part<>(null, List.of(), problem);
        }
    }

    /** A snapshot of the tenant's unpublished spans. */
    List<Part<SpanRecord>> spanParts(TenantId tenant);

    /** A snapshot of the tenant's unpublished log records. */
    List<Part<LogRecord>> logParts(TenantId tenant);

    /** A snapshot of the tenant's unpublished spans of one trace, by origin; a head may index them to answer without a scan. */
    default List<Part<SpanRecord>> traceSpanParts(TenantId tenant, Bytes traceId) {
        return filter(spanParts(tenant), s -> s.traceId().equals(traceId));
    }

    /** A snapshot of the tenant's unpublished log records of one trace, by origin. */
    default List<Part<LogRecord>> traceLogParts(TenantId tenant, Bytes traceId) {
        return filter(logParts(tenant), r -> r.traceId().equals(traceId));
    }

    /** The parts with only their records that satisfy {@code keep}; parts left empty are dropped, unless they name a problem. */
    static <R> List<Part<R>> filter(List<Part<R>> parts, Predicate<R> keep) {
        List<Part<R>> out = new ArrayList<>();
        for (Part<R> part : parts) {
            List<R> kept = part.records().stream().filter(keep).toList();
            if (!kept.isEmpty() || part.problem() != null) {
                out.add(new Part<>(part.blockId(), kept, part.problem()));
            }
        }
        return out;
    }

    /** Every unpublished span of the tenant, whatever its part. */
    default List<SpanRecord> spans(TenantId tenant) {
        return flatten(spanParts(tenant));
    }

    /** Every unpublished log record of the tenant, whatever its part. */
    default List<LogRecord> logs(TenantId tenant) {
        return flatten(logParts(tenant));
    }

    private static <R> List<R> flatten(List<Part<R>> parts) {
        List<R> out = new ArrayList<>();
        parts.forEach(p -> out.addAll(p.records()));
        return out;
    }
}
