package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.BloomSidecar;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;

/**
 * What a server does before its first query so that the query does not pay for it: reads the
 * stores' indexes and the sidecars into memory, and picks a trace to look up, so that the read
 * path's classes are loaded.
 */
final class WarmUp {

    /** A trace of a tenant. */
    record TraceOf(TenantId tenant, Bytes traceId) {
    }

    private final BlockStore store;
    private final BlockCatalog catalog;
    private final SidecarCache cache;
    private final BufferAllocator allocator;

    WarmUp(BlockStore store, BlockCatalog catalog, SidecarCache cache, BufferAllocator allocator) {
        this.store = store;
        this.catalog = catalog;
        this.cache = cache;
        this.allocator = allocator;
    }

    /** Reads the indexes and sidecars into memory as {@link QueryEngine#preloadSidecars} says; how many sidecars are held. */
    int preloadSidecars() throws IOException {
        List<BlockRef> blocks = new ArrayList<>();
        Set<BlockRef> indexed = new HashSet<>();
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                BlockCatalog.Known known = catalog.blocks(tenant, signal, true);
                blocks.addAll(known.blocks());
                known.blocks().stream().filter(b -> known.indexed().containsKey(b.name())).forEach(indexed::add);
            }
        }
        cache.reserve(catalog.bytes());
        blocks.sort(Comparator.comparingLong((BlockRef b) -> b.name().endUnixNano()).reversed());
        int held = 2 * indexed.size();
        for (List<String> files : List.of(List.of(BloomSidecar.TRACE_IDX, BloomSidecar.ATTR_IDX),
                List.of(BloomSidecar.BATCH_ATTR_IDX))) {
            for (BlockRef ref : blocks) {
                if (files.size() == 2 && indexed.contains(ref)) {
                    continue;
                }
                for (String file : files) {
                    if (!cache.preload(ref, file, () -> BlockReader.readSidecar(store, ref, file))) {
                        return held;
                    }
                    held++;
                }
            }
        }
        return held;
    }

    /**
     * The trace to look up: the smallest id of the newest span block's first batch, which its
     * meta.json names, so that finding it reads nothing more; of the first tenant with such a block.
     */
    Optional<TraceOf> trace() throws IOException {
        for (TenantId tenant : store.tenants()) {
            List<BlockRef> blocks = store.list(tenant, Signal.SPANS);
            if (blocks.isEmpty()) {
                continue;
            }
            Bytes traceId;
            try (BlockReader reader = BlockReader.open(store, blocks.get(blocks.size() - 1), allocator)) {
                traceId = reader.meta().filter(m -> !m.batches().isEmpty())
                        .map(m -> m.batches().get(0).minTraceId()).orElse(null);
            }
            if (traceId != null) {
                return Optional.of(new TraceOf(tenant, traceId));
            }
        }
        return Optional.empty();
    }
}
