package dev.needle.blocks.cli;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.BlockTags.CorruptTagsException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@code inspect} says of a block's TAGS file: its size, its version and key count when it
 * reads back intact, else what is wrong with it. A missing file is no problem: blocks written
 * before TAGS existed, or with too many keys for one, have none, and readers scan them.
 *
 * @param bytes   the file's size, 0 when missing
 * @param version its version when it decodes, else null
 * @param keys    its key count when it decodes, else null
 * @param problem why it does not decode (with the file's own words), null when it does or is missing
 */
record TagsCheck(long bytes, Integer version, Integer keys, String problem) {

    /** Reads and decodes {@code blockDir}'s TAGS; never throws for what is in the file. */
    static TagsCheck of(Path blockDir) {
        Report.DerivedRead read = Report.readDerived(blockDir.resolve(BlockTags.FILE),
                BlockTags.HEADER_BYTES + (long) BlockTags.MAX_BODY_BYTES, "TAGS");
        byte[] bytes = read.bytes();
        if (bytes == null) {
            return new TagsCheck(read.size(), null, null, read.problem());
        }
        try {
            BlockTags tags = BlockTags.decode(bytes, BlockTags.FILE);
            return new TagsCheck(bytes.length, tags.version(), tags.keys().size(), null);
        } catch (CorruptTagsException e) {
            return new TagsCheck(bytes.length, null, null, e.getMessage());
        }
    }

    /** The verdict in words: verified, missing, or damaged with its reason. */
    String verdict() {
        if (problem != null) {
            return "damaged: " + problem;
        }
        return version == null ? "missing (the block is scanned for tags)" : "verified";
    }

    /** This check as a report row. */
    Map<String, Object> row() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("file", BlockTags.FILE);
        m.put("bytes", bytes);
        m.put("version", version);
        m.put("keys", keys);
        m.put("events_and_links", version == null ? null : version >= BlockTags.VERSION_2);
        m.put("verdict", verdict());
        return m;
    }
}
