package dev.needle.blocks.meta;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The records refuse, at construction, what the reader would refuse: a writer cannot write a meta.json that reads back corrupt. */
class BlockMetaTest {

    private static BatchMeta spanBatch(int index, long firstRow, int rows) {
        return new BatchMeta(index, firstRow, rows, 10, 20, Bytes.fromHex("01"), Bytes.fromHex("02"), 0, 1L, 2L,
                null, null, null, null);
    }

    @Test
    void blockMeta_batchesNotCoveringTheRows_refused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new BlockMeta(1, Signal.SPANS,
                5, 0, 10, 20, 0, 0, 0, 0, 0, List.of(spanBatch(0, 0, 2), spanBatch(1, 2, 2))));
        assertTrue(e.getMessage().contains("the batches hold 4 rows, the block 5"), e.getMessage());
    }

    @Test
    void blockMeta_batchGap_refused() {
        assertThrows(IllegalArgumentException.class, () -> new BlockMeta(1, Signal.SPANS,
                4, 0, 10, 20, 0, 0, 0, 0, 0, List.of(spanBatch(0, 0, 2), spanBatch(1, 3, 1))));
    }

    @Test
    void blockMeta_unknownWriterVersion_refused() {
        assertThrows(IllegalArgumentException.class, () -> new BlockMeta(BlockMeta.WRITER_VERSION_CURRENT + 1,
                Signal.SPANS, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of()));
    }

    @Test
    void blockMeta_batches_copied() {
        List<BatchMeta> batches = new ArrayList<>(List.of(spanBatch(0, 0, 2)));
        BlockMeta meta = new BlockMeta(1, Signal.SPANS, 2, 0, 10, 20, 1, 0, 0, 0, 0, batches);
        batches.clear();
        assertEquals(1, meta.batches().size());
        assertThrows(UnsupportedOperationException.class, () -> meta.batches().clear());
    }

    @Test
    void batchMeta_endRow_isFirstRowPlusRows() {
        assertEquals(8192 + 7, spanBatch(1, 8192, 7).endRow());
    }

    @Test
    void batchMeta_rowsPastLongMax_refused() {
        assertThrows(IllegalArgumentException.class, () -> spanBatch(0, Long.MAX_VALUE - 1, 2));
    }

    @Test
    void batchMeta_severityWithoutNullCount_refused() {
        assertThrows(IllegalArgumentException.class,
                () -> new BatchMeta(0, 0, 1, 0, 0, null, null, 1, null, null, 3, 3, null, null));
    }
}
