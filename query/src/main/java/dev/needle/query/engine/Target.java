package dev.needle.query.engine;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.sidecar.BitSlicedFilters;
import dev.needle.sidecar.KeyFilter;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * What one lookup looks for in a block, step by step: which sidecar may rule the block out, which
 * zone maps may rule a batch out, which columns decide a row, and how a matching row is decoded.
 * Each step answers "skip" only when it is certain.
 *
 * @param <R> the record type returned
 */
interface Target<R> {

    /** The sidecar file this target consults, and the plan step it stands for. */
    String sidecarFile();

    /** The plan step of {@link #sidecarFile}. */
    BlockDecision.Step sidecarStep();

    /** Null when the block's verified sidecar (its own, or its column of the index's) cannot rule it out, else why it does. */
    String ruledOutBy(KeyFilter sidecar);

    /**
     * This target in a block whose verified sidecar is {@code sidecar} and does not rule it out: itself, or
     * for a target of several keys one of only those keys the sidecar may hold, so that the block's batches
     * are read for those alone.
     */
    default Target<R> within(KeyFilter sidecar) {
        return this;
    }

    /**
     * The ids of the blocks whose filter in the index ({@code filters}) cannot rule this target out, from
     * one probe over every block, as {@link #ruledOutBy(KeyFilter)} would find block by block; null when
     * the target is decided block by block (a search, whose conditions combine several keys).
     */
    default BitSlicedFilters.Candidates mayHold(IndexedFilters.Lookup filters) {
        return null;
    }

    /** Null when the batch's zone maps cannot rule it out, else why they do. */
    String ruledOutBy(BatchMeta batch);

    /**
     * What the block's BATCH_ATTR_IDX may rule out of its record batches for this lookup, or null
     * when it can rule out none: a trace lookup, or a search without an equality it decides.
     */
    default BatchAttrIdxCheck batchAttrIdxCheck() {
        return null;
    }

    /**
     * Whether a batch that the zone maps keep is read whole at once, its matches then decoded from
     * that read: right where the zone maps almost only keep batches that match (a trace's, among
     * sorted trace ids), as it saves the second read of the batch (on an object store, a GET).
     */
    default boolean readsWholeBatches() {
        return false;
    }

    /** What the search judges beyond the columns' test of {@link #matchingRows}: nothing, but for a search given one. */
    default RecordFilter<R> filter() {
        return RecordFilter.none();
    }

    /** The columns {@link #matchingRows} reads. */
    Set<String> predicateColumns();

    /** The rows of a batch (holding the predicate columns) that match. */
    RoaringBitmap matchingRows(VectorSchemaRoot predicateColumns) throws CorruptValueException;

    /** The column of each record's time: a span's start, a log record's event time. */
    String timeColumn();

    /** How this target's signal's records are decoded and counted. */
    RecordKind<R> kind();

    /** An empty set of found records of this target's signal, which holds each record once. */
    default Found<R> found() {
        return new Found<>(kind());
    }

    /** Binds a full batch for decoding matched rows. */
    default RowDecoder<R> decoder(VectorSchemaRoot batch) {
        return kind().decoder().apply(batch);
    }

    /** Decodes one row of a bound batch. */
    interface RowDecoder<R> {
        /** Row {@code row}. */
        R decode(int row) throws CorruptValueException;
    }
}
