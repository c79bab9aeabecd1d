package dev.needle.bench;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What one signal of a data directory holds, summed from its blocks' meta.json: blocks, rows,
 * data bytes and sidecar bytes, so that sidecar overhead is a share of the data it indexes.
 */
public record StoreFacts(Signal signal, int blocks, long rows, long dataBytes, long traceIdxBytes, long attrIdxBytes) {

    /** Sums the blocks of {@code tenant}'s {@code signal} under {@code data}. */
    public static StoreFacts of(Path data, TenantId tenant, Signal signal) throws IOException {
        FsBlockStore store = FsBlockStore.readOnly(data);
        int blocks = 0;
        long rows = 0;
        long dataBytes = 0;
        long traceIdx = 0;
        long attrIdx = 0;
        for (BlockRef ref : store.list(tenant, signal)) {
            BlockMeta meta = BlockMetaJson.read(Files.readAllBytes(store.blockDir(ref).resolve(BlockLayout.META)));
            blocks++;
            rows += meta.rows();
            dataBytes += meta.dataBytes();
            traceIdx += meta.traceIdxBytes();
            attrIdx += meta.attrIdxBytes();
        }
        return new StoreFacts(signal, blocks, rows, dataBytes, traceIdx, attrIdx);
    }

    /** TRACE_IDX bytes as a share of data.arrow bytes. */
    public double traceIdxShare() {
        return dataBytes == 0 ? 0 : (double) traceIdxBytes / dataBytes;
    }

    /** ATTR_IDX bytes as a share of data.arrow bytes. */
    public double attrIdxShare() {
        return dataBytes == 0 ? 0 : (double) attrIdxBytes / dataBytes;
    }
}
