package dev.needle.blocks.cli;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.index.BlockCounts.CorruptCountsException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code inspect} says of a block's COUNTS file: its size, its rows and groups when it reads back intact,
 * else what is wrong with it. A missing file is no problem: blocks written before COUNTS existed, or with too
 * many groups for one, have none, and metrics queries read their records.
 *
 * @param bytes   the file's size, 0 when missing
 * @param rows    its row count when it decodes, else null
 * @param groups  its group count when it decodes, else null
 * @param problem why it does not decode (with the file's own words), null when it does or is missing
 */
record CountsCheck(long bytes, Integer rows, Integer groups, String problem) {

    /** Reads and decodes {@code blockDir}'s COUNTS; never throws for what is in the file. */
    static CountsCheck of(Path blockDir) {
        Report.DerivedRead read = Report.readDerived(blockDir.resolve(BlockCounts.FILE),
                BlockCounts.HEADER_BYTES + (long) BlockCounts.MAX_BODY_BYTES, "COUNTS");
        if (read.bytes() == null) {
            return new CountsCheck(read.size(), null, null, read.problem());
        }
        try {
            BlockCounts counts = BlockCounts.decode(read.bytes(), BlockCounts.FILE);
            return new CountsCheck(read.size(), counts.rows().size(), counts.groups().size(), null);
        } catch (CorruptCountsException e) {
            return new CountsCheck(read.size(), null, null, e.getMessage());
        }
    }

    /** This check as a report row. */
    Map<String, Object> row() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", BlockCounts.FILE);
        m.put("bytes", bytes);
        m.put("rows", rows);
        m.put("groups", groups);
        m.put("verdict", problem != null ? "damaged: " + problem
                : rows == null ? "missing (metrics queries read the block)" : "verified");
        return m;
    }
}
