package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Deletes blocks whose every event is older than a cutoff, judged from block names alone: a block's
 * name ends at its latest event rounded up, so a block is deleted only when all of it is older.
 */
public final class Retention {

    private Retention() {
    }

    /** Deletes the blocks of one tenant and signal whose end time is before {@code cutoffUnixNano}; returns them. */
    public static List<BlockRef> deleteOlderThan(BlockStore store, TenantId tenant, Signal signal,
            long cutoffUnixNano) throws IOException {
        List<BlockRef> deleted = new ArrayList<>();
        for (BlockRef block : store.list(tenant, signal)) {
            if (block.name().endUnixNano() < cutoffUnixNano) {
                store.delete(block);
                deleted.add(block);
            }
        }
        return deleted;
    }

    /** Deletes the blocks of every tenant and both signals whose end time is before {@code cutoffUnixNano}. */
    public static List<BlockRef> deleteOlderThan(BlockStore store, long cutoffUnixNano) throws IOException {
        List<BlockRef> deleted = new ArrayList<>();
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                deleted.addAll(deleteOlderThan(store, tenant, signal, cutoffUnixNano));
            }
        }
        return deleted;
    }
}
