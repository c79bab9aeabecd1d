package dev.needle.blocks;

import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Blocks as writer version 1 wrote them. Version 2 changed only meta.json (a checksum per batch),
 * not data.arrow, so a block written now becomes one of version 1 when its meta.json is rewritten
 * without the checksums: the golden blocks of both versions show the data.arrow bytes are the same.
 */
public final class Version1Blocks {

    private Version1Blocks() {
    }

    /** Rewrites the meta.json of the block in {@code blockDir} as version 1 wrote it; returns the new meta. */
    public static BlockMeta downgrade(Path blockDir) throws IOException {
        Path file = blockDir.resolve(BlockLayout.META);
        BlockMeta m = BlockMetaJson.read(Files.readAllBytes(file));
        List<BatchMeta> batches = m.batches().stream().map(b -> b.withCrc32c(null).withColumns(null)).toList();
        BlockMeta v1 = new BlockMeta(BlockMeta.WRITER_VERSION_1, m.signal(), m.rows(), m.dataBytes(),
                m.minTimeUnixNano(), m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), batches);
        Files.write(file, BlockMetaJson.write(v1));
        return v1;
    }

    /**
     * Rewrites the meta.json of the block in {@code blockDir} as version 2 wrote it: one checksum per
     * batch, none per column, so that a reader checks each batch whole; returns the new meta.
     */
    public static BlockMeta toVersion2(Path blockDir) throws IOException {
        Path file = blockDir.resolve(BlockLayout.META);
        BlockMeta m = BlockMetaJson.read(Files.readAllBytes(file));
        List<BatchMeta> batches = m.batches().stream().map(b -> b.withColumns(null)).toList();
        BlockMeta v2 = new BlockMeta(BlockMeta.WRITER_VERSION_2, m.signal(), m.rows(), m.dataBytes(),
                m.minTimeUnixNano(), m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), batches);
        Files.write(file, BlockMetaJson.write(v2));
        return v2;
    }
}
