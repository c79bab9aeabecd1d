package dev.needle.blocks.write;

import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.store.BlockRef;

/**
 * A block just published: where it is, what its meta.json says, and the size of its
 * BATCH_ATTR_IDX (0 when none was written), which meta.json does not record.
 */
public record WrittenBlock(BlockRef ref, BlockMeta meta, long batchAttrIdxBytes) {

    /** The bytes of all its sidecars: TRACE_IDX, ATTR_IDX and BATCH_ATTR_IDX. */
    public long sidecarBytes() {
        return meta.traceIdxBytes() + meta.attrIdxBytes() + batchAttrIdxBytes;
    }
}
