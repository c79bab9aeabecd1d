package dev.needle.blocks.meta;

import java.util.List;

/**
 * The checksums of one record batch piece by piece (writer version 3), so that a reader can check
 * only what it reads: the batch's message header, and each top-level column's byte range of the
 * body. Column c's range starts at {@code offsets[c]} (relative to the body, which starts right
 * after the header) and runs to {@code offsets[c + 1]}, the last column's to the body's end: so the
 * ranges cover the body whole, padding included, and a column's buffers (its children's too) lie
 * in its own range.
 *
 * @param headerCrc32c the CRC-32C of the batch's message header: the {@code metadataLength} bytes at the
 *                     offset the Arrow footer gives (continuation marker, length, flatbuffer, padding)
 * @param offsets      per top-level column in schema order, where its range starts in the body; the first is 0
 * @param crc32c       per top-level column, the CRC-32C of its range
 */
public record ColumnChecksums(long headerCrc32c, List<Long> offsets, List<Long> crc32c) {

    /** Checks the facts a reader relies on to find the ranges; a violation is an {@link IllegalArgumentException}. */
    public ColumnChecksums {
        offsets = List.copyOf(offsets);
        crc32c = List.copyOf(crc32c);
        checkCrc("headerCrc32c", headerCrc32c);
        if (offsets.isEmpty() || offsets.size() != crc32c.size()) {
            throw new IllegalArgumentException("columnOffsets (" + offsets.size() + ") and columnCrc32c ("
                    + crc32c.size() + ") must list the same columns, at least one");
        }
        if (offsets.get(0) != 0) {
            throw new IllegalArgumentException("columnOffsets[0] (" + offsets.get(0) + ") must be 0: the first column"
                    + " starts the body");
        }
        for (int c = 1; c < offsets.size(); c++) {
            if (offsets.get(c) < offsets.get(c - 1)) {
                throw new IllegalArgumentException("columnOffsets[" + c + "] (" + offsets.get(c) + ") < columnOffsets["
                        + (c - 1) + "] (" + offsets.get(c - 1) + ")");
            }
        }
        for (int c = 0; c < crc32c.size(); c++) {
            checkCrc("columnCrc32c[" + c + "]", crc32c.get(c));
        }
    }

    private static void checkCrc(String name, long value) {
        if (value < 0 || value > BatchMeta.MAX_CRC32C) {
            throw new IllegalArgumentException(name + " (" + value + ") must be an unsigned 32-bit value, 0.."
                    + BatchMeta.MAX_CRC32C);
        }
    }

    /** The number of top-level columns. */
    public int columnCount() {
        return offsets.size();
    }

    /** Where column {@code c}'s range ends in a body of {@code bodyLength} bytes. */
    public long end(int c, long bodyLength) {
        return c + 1 < offsets.size() ? offsets.get(c + 1) : bodyLength;
    }
}
