package dev.needle.query.engine;

import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;

/**
 * Fetches the batches a scan of one block will read before it reads them ({@link BlockReader#fetchAhead}):
 * which those are (time range, zone maps, BATCH_ATTR_IDX) is known before the first is read, and only a
 * limit may stop the scan early. Without a limit all are fetched at once; with one, in waves whose size
 * doubles (1, 2, 4, …), so that a scan its limit stops has fetched at most about twice what it read,
 * and one of n batches costs about log2 n round trips instead of n. On a store where a read is no request
 * (the local one) fetching is a no-op, and so is this.
 */
final class ReadAhead {

    private final BlockReader reader;
    private final List<Integer> batches;
    private final Collection<String> columns;
    private final boolean doubling;
    /** Each batch's place in {@link #batches}, or −1. */
    private final int[] place;
    /** The batches before this place are fetched. */
    private int fetched;
    private int wave = 1;

    /**
     * Fetches ahead, for {@code reader}, {@code columns} (null: every column) of {@code batches}, in the
     * order the scan reads them; in doubling waves when {@code limited}, else all at once.
     */
    ReadAhead(BlockReader reader, List<Integer> batches, Collection<String> columns, boolean limited) {
        this.reader = reader;
        this.batches = batches;
        this.columns = columns;
        this.doubling = limited;
        this.place = new int[reader.batchCount()];
        Arrays.fill(place, -1);
        for (int i = 0; i < batches.size(); i++) {
            place[batches.get(i)] = i;
        }
    }

    /** Called before batch {@code batch} (one of the batches) is read: fetches it, and the wave it starts, unless fetched. */
    void before(int batch) throws CorruptBlockException {
        int at = place[batch];
        if (at < fetched) {
            return;
        }
        int size = doubling ? wave : batches.size() - at;
        fetched = at + reader.fetchAhead(batches.subList(at, Math.min(batches.size(), at + size)), columns);
        wave = Math.min(wave * 2, batches.size());
    }
}
