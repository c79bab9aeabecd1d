package dev.needle.query.engine;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The first {@code limit} records of a search in its {@link Order}, over the head and every block at
 * once: each block's scan offers the records it decodes, and a record is kept only while it is among
 * the first {@code limit} offered, so that however many blocks are read at once the search holds its
 * answer and no more. Every record kept is reserved in the query's {@link QueryBudget}, and given back
 * when a record that comes before it takes its place. What is one record is the search's
 * {@link Distinct}: each record once ({@link RecordKind#identity}), or one span per trace, the first
 * of it. Thread-safe: a search reads its blocks in parallel.
 */
final class FirstRecords<R> {

    /** What an offer came to. */
    enum Offer {
        /** The record is among the first: kept. */
        KEPT,
        /** The record is among the first, and kept in place of the same record, which came after it. */
        REPLACED,
        /** The first {@code limit} records all come before it. */
        AFTER,
        /** The same record (a span stored twice, a span of a trace kept) is kept already, at least as far ahead. */
        DUPLICATE
    }

    /**
     * What a search counts as one record.
     *
     * @param identity      what makes two records one, or null when every record counts; of two, the
     *                      first in the search's order is kept
     * @param rowsPerRecord how many matched rows of a block may make one record: a block's scan decodes up
     *                      to this many rows for each record the search wants
     */
    record Distinct<R>(Function<R, Object> identity, int rowsPerRecord) {

        /** Each record once, as its kind tells records apart. */
        static <R> Distinct<R> records(RecordKind<R> kind) {
            return new Distinct<>(kind.identity(), 1);
        }
    }

    private record Kept<R>(long rank, R record, Object identity, long bytes) {
    }

    private final int limit;
    private final Order order;
    private final RecordKind<R> kind;
    private final Distinct<R> distinct;
    private final ToLongFunction<R> time;
    private final QueryBudget budget;
    /** The kept records, the last in order at the head. */
    private final PriorityQueue<Kept<R>> kept = new PriorityQueue<>(Comparator.comparingLong(Kept::rank));
    private final Map<Object, Kept<R>> byIdentity = new HashMap<>();
    private volatile long floor = Long.MIN_VALUE;

    FirstRecords(int limit, Order order, RecordKind<R> kind, Distinct<R> distinct, ToLongFunction<R> time,
                 QueryBudget budget) {
        this.limit = limit;
        this.order = order;
        this.kind = kind;
        this.distinct = distinct;
        this.time = time;
        this.budget = budget;
    }

    /** How many records are kept at most. */
    int limit() {
        return limit;
    }

    /** How many matched rows of one block a scan may decode for this search. */
    int rowsPerBlock() {
        return (int) Math.min(Integer.MAX_VALUE, (long) limit * distinct.rowsPerRecord());
    }

    /** The order the records are kept in. */
    Order order() {
        return order;
    }

    /**
     * The rank ({@link Order#rank}) a record must pass to be kept: that of the last of {@code limit} kept
     * records, or {@link Long#MIN_VALUE} while fewer are kept. A block or batch whose records cannot pass
     * it cannot change the answer.
     */
    long floor() {
        return floor;
    }

    /**
     * Offers {@code record}; keeping it may drop the record that was last, or the one it is the same as
     * ({@link Distinct#identity}) when it comes before that one.
     */
    synchronized Offer offer(R record) {
        long rank = order.rank(time.applyAsLong(record));
        if (kept.size() >= limit && rank <= kept.peek().rank()) {
            return Offer.AFTER;
        }
        Object identity = distinct.identity() == null ? null : distinct.identity().apply(record);
        Kept<R> same = identity == null ? null : byIdentity.get(identity);
        if (same != null) {
            if (rank <= same.rank()) {
                return Offer.DUPLICATE;
            }
            kept.remove(same);
            byIdentity.remove(identity);
            budget.release(same.bytes());
        }
        long bytes = kind.heapBytes().applyAsLong(record);
        budget.reserve(bytes);
        Kept<R> k = new Kept<>(rank, record, identity, bytes);
        kept.add(k);
        if (identity != null) {
            byIdentity.put(identity, k);
        }
        if (kept.size() > limit) {
            Kept<R> out = kept.poll();
            if (out.identity() != null) {
                byIdentity.remove(out.identity());
            }
            budget.release(out.bytes());
        }
        if (kept.size() >= limit) {
            floor = kept.peek().rank();
        }
        return same != null ? Offer.REPLACED : Offer.KEPT;
    }

    /** Whether an offer found the same record kept (a span stored twice, a span of a trace kept). */
    static boolean same(Offer offer) {
        return offer == Offer.DUPLICATE || offer == Offer.REPLACED;
    }

    /** The kept records, first first. */
    synchronized List<R> records() {
        List<Kept<R>> sorted = new ArrayList<>(kept);
        sorted.sort(Comparator.comparingLong((Kept<R> k) -> k.rank()).reversed());
        List<R> records = new ArrayList<>(sorted.size());
        sorted.forEach(k -> records.add(k.record()));
        return records;
    }
}
