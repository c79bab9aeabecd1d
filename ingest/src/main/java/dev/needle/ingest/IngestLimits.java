package dev.needle.ingest;

import java.time.Duration;

/**
 * When the head is cut into blocks, and how much it and the write-ahead log may hold.
 *
 * @param blockRows         the most rows in one block; a larger cut writes several
 * @param cutRows           cut the head once it holds this many records
 * @param cutBytes          cut the head once its records take this many write-ahead log bytes
 * @param cutAge            cut the head once its oldest record is this old
 * @param maxHeadBytes      refuse new data (429) while the head holds more than this
 * @param headWait          how long a request waits for a full head to make room (a cut published) before it is refused
 * @param maxWalPendingBytes refuse new data (503) while more than this waits for fsync
 * @param walSegmentBytes   start a new write-ahead log segment after this many bytes
 */
public record IngestLimits(int blockRows, long cutRows, long cutBytes, Duration cutAge, long maxHeadBytes,
                           Duration headWait, long maxWalPendingBytes, long walSegmentBytes) {

    /**
     * How long a request waits for room by default: a cut of half the head is published in about a
     * second, well inside OTLP exporters' timeouts (10 s), and far shorter than the 5 s a refused
     * exporter waits before it sends again.
     */
    public static final Duration HEAD_WAIT = Duration.ofSeconds(2);

    /** The defaults docs/OPERATIONS.md lists. */
    public static final IngestLimits DEFAULTS = new IngestLimits(300_000, 300_000, 128L << 20, Duration.ofMinutes(2),
            256L << 20, HEAD_WAIT, 256L << 20, 64L << 20);

    public IngestLimits {
        if (blockRows < 1 || cutRows < 1 || cutBytes < 1 || cutAge.isNegative() || cutAge.isZero()
                || maxHeadBytes < 1 || headWait.isNegative() || maxWalPendingBytes < 1 || walSegmentBytes < 1) {
            throw new IllegalArgumentException("every ingest limit must be positive: " + this);
        }
    }

    /** Limits with a request waiting {@link #HEAD_WAIT} for room in a full head. */
    public IngestLimits(int blockRows, long cutRows, long cutBytes, Duration cutAge, long maxHeadBytes,
                        long maxWalPendingBytes, long walSegmentBytes) {
        this(blockRows, cutRows, cutBytes, cutAge, maxHeadBytes, HEAD_WAIT, maxWalPendingBytes, walSegmentBytes);
    }
}
