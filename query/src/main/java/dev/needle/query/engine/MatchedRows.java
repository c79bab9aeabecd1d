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
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The rows of one block that a target matched, batch by batch, and their decoding.
 *
 * <p>A lookup (no limit) keeps and decodes every matched row. A search offers what it decodes to the
 * search's {@link FirstRecords}, shared by every block it reads: of a block it keeps only the positions
 * of the first {@code limit} matched rows in the search's order (by the target's time column), never
 * those that cannot pass what the search holds already, and decodes only those.
 *
 * <p>When the target judges decoded records ({@link RecordFilter#record}), a batch's matched rows are
 * decoded as the batch is read and judged at once; only those that pass are kept or offered. Every record
 * a lookup keeps is reserved in the query's {@link QueryBudget}.
 *
 * <p>A visit (a {@code visitor}) keeps nothing: each batch's matched rows are decoded as the batch is read
 * and handed to the visitor, those that pass the judge if there is one.
 */
final class MatchedRows<R> implements AutoCloseable {

    /** A matched row and its rank in the search's order. */
    private record Row(long rank, int batch, int row) {
    }

    private final Target<R> target;
    private final QueryBudget budget;
    private final BlockReader reader;
    /** The search's first records; null for a lookup, which keeps every match. */
    private final FirstRecords<R> first;
    /** How many positions of this block a search keeps: its limit, or all when a duplicate made it read them all. */
    private final int positions;
    /** A visit's receiver of every match; null for a lookup or a search. */
    private final Consumer<R> visitor;
    private final Predicate<R> judge;
    private final Set<String> columns;
    /** A lookup's matched rows, by batch. */
    private final Map<Integer, RoaringBitmap> all = new TreeMap<>();
    /** A search's first matched rows of this block, at most {@link #positions}, the last in order at the head. */
    private final PriorityQueue<Row> firstRows = new PriorityQueue<>((a, b) -> Long.compare(a.rank(), b.rank()));
    /** A lookup's records that its judge passed. */
    private final List<R> judged = new ArrayList<>();
    /** Batches read whole that matched, kept to decode their rows from. */
    private final Map<Integer, VectorSchemaRoot> whole = new TreeMap<>();
    private long count;
    private long decoded;
    private boolean duplicates;

    /**
     * Rows of {@code target} in {@code reader}'s block: for a lookup ({@code first} null) all of them, for
     * a search those that may be among {@code first}, at most {@code positions} of this block.
     */
    MatchedRows(Target<R> target, QueryBudget budget, BlockReader reader, FirstRecords<R> first, int positions) {
        this(target, budget, reader, first, positions, null);
    }

    /** Rows of {@code target} in {@code reader}'s block, each decoded as its batch is read and handed to {@code visitor}. */
    MatchedRows(Target<R> target, QueryBudget budget, BlockReader reader, Consumer<R> visitor) {
        this(target, budget, reader, null, Integer.MAX_VALUE, visitor);
    }

    private MatchedRows(Target<R> target, QueryBudget budget, BlockReader reader, FirstRecords<R> first, int positions,
                        Consumer<R> visitor) {
        this.target = target;
        this.budget = budget;
        this.reader = reader;
        this.first = first;
        this.positions = positions;
        this.visitor = visitor;
        this.judge = target.filter().record();
        Set<String> read = new HashSet<>(target.predicateColumns());
        if (first != null) {
            read.add(target.timeColumn());
        }
        this.columns = read;
    }

    /** The columns a batch's predicate is tested on (for a search, the time column too). */
    Set<String> columns() {
        return columns;
    }

    /** Rows matched so far (and, when records are judged, that passed). */
    long count() {
        return count;
    }

    /** Records decoded so far. */
    long decoded() {
        return decoded;
    }

    /**
     * Whether a search may have left records of this block out: it kept as many positions as it may and
     * found records among them kept already ({@link FirstRecords#same}), so that rows past them may hold
     * others.
     */
    boolean mayHaveMissed() {
        return duplicates && firstRows.size() >= positions;
    }

    /** Whether no record of rank {@code bestRank} or below can be among the search's first: a batch no better adds nothing. */
    boolean complete(long bestRank) {
        return first != null && (bestRank <= first.floor()
                || firstRows.size() >= positions && bestRank < firstRows.peek().rank());
    }

    /**
     * Tests one batch (holding {@link #columns}, or every column when {@code wholeBatch}) and keeps
     * its matches; takes {@code columns} over, and keeps a whole batch that matched to decode from.
     */
    void add(int batch, VectorSchemaRoot columns, boolean wholeBatch) throws CorruptBlockException, CorruptValueException {
        try {
            RoaringBitmap rows = target.matchingRows(columns);
            if (rows.isEmpty()) {
                return;
            }
            if (judge != null || visitor != null) {
                judge(batch, columns, wholeBatch, rows);
                return;
            }
            count += rows.getCardinality();
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
        if (first == null) {
            all.put(batch, rows);
            return;
        }
        BigIntVector times = (BigIntVector) columns.getVector(target.timeColumn());
        long floor = first.floor();
        for (int row : rows) {
            long rank = first.order().rank(times.get(row));
            if (rank <= floor) {
                continue;
            }
            if (firstRows.size() < positions) {
                firstRows.add(new Row(rank, batch, row));
            } else if (rank > firstRows.peek().rank()) {
                firstRows.poll();
                firstRows.add(new Row(rank, batch, row));
            }
        }
    }

    /**
     * Decodes and judges (when there is a judge) the matched rows of a batch now: a lookup keeps those that
     * pass, a search offers them, a visit hands them over.
     */
    private void judge(int batch, VectorSchemaRoot columns, boolean wholeBatch, RoaringBitmap rows)
            throws CorruptBlockException, CorruptValueException {
        BigIntVector times = first == null ? null : (BigIntVector) columns.getVector(target.timeColumn());
        try (VectorSchemaRoot read = wholeBatch ? null : reader.readAll(batch)) {
            Target.RowDecoder<R> decoder = target.decoder(wholeBatch ? columns : read);
            for (int row : rows) {
                if (times != null && first.order().rank(times.get(row)) <= first.floor()) {
                    continue;
                }
                R record = decoder.decode(row);
                decoded++;
                if (judge != null && !judge.test(record)) {
                    continue;
                }
                count++;
                take(record, judged);
            }
        }
    }

    /**
     * A decoded record: a lookup holds it in {@code into}, reserved in the budget; a search offers it to its
     * first records; a visit hands it over.
     */
    private void take(R record, List<R> into) {
        if (visitor != null) {
            visitor.accept(record);
        } else if (first == null) {
            budget.reserve(target.kind().heapBytes().applyAsLong(record));
            into.add(record);
        } else {
            duplicates |= FirstRecords.same(first.offer(record));
        }
    }

    /**
     * A lookup's matched records, decoded; for a search, offers its kept rows to the search's first
     * records and returns none. Batch by batch, each read whole once; the batches not kept whole are
     * fetched ahead all at once ({@link ReadAhead}).
     */
    List<R> decode() throws CorruptBlockException, CorruptValueException {
        List<R> records = new ArrayList<>(judged);
        if (judge != null || visitor != null) {
            return records;
        }
        Map<Integer, RoaringBitmap> byBatch = all;
        if (first != null) {
            byBatch = new TreeMap<>();
            for (Row r : firstRows) {
                if (r.rank() > first.floor()) {
                    byBatch.computeIfAbsent(r.batch(), b -> new RoaringBitmap()).add(r.row());
                }
            }
        }
        List<Integer> toRead = byBatch.keySet().stream().filter(b -> !whole.containsKey(b)).toList();
        ReadAhead ahead = new ReadAhead(reader, toRead, null, false);
        for (Map.Entry<Integer, RoaringBitmap> e : byBatch.entrySet()) {
            budget.check();
            VectorSchemaRoot read = whole.remove(e.getKey());
            if (read == null) {
                ahead.before(e.getKey());
            }
            try (VectorSchemaRoot batch = read != null ? read : reader.readAll(e.getKey())) {
                Target.RowDecoder<R> decoder = target.decoder(batch);
                for (int row : e.getValue()) {
                    decoded++;
                    take(decoder.decode(row), records);
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
