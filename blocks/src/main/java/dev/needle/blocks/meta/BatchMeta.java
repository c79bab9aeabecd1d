package dev.needle.blocks.meta;

import dev.needle.blocks.model.Bytes;

/**
 * One record batch of a block: its row range, its zone maps, each a minimum and maximum over the
 * batch's own rows, from writer version 2 the checksum of its bytes, and from version 3 the checksums
 * of its header and of each column's byte range. A null minimum and maximum
 * mean that no row of the batch has the field (every trace id empty, every severity number 0) or
 * that the field is not the signal's: durations are for spans, severities for logs. In meta.json a
 * null field is left out.
 *
 * @param index             the batch's position in {@code data.arrow}, from 0
 * @param firstRow          the block row of the batch's first row
 * @param rows              the number of rows, at least 1
 * @param minTimeUnixNano   the earliest event time (a span's start, a log's event time)
 * @param maxTimeUnixNano   the latest event time
 * @param minTraceId        the smallest non-empty trace id in unsigned byte order, or null
 * @param maxTraceId        the largest non-empty trace id, or null
 * @param traceIdNullCount  the number of rows with an empty trace id
 * @param minDurationNano   spans: the shortest end − start; logs: null
 * @param maxDurationNano   spans: the longest end − start; logs: null
 * @param minSeverity       logs: the smallest severity number other than 0 (unspecified), or null
 * @param maxSeverity       logs: the largest severity number other than 0, or null
 * @param severityNullCount logs: the number of rows whose severity number is 0; spans: null
 * @param crc32c            the CRC-32C of the batch's IPC message in data.arrow, as an unsigned 32-bit
 *                          value (see {@link BlockMetaJson}); null in a block of writer version 1
 * @param columns           the checksums of the batch's header and of each column's range (writer version 3), so
 *                          that a reader checks only what it reads; null before version 3
 */
public record BatchMeta(
        int index,
        long firstRow,
        int rows,
        long minTimeUnixNano,
        long maxTimeUnixNano,
        Bytes minTraceId,
        Bytes maxTraceId,
        int traceIdNullCount,
        Long minDurationNano,
        Long maxDurationNano,
        Integer minSeverity,
        Integer maxSeverity,
        Integer severityNullCount,
        Long crc32c,
        ColumnChecksums columns) {

    /** The largest CRC-32C: the checksum is an unsigned 32-bit value. */
    public static final long MAX_CRC32C = 0xFFFF_FFFFL;

    /** Checks every fact that a reader relies on to skip the batch; a violation is an {@link IllegalArgumentException}. */
    public BatchMeta {
        if (index < 0) {
            throw new IllegalArgumentException("index (" + index + ") must be >= 0");
        }
        if (crc32c != null && (crc32c < 0 || crc32c > MAX_CRC32C)) {
            throw new IllegalArgumentException("crc32c (" + crc32c + ") must be an unsigned 32-bit value, 0.." + MAX_CRC32C);
        }
        if (rows < 1) {
            throw new IllegalArgumentException("rows (" + rows + ") must be >= 1");
        }
        if (firstRow < 0 || firstRow > Long.MAX_VALUE - rows) {
            throw new IllegalArgumentException("firstRow (" + firstRow + ") must be >= 0 and leave room for the rows");
        }
        if (minTimeUnixNano > maxTimeUnixNano) {
            throw new IllegalArgumentException(
                    "minTimeUnixNano (" + minTimeUnixNano + ") > maxTimeUnixNano (" + maxTimeUnixNano + ")");
        }
        if (traceIdNullCount < 0 || traceIdNullCount > rows) {
            throw new IllegalArgumentException(
                    "traceIdNullCount (" + traceIdNullCount + ") must be between 0 and rows (" + rows + ")");
        }
        if ((minTraceId == null) != (traceIdNullCount == rows) || (maxTraceId == null) != (minTraceId == null)) {
            throw new IllegalArgumentException("minTraceId and maxTraceId must be null exactly when every row's"
                    + " trace id is empty (traceIdNullCount " + traceIdNullCount + ", rows " + rows + ")");
        }
        if (minTraceId != null) {
            if (minTraceId.isEmpty() || maxTraceId.isEmpty()) {
                throw new IllegalArgumentException("minTraceId and maxTraceId must not be empty; no trace id is null");
            }
            if (minTraceId.compareTo(maxTraceId) > 0) {
                throw new IllegalArgumentException("minTraceId (" + minTraceId + ") > maxTraceId (" + maxTraceId + ")");
            }
        }
        if ((minDurationNano == null) != (maxDurationNano == null)) {
            throw new IllegalArgumentException("minDurationNano and maxDurationNano must both be set or both be null");
        }
        if (minDurationNano != null && minDurationNano > maxDurationNano) {
            throw new IllegalArgumentException(
                    "minDurationNano (" + minDurationNano + ") > maxDurationNano (" + maxDurationNano + ")");
        }
        if (severityNullCount == null) {
            if (minSeverity != null || maxSeverity != null) {
                throw new IllegalArgumentException("minSeverity and maxSeverity need a severityNullCount");
            }
        } else {
            if (severityNullCount < 0 || severityNullCount > rows) {
                throw new IllegalArgumentException(
                        "severityNullCount (" + severityNullCount + ") must be between 0 and rows (" + rows + ")");
            }
            if ((minSeverity == null) != (severityNullCount == rows) || (maxSeverity == null) != (minSeverity == null)) {
                throw new IllegalArgumentException("minSeverity and maxSeverity must be null exactly when every row's"
                        + " severity is unspecified (severityNullCount " + severityNullCount + ", rows " + rows + ")");
            }
            if (minSeverity != null && minSeverity > maxSeverity) {
                throw new IllegalArgumentException("minSeverity (" + minSeverity + ") > maxSeverity (" + maxSeverity + ")");
            }
        }
    }

    /** A batch without checksums per column, as writer versions 1 and 2 describe one. */
    public BatchMeta(int index, long firstRow, int rows, long minTimeUnixNano, long maxTimeUnixNano, Bytes minTraceId,
                     Bytes maxTraceId, int traceIdNullCount, Long minDurationNano, Long maxDurationNano,
                     Integer minSeverity, Integer maxSeverity, Integer severityNullCount, Long crc32c) {
        this(index, firstRow, rows, minTimeUnixNano, maxTimeUnixNano, minTraceId, maxTraceId, traceIdNullCount,
                minDurationNano, maxDurationNano, minSeverity, maxSeverity, severityNullCount, crc32c, null);
    }

    /** This batch with checksum {@code crc32c} instead of its own: null for writer version 1. */
    public BatchMeta withCrc32c(Long crc32c) {
        return new BatchMeta(index, firstRow, rows, minTimeUnixNano, maxTimeUnixNano, minTraceId, maxTraceId,
                traceIdNullCount, minDurationNano, maxDurationNano, minSeverity, maxSeverity, severityNullCount, crc32c,
                columns);
    }

    /** This batch with the column checksums {@code columns} instead of its own: null before writer version 3. */
    public BatchMeta withColumns(ColumnChecksums columns) {
        return new BatchMeta(index, firstRow, rows, minTimeUnixNano, maxTimeUnixNano, minTraceId, maxTraceId,
                traceIdNullCount, minDurationNano, maxDurationNano, minSeverity, maxSeverity, severityNullCount, crc32c,
                columns);
    }

    /** The block row just past the batch's last row. */
    public long endRow() {
        return firstRow + rows;
    }
}
