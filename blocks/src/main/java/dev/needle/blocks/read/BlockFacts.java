package dev.needle.blocks.read;

import dev.needle.blocks.meta.BlockMeta;
import java.util.List;
import java.util.Objects;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/**
 * What opening a block learns before it reads a batch: its meta.json and where data.arrow's
 * footer places each record batch. A published block never changes, so a reader may keep these
 * and open the block again without reading either ({@link BlockReader#open(dev.needle.blocks.store.BlockStore,
 * dev.needle.blocks.store.BlockRef, org.apache.arrow.memory.BufferAllocator, BlockFacts)}).
 *
 * @param meta    the block's meta.json, checked against data.arrow (its size, its batch count)
 * @param batches the record batches the footer lists, in file order
 */
public record BlockFacts(BlockMeta meta, List<ArrowBlock> batches) {

    /** About what a {@link BlockMeta} batch and a footer entry hold on the heap, with their objects. */
    private static final long BYTES_PER_BATCH = 320;
    private static final long BYTES_PER_BLOCK = 256;
    /** A column's offset and checksum in a batch of writer version 3: two boxed longs and their references. */
    private static final long BYTES_PER_COLUMN = 48;

    public BlockFacts {
        Objects.requireNonNull(meta, "meta");
        batches = List.copyOf(batches);
    }

    /** An estimate of the heap these facts hold, for a cache's bound. */
    public long sizeInBytes() {
        long columns = meta.batches().stream().mapToLong(b -> b.columns() == null ? 0 : b.columns().columnCount()).sum();
        return BYTES_PER_BLOCK + BYTES_PER_BATCH * batches.size() + BYTES_PER_COLUMN * columns;
    }
}
