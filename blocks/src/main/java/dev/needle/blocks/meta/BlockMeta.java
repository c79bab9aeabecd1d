package dev.needle.blocks.meta;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * What a block's {@code meta.json} says about it: counts, sizes, its event-time range, its
 * sidecars and, per record batch, the zone maps that let a reader skip batches. Read and written
 * by {@link BlockMetaJson}: the components are meta.json's fields, in this order, after
 * {@code format}.
 *
 * @param writerVersion          the version of the writer that made the block ({@link #WRITER_VERSION_CURRENT})
 * @param signal                 spans or logs
 * @param rows                   the number of rows in {@code data.arrow}
 * @param dataBytes              the size of {@code data.arrow} in bytes
 * @param minTimeUnixNano        the earliest event time (a span's start, a log's event time)
 * @param maxTimeUnixNano        the latest event time
 * @param distinctTraceIds       the number of distinct non-empty trace ids
 * @param traceIdxBytes          the size of {@code TRACE_IDX}, 0 when the block has none
 * @param attrIdxBytes           the size of {@code ATTR_IDX}, 0 when the block has none
 * @param distinctAttributePairs the number of distinct indexed (key, value) pairs
 * @param createdUnixMillis      when the block was written
 * @param batches                the record batches in file order, covering rows 0..rows one after another
 * @param replaces               the blocks of the same tenant and signal this one replaces (a compaction's
 *                               output names its inputs), in name order; empty for every other block.
 *                               Readers skip a block that a visible block names here.
 */
public record BlockMeta(
        int writerVersion,
        Signal signal,
        long rows,
        long dataBytes,
        long minTimeUnixNano,
        long maxTimeUnixNano,
        int distinctTraceIds,
        long traceIdxBytes,
        long attrIdxBytes,
        long distinctAttributePairs,
        long createdUnixMillis,
        List<BatchMeta> batches,
        List<BlockName> replaces) {

    /** The value of the {@code format} field, which tells a meta.json of needle's from any other JSON. */
    public static final String FORMAT = "needle-block";
    /** The first layout of meta.json: zone maps, no checksums. */
    public static final int WRITER_VERSION_1 = 1;
    /** Every batch has its {@link BatchMeta#crc32c}, which a reader checks before it trusts the batch's bytes. */
    public static final int WRITER_VERSION_2 = 2;
    /**
     * Every batch also has its {@link BatchMeta#columns}: a checksum of its header and of each column's
     * byte range, so that a reader reads and checks only the columns it needs.
     */
    public static final int WRITER_VERSION_3 = 3;
    /**
     * meta.json carries {@code metaCrc32c}, the checksum of its own bytes, which a reader checks before it
     * trusts any of them: a zone map damaged into another valid number would otherwise rule batches out.
     */
    public static final int WRITER_VERSION_4 = 4;
    /** The version this code writes; it reads every version from 1 to this one. */
    public static final int WRITER_VERSION_CURRENT = WRITER_VERSION_4;

    /** Checks every fact that a reader relies on; a violation is an {@link IllegalArgumentException}. */
    public BlockMeta {
        if (writerVersion < WRITER_VERSION_1 || writerVersion > WRITER_VERSION_CURRENT) {
            throw new IllegalArgumentException("writerVersion " + writerVersion + " is not one this code knows ("
                    + WRITER_VERSION_1 + ".." + WRITER_VERSION_CURRENT + ")");
        }
        Objects.requireNonNull(signal, "signal");
        requireNonNegative("rows", rows);
        requireNonNegative("dataBytes", dataBytes);
        requireNonNegative("distinctTraceIds", distinctTraceIds);
        requireNonNegative("traceIdxBytes", traceIdxBytes);
        requireNonNegative("attrIdxBytes", attrIdxBytes);
        requireNonNegative("distinctAttributePairs", distinctAttributePairs);
        if (minTimeUnixNano > maxTimeUnixNano) {
            throw new IllegalArgumentException(
                    "minTimeUnixNano (" + minTimeUnixNano + ") > maxTimeUnixNano (" + maxTimeUnixNano + ")");
        }
        if (distinctTraceIds > rows) {
            throw new IllegalArgumentException("distinctTraceIds (" + distinctTraceIds + ") > rows (" + rows + ")");
        }
        batches = List.copyOf(batches);
        replaces = List.copyOf(new TreeSet<>(replaces));
        long nextRow = 0;
        for (int i = 0; i < batches.size(); i++) {
            BatchMeta batch = batches.get(i);
            String where = "batches[" + i + "]: ";
            if (batch.index() != i) {
                throw new IllegalArgumentException(where + "index is " + batch.index());
            }
            if (batch.firstRow() != nextRow) {
                throw new IllegalArgumentException(where + "firstRow is " + batch.firstRow()
                        + ", the previous batches end at row " + nextRow);
            }
            // A batch time outside the block's range means one of the two is wrong: trust neither.
            if (batch.minTimeUnixNano() < minTimeUnixNano || batch.maxTimeUnixNano() > maxTimeUnixNano) {
                throw new IllegalArgumentException(where + "time range " + batch.minTimeUnixNano() + ".."
                        + batch.maxTimeUnixNano() + " is outside the block's " + minTimeUnixNano + ".." + maxTimeUnixNano);
            }
            checkSignalFields(signal, batch, where);
            if (hasChecksums(writerVersion) != (batch.crc32c() != null)) {
                throw new IllegalArgumentException(where + "a batch of writer version " + writerVersion
                        + (batch.crc32c() == null ? " needs a crc32c" : " has no crc32c"));
            }
            if (hasColumnChecksums(writerVersion) != (batch.columns() != null)) {
                throw new IllegalArgumentException(where + "a batch of writer version " + writerVersion
                        + (batch.columns() == null ? " needs headerCrc32c, columnOffsets and columnCrc32c"
                                : " has no headerCrc32c, columnOffsets or columnCrc32c"));
            }
            nextRow = batch.endRow();
        }
        if (nextRow != rows) {
            throw new IllegalArgumentException("the batches hold " + nextRow + " rows, the block " + rows);
        }
    }

    /** A block that replaces no other: what every writer but the compactor writes. */
    public BlockMeta(int writerVersion, Signal signal, long rows, long dataBytes, long minTimeUnixNano,
                     long maxTimeUnixNano, int distinctTraceIds, long traceIdxBytes, long attrIdxBytes,
                     long distinctAttributePairs, long createdUnixMillis, List<BatchMeta> batches) {
        this(writerVersion, signal, rows, dataBytes, minTimeUnixNano, maxTimeUnixNano, distinctTraceIds, traceIdxBytes,
                attrIdxBytes, distinctAttributePairs, createdUnixMillis, batches, List.of());
    }

    /** This meta, naming {@code replaced} as the blocks this block replaces. */
    public BlockMeta replacing(List<BlockName> replaced) {
        return new BlockMeta(writerVersion, signal, rows, dataBytes, minTimeUnixNano, maxTimeUnixNano, distinctTraceIds,
                traceIdxBytes, attrIdxBytes, distinctAttributePairs, createdUnixMillis, batches, replaced);
    }

    /** Whether every batch has a {@link BatchMeta#crc32c} to check its bytes against: from writer version 2. */
    public boolean hasChecksums() {
        return hasChecksums(writerVersion);
    }

    private static boolean hasChecksums(int writerVersion) {
        return writerVersion >= WRITER_VERSION_2;
    }

    /**
     * Whether every batch has its {@link BatchMeta#columns}, so that a reader checks a batch's
     * header and each column it reads on their own: from writer version 3.
     */
    public boolean hasColumnChecksums() {
        return hasColumnChecksums(writerVersion);
    }

    private static boolean hasColumnChecksums(int writerVersion) {
        return writerVersion >= WRITER_VERSION_3;
    }

    /** Whether meta.json holds the checksum of its own bytes, {@code metaCrc32c}: from writer version 4. */
    public boolean hasMetaChecksum() {
        return hasMetaChecksum(writerVersion);
    }

    static boolean hasMetaChecksum(int writerVersion) {
        return writerVersion >= WRITER_VERSION_4;
    }

    private static void requireNonNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " (" + value + ") must be >= 0");
        }
    }

    private static void checkSignalFields(Signal signal, BatchMeta batch, String where) {
        boolean spans = signal == Signal.SPANS;
        if (spans != (batch.minDurationNano() != null)) {
            throw new IllegalArgumentException(where + (spans ? "a spans batch needs" : "a logs batch has no")
                    + " minDurationNano and maxDurationNano");
        }
        if (spans == (batch.severityNullCount() != null)) {
            throw new IllegalArgumentException(where + (spans ? "a spans batch has no" : "a logs batch needs")
                    + " severityNullCount");
        }
    }
}
