package dev.needle.blocks.store;

import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.Signal;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * Deletes blocks whose every event is older than a cutoff, judged from block names alone: a block's
 * name ends at its latest event rounded up, so a block is deleted only when all of it is older.
 *
 * <p>Blocks written together (the chunks of one ingest cut) form a group, named by the caller's
 * {@code group} function, and a group is deleted only once every block of it is older: deleting one
 * block of a group would make the rest look like a write that did not finish.
 *
 * <p>It holds the tenant's and signal's {@link StoreLocks} lock meanwhile, so that no compaction reads
 * blocks it deletes.
 *
 * <p>Blocks leave the store's index ({@link BlockIndexWriter#remove}) before they are deleted; if that
 * fails, nothing is deleted.
 */
public final class Retention {

    private Retention() {
    }

    /**
     * Deletes the groups of blocks of one tenant and signal whose every block ends before
     * {@code cutoffUnixNano}; returns the deleted blocks in name order.
     */
    public static List<BlockRef> deleteOlderThan(BlockStore store, TenantId tenant, Signal signal,
            long cutoffUnixNano, Function<BlockRef, ?> group) throws IOException {
        ReentrantLock lock = StoreLocks.of(tenant, signal);
        lock.lock();
        try {
            return deleteOlderThanLocked(store, tenant, signal, cutoffUnixNano, group);
        } finally {
            lock.unlock();
        }
    }

    private static List<BlockRef> deleteOlderThanLocked(BlockStore store, TenantId tenant, Signal signal,
            long cutoffUnixNano, Function<BlockRef, ?> group) throws IOException {
        Map<Object, List<BlockRef>> groups = new LinkedHashMap<>();
        for (BlockRef block : store.list(tenant, signal)) {
            groups.computeIfAbsent(group.apply(block), g -> new ArrayList<>()).add(block);
        }
        List<BlockRef> deleted = new ArrayList<>();
        for (List<BlockRef> blocks : groups.values()) {
            if (blocks.stream().allMatch(b -> b.name().endUnixNano() < cutoffUnixNano)) {
                deleted.addAll(blocks);
            }
        }
        if (!deleted.isEmpty() && store.keepsIndex()) {
            // Out of the index first: an index never names a deleted block, only misses one not yet deleted.
            Set<BlockName> names = new HashSet<>();
            deleted.forEach(b -> names.add(b.name()));
            new BlockIndexWriter(store).remove(tenant, signal, names);
        }
        for (BlockRef block : deleted) {
            store.delete(block);
        }
        deleted.sort(null);
        return deleted;
    }

    /** {@link #deleteOlderThan(BlockStore, TenantId, Signal, long, Function)} for every tenant and both signals. */
    public static List<BlockRef> deleteOlderThan(BlockStore store, long cutoffUnixNano, Function<BlockRef, ?> group)
            throws IOException {
        List<BlockRef> deleted = new ArrayList<>();
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                deleted.addAll(deleteOlderThan(store, tenant, signal, cutoffUnixNano, group));
            }
        }
        return deleted;
    }
}
