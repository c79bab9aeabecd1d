package dev.needle.corpus;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/** Every record of a data directory, read back block by block, batch by batch: what the manifest is checked against. */
public final class FullScan {

    /** The spans, block by block. */
    public final List<SpanRecord> spans = new ArrayList<>();
    /** The log records, block by block. */
    public final List<LogRecord> logs = new ArrayList<>();

    /** Reads every block of {@code tenant} under {@code data}. */
    public static FullScan of(Path data, TenantId tenant) throws Exception {
        FullScan scan = new FullScan();
        FsBlockStore store = FsBlockStore.readOnly(data);
        try (BufferAllocator allocator = new RootAllocator()) {
            for (Signal signal : Signal.values()) {
                for (BlockRef ref : store.list(tenant, signal)) {
                    try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                        for (int b = 0; b < reader.batchCount(); b++) {
                            try (VectorSchemaRoot root = reader.readAll(b)) {
                                if (signal == Signal.SPANS) {
                                    SpanColumns columns = new SpanColumns(root);
                                    for (int row = 0; row < root.getRowCount(); row++) {
                                        scan.spans.add(columns.read(row));
                                    }
                                } else {
                                    LogColumns columns = new LogColumns(root);
                                    for (int row = 0; row < root.getRowCount(); row++) {
                                        scan.logs.add(columns.read(row));
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return scan;
    }
}
