package dev.needle.blocks.write;

import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.Bytes;

/** Accumulates one batch's minimums, maximums and null counts while its rows are written. */
final class ZoneMap {

    private final boolean spans;
    private int rows;
    private long minTime = Long.MAX_VALUE;
    private long maxTime = Long.MIN_VALUE;
    private Bytes minTraceId;
    private Bytes maxTraceId;
    private int traceIdNulls;
    private long minDuration = Long.MAX_VALUE;
    private long maxDuration = Long.MIN_VALUE;
    private int minSeverity = Integer.MAX_VALUE;
    private int maxSeverity = Integer.MIN_VALUE;
    private int severityNulls;

    ZoneMap(boolean spans) {
        this.spans = spans;
    }

    void add(long eventTime, Bytes traceId) {
        rows++;
        minTime = Math.min(minTime, eventTime);
        maxTime = Math.max(maxTime, eventTime);
        if (traceId.isEmpty()) {
            traceIdNulls++;
        } else {
            if (minTraceId == null || traceId.compareTo(minTraceId) < 0) {
                minTraceId = traceId;
            }
            if (maxTraceId == null || traceId.compareTo(maxTraceId) > 0) {
                maxTraceId = traceId;
            }
        }
    }

    void duration(long duration) {
        minDuration = Math.min(minDuration, duration);
        maxDuration = Math.max(maxDuration, duration);
    }

    /** Severity number 0 is "unspecified" and counts as null. */
    void severity(int severity) {
        if (severity == 0) {
            severityNulls++;
        } else {
            minSeverity = Math.min(minSeverity, severity);
            maxSeverity = Math.max(maxSeverity, severity);
        }
    }

    long minTime() {
        return minTime;
    }

    long maxTime() {
        return maxTime;
    }

    /** The batch's meta: its row range, these zone maps, and the checksum of its bytes as written. */
    BatchMeta toMeta(int index, long firstRow, long crc32c) {
        boolean anySeverity = severityNulls < rows;
        return new BatchMeta(index, firstRow, rows, minTime, maxTime, minTraceId, maxTraceId, traceIdNulls,
                spans ? minDuration : null, spans ? maxDuration : null,
                !spans && anySeverity ? minSeverity : null, !spans && anySeverity ? maxSeverity : null,
                spans ? null : severityNulls, crc32c);
    }
}
