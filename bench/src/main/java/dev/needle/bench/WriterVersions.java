package dev.needle.bench;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Blocks as an earlier writer version wrote them, for benchmarks that compare how each is read:
 * data.arrow is the same in versions 1 to 4, so rewriting meta.json is enough.
 */
final class WriterVersions {

    private WriterVersions() {
    }

    /** Rewrites the meta.json of {@code ref}, written by the current writer, as writer version {@code version} writes it. */
    static void rewrite(FsBlockStore store, BlockRef ref, int version) throws IOException {
        Verify.that(version >= BlockMeta.WRITER_VERSION_1 && version <= BlockMeta.WRITER_VERSION_CURRENT,
                "writerVersion %d is not one of 1..%d", version, BlockMeta.WRITER_VERSION_CURRENT);
        Path file = store.blockDir(ref).resolve(BlockLayout.META);
        BlockMeta m = BlockMetaJson.read(Files.readAllBytes(file));
        List<BatchMeta> batches = m.batches().stream()
                .map(b -> b.withColumns(version >= BlockMeta.WRITER_VERSION_3 ? b.columns() : null)
                        .withCrc32c(version >= BlockMeta.WRITER_VERSION_2 ? b.crc32c() : null))
                .toList();
        Files.write(file, BlockMetaJson.write(new BlockMeta(version, m.signal(), m.rows(), m.dataBytes(),
                m.minTimeUnixNano(), m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), batches)));
    }
}
