package dev.needle.query.engine;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import java.io.IOException;
import java.util.Arrays;
import java.util.function.Predicate;

/** A block's COUNTS as a metrics query reads it: the decoded file and the bytes it cost. */
record CountsFile(BlockCounts counts, long bytes) {

    /**
     * Block {@code ref}'s COUNTS when {@code usable} accepts it, or null when the block must be read instead: no
     * file, a damaged one, one past the size a reader takes, or one the query cannot use.
     */
    static CountsFile read(BlockStore store, BlockRef ref, Predicate<BlockCounts> usable) {
        try {
            byte[] bytes = DerivedFile.read(store, ref, BlockCounts.FILE,
                    BlockCounts.HEADER_BYTES + (long) BlockCounts.MAX_BODY_BYTES);
            if (bytes == null) {
                return null;
            }
            BlockCounts counts = BlockCounts.decode(bytes, ref + "/" + BlockCounts.FILE);
            return usable.test(counts) ? new CountsFile(counts, bytes.length) : null;
        } catch (IOException | RuntimeException e) {
            // Derived data, like a sidecar: whatever is wrong with it, the block itself still answers.
            return null;
        }
    }

    /** The block's decision: not opened, its records counted as scanned (Tempo's inspectedSpans). */
    BlockDecision decision(BlockRef ref) {
        long records = Arrays.stream(counts.rows().count()).sum();
        return new BlockDecision(ref.name().toString(), BlockDecision.Step.COUNTS, true,
                records + " records in " + counts.rows().size() + " rows of COUNTS", null, 0, 0, records, 0, bytes,
                bytes, 1);
    }
}
