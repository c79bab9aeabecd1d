package dev.needle.blocks.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Random OTLP-shaped records written as a block and read back equal, field by field, in the writer's order. */
class BlockRoundTripTest {

    @TempDir
    Path dir;
    private BufferAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    @Test
    void writeSpans_randomRecords_readBackEqualFieldByField() throws IOException {
        List<SpanRecord> spans = new RandomRecords(1).spans(2_500);
        WrittenBlock block = new BlockWriter(store, allocator, 1000).writeSpans(TenantId.DEFAULT, spans);
        assertEquals(3, block.meta().batches().size());

        List<SpanRecord> expected = new ArrayList<>(spans);
        expected.sort(Comparator.comparing(SpanRecord::traceId).thenComparingLong(SpanRecord::startTimeUnixNano));
        List<SpanRecord> actual = new ArrayList<>();
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    SpanColumns columns = new SpanColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        actual.add(columns.read(row));
                    }
                }
            }
        }
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), "row " + i);
        }
    }

    @Test
    void writeLogs_randomRecords_readBackEqualFieldByField() throws IOException {
        List<LogRecord> logs = new RandomRecords(2).logs(2_100);
        WrittenBlock block = new BlockWriter(store, allocator, 700).writeLogs(TenantId.of("team-a"), logs);
        assertEquals(Signal.LOGS, block.ref().signal());

        List<LogRecord> expected = new ArrayList<>(logs);
        expected.sort(Comparator.comparingLong(LogRecord::eventTimeUnixNano));
        List<LogRecord> actual = new ArrayList<>();
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    LogColumns columns = new LogColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        actual.add(columns.read(row));
                    }
                }
            }
        }
        assertEquals(expected, actual);
    }

    @Test
    void read_oneColumnOfOneBatch_readsFarLessThanTheBlock() throws IOException {
        List<SpanRecord> spans = new RandomRecords(3).spans(20_000);
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long opened = reader.bytesRead();
            BatchMeta first = block.meta().batches().get(0);
            try (VectorSchemaRoot root = reader.read(1, List.of(SpanColumns.TRACE_ID))) {
                assertEquals(1, root.getFieldVectors().size());
                assertEquals(block.meta().batches().get(1).rows(), root.getRowCount());
            }
            long oneColumn = reader.bytesRead() - opened;
            // 8192 trace ids of 16 bytes, their validity bits, and the batch's message header.
            assertTrue(oneColumn < 8192 * 16 + 64 * 1024, "read " + oneColumn + " bytes for one column");
            assertTrue(oneColumn * 20 < block.meta().dataBytes(), oneColumn + " of " + block.meta().dataBytes());
            assertTrue(first.rows() == BlockWriter.MAX_BATCH_ROWS);
        }
    }
}
