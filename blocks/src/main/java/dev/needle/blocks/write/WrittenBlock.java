package dev.needle.blocks.write;

import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.store.BlockRef;

/** A block just published: where it is and what its meta.json says. */
public record WrittenBlock(BlockRef ref, BlockMeta meta) {
}
