package dev.needle.ingest.head;

import dev.needle.blocks.store.TenantId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the head held when it was cut: every record with a write-ahead log sequence up to
 * {@code maxSequence}, in chunks that are published as one block each. It stays queryable until
 * its blocks are listed.
 *
 * @param maxSequence the last write-ahead log entry the cut holds; every earlier one is in it or in an earlier cut
 * @param chunks      the blocks to publish, each with its id (see {@link CutIds})
 * @param rows        records in all
 * @param heapBytes   the heap bytes its records hold, estimated: what the head's bound counts
 *
 * <p>Cuts are told apart by identity, never by {@code equals}: two cuts' contents may be equal, and
 * comparing them would walk every record.
 */
public record Cut(long maxSequence, List<Chunk> chunks, long rows, long heapBytes) {

    /**
     * The records of one tenant and signal that become the block {@code blockId}.
     *
     * @param tenant  whose records they are
     * @param records spans or log records, at most a block's rows
     * @param blockId the id of the block they are published as
     */
    public record Chunk(TenantId tenant, Records<?> records, String blockId) {
    }

    /**
     * A cut of these records, each tenant's spans and logs cut into blocks of at most {@code blockRows}
     * rows, named as {@code writer}'s (see {@link CutIds}).
     */
    static Cut of(String writer, long maxSequence, Map<TenantId, Records<?>> spans, Map<TenantId, Records<?>> logs,
                  int blockRows, long rows, long heapBytes) {
        // A chunk's share of the cut's heap, by rows: walking every record again would hold the head's lock.
        double heapPerRow = rows == 0 ? 0 : (double) heapBytes / rows;
        List<Chunk> chunks = new ArrayList<>();
        spans.forEach((tenant, records) -> chunk(writer, maxSequence, tenant, records, blockRows, heapPerRow, chunks));
        logs.forEach((tenant, records) -> chunk(writer, maxSequence, tenant, records, blockRows, heapPerRow, chunks));
        return new Cut(maxSequence, List.copyOf(chunks), rows, heapBytes);
    }

    private static void chunk(String writer, long maxSequence, TenantId tenant, Records<?> records, int blockRows,
                              double heapPerRow, List<Chunk> out) {
        // A cut names at most 999 chunks (CutIds): a cut that large gets larger blocks instead.
        int rowsPerBlock = Math.max(blockRows, (records.size() + 998) / 999);
        int count = (records.size() + rowsPerBlock - 1) / rowsPerBlock;
        for (int i = 0; i < count; i++) {
            int from = i * rowsPerBlock;
            int to = Math.min(records.size(), (i + 1) * rowsPerBlock);
            out.add(new Chunk(tenant, records.slice(from, to, Math.round(heapPerRow * (to - from))),
                    CutIds.id(writer, maxSequence, i, count)));
        }
    }
}
