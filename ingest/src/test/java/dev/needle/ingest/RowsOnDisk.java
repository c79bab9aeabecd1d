package dev.needle.ingest;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.LiveBlocks;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import org.apache.arrow.memory.RootAllocator;

/**
 * Rows in the published blocks that answer queries (those no other block replaces: see {@link LiveBlocks})
 * as their meta.json count them: a record published twice counts twice.
 */
public final class RowsOnDisk {

    private RowsOnDisk() {
    }

    /** The rows of {@code tenant}'s span blocks in {@code store}. */
    public static long spans(BlockStore store, TenantId tenant) throws IOException {
        long rows = 0;
        try (RootAllocator allocator = new RootAllocator()) {
            for (BlockRef block : new LiveBlocks(store).live(store.list(tenant, Signal.SPANS))) {
                try (BlockReader reader = BlockReader.open(store, block, allocator)) {
                    rows += reader.meta().orElseThrow().rows();
                }
            }
        }
        return rows;
    }
}
