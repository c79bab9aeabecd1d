package dev.needle.blocks.store.reads;

/**
 * Bytes {@code [start, end)} of one file: one read a block reader makes, and so one GET on an
 * object store.
 *
 * @param start the first byte's position
 * @param end   the position after the last byte; at least {@code start}
 */
public record ByteRange(long start, long end) {

    public ByteRange {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("a byte range must have 0 <= start <= end, got " + start + ".." + end);
        }
    }

    /** The number of bytes. */
    public long length() {
        return end - start;
    }
}
