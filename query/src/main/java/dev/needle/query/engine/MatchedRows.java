package dev.needle.query.engine;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of one block that a target matched, batch by batch, and their decoding. Without a
 * limit every matched row is kept; with one, only the newest {@code limit} by the target's time
 * column, so that a search decodes what it can return and no more.
 */
final class MatchedRows<R> implements AutoCloseable {

    /** A matched row and its time, for the limit's selection. */
    private record Row(long time, int batch, int row) {
    }

    private final Target<R> target;
    private final int limit;
    private final Set<String> columns;
    /** Without a limit: every matched row, by batch. */
    private final Map<Integer, RoaringBitmap> all = new TreeMap<>();
    /** With a limit: the newest matched rows, at most {@code limit}, oldest at the head. */
    private final PriorityQueue<Row> newest = new PriorityQueue<>((a, b) -> Long.compare(a.time(), b.time()));
    /** Batches read whole that matched, kept to decode their rows from. */
    private final Map<Integer, VectorSchemaRoot> whole = new TreeMap<>();
    private long count;

    /** Rows of {@code target}; {@code limit} is {@link Integer#MAX_VALUE} for all of them. */
    MatchedRows(Target<R> target, int limit) {
        this.target = target;
        this.limit = limit;
        Set<String> read = new HashSet<>(target.predicateColumns());
        if (limited()) {
            read.add(target.timeColumn());
        }
        this.columns = read;
    }

    private boolean limited() {
        return limit != Integer.MAX_VALUE;
    }

    /** The columns a batch's predicate is tested on (with a limit, the time column too). */
    Set<String> columns() {
        return columns;
    }

    /** Rows matched so far. */
    long count() {
        return count;
    }

    /** Whether {@code limit} rows newer than {@code maxTime} are known: a batch no newer cannot add to the answer. */
    boolean complete(long maxTime) {
        return limited() && newest.size() >= limit && maxTime < newest.peek().time();
    }

    /**
     * Tests one batch (holding {@link #columns}, or every column when {@code wholeBatch}) and keeps
     * its matches; takes {@code columns} over, and keeps a whole batch that matched to decode from.
     */
    void add(int batch, VectorSchemaRoot columns, boolean wholeBatch) throws CorruptValueException {
        try {
            RoaringBitmap rows = target.matchingRows(columns);
            count += rows.getCardinality();
            if (rows.isEmpty()) {
                return;
            }
            keep(batch, columns, rows);
            if (wholeBatch) {
                whole.put(batch, columns);
                columns = null;
            }
        } finally {
            if (columns != null) {
                columns.close();
            }
        }
    }

    private void keep(int batch, VectorSchemaRoot columns, RoaringBitmap rows) {
        if (!limited()) {
            all.put(batch, rows);
            return;
        }
        BigIntVector times = (BigIntVector) columns.getVector(target.timeColumn());
        for (int row : rows) {
            long time = times.get(row);
            if (newest.size() < limit) {
                newest.add(new Row(time, batch, row));
            } else if (time > newest.peek().time()) {
                newest.poll();
                newest.add(new Row(time, batch, row));
            }
        }
    }

    /**
     * The kept rows, decoded, batch by batch (each batch read whole once); the batches not kept whole
     * are fetched ahead all at once ({@link ReadAhead}).
     */
    List<R> decode(BlockReader reader) throws CorruptBlockException, CorruptValueException {
        Map<Integer, RoaringBitmap> byBatch = all;
        if (limited()) {
            byBatch = new TreeMap<>();
            for (Row r : newest) {
                byBatch.computeIfAbsent(r.batch(), b -> new RoaringBitmap()).add(r.row());
            }
        }
        List<Integer> toRead = byBatch.keySet().stream().filter(b -> !whole.containsKey(b)).toList();
        ReadAhead ahead = new ReadAhead(reader, toRead, null, false);
        List<R> records = new ArrayList<>();
        for (Map.Entry<Integer, RoaringBitmap> e : byBatch.entrySet()) {
            VectorSchemaRoot read = whole.remove(e.getKey());
            if (read == null) {
                ahead.before(e.getKey());
            }
            try (VectorSchemaRoot batch = read != null ? read : reader.readAll(e.getKey())) {
                Target.RowDecoder<R> decoder = target.decoder(batch);
                for (int row : e.getValue()) {
                    records.add(decoder.decode(row));
                }
            }
        }
        return records;
    }

    /** Releases the batches kept whole that were not decoded. */
    @Override
    public void close() {
        whole.values().forEach(VectorSchemaRoot::close);
        whole.clear();
    }
}
