package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The records acknowledged by ingest but not yet in a published block, which every query scans.
 * Query owns this interface and ingest implements it, so that the dependency points from ingest
 * to query.
 *
 * <p>Contract: a record leaves the head only after the block that holds it is published and
 * listed by the store (and in the store's index, where it keeps one), and the head says which
 * block each part of it is being published as. For at least {@link #NAMES_PUBLISHED_FOR} after that
 * the head still names the published block, in a part without records. The engine takes the
 * head's snapshot before it learns the blocks (from a listing, or from an index read at most
 * {@link QueryEngine#INDEX_POLL} ago), drops the parts whose blocks it knows, and reads the blocks
 * the head names that it does not know; so a record being published during a query is seen
 * exactly once, even when the index the engine holds is older than the block. A head that could
 * not be read whole (an ingest node that did not answer) says so with a part that names the
 * problem, which makes the answer partial.
 */
public interface HeadSource {

    /**
     * How long a head names a block after its records left it: longer than any reader's index poll
     * ({@link QueryEngine#INDEX_POLL}), so that a reader's index was read after the block was in it.
     */
    Duration NAMES_PUBLISHED_FOR = Duration.ofSeconds(10);

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
     * Records of the head by origin, or a block just published, which the head names without records.
     *
     * @param blockId   the id of the block these records are being published as, or null while no block is
     * @param records   the records, which do not change afterwards; none in a part naming a published block
     * @param published the whole name of the block published with these records ({@code BlockName}'s text),
     *                  once it is published and they left the head; null before
     * @param problem   why records of the head are missing from this snapshot (they may be anywhere), or null
     */
    record Part<R>(String blockId, List<R> records, String published, String problem) {

        /** Records not yet published, being published as {@code blockId} (or null), read whole. */
        public Part(String blockId, List<R> records) {
            this(blockId, records, null, null);
        }

        /** A block just published as {@code published}, named without its records. */
        public static <R> Part<R> published(String blockId, String published) {
            return new Part<>(blockId, List.of(), published, null);
        }

        /** A part standing for records that could not be read: the answer is partial and names {@code problem}. */
        public static <R> Part<R> unreadable(String problem) {
            return new Part<>(null, List.of(), null, problem);
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

    /**
     * The parts with only their records that satisfy {@code keep}; parts left empty are dropped, but
     * not those naming a published block or a problem.
     */
    static <R> List<Part<R>> filter(List<Part<R>> parts, Predicate<R> keep) {
        List<Part<R>> out = new ArrayList<>();
        for (Part<R> part : parts) {
            List<R> kept = part.records().stream().filter(keep).toList();
            if (!kept.isEmpty() || part.published() != null || part.problem() != null) {
                out.add(new Part<>(part.blockId(), kept, part.published(), part.problem()));
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
