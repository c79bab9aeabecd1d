package dev.needle.query.engine;

import dev.needle.blocks.model.SpanRecord;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

/**
 * The spans a visit has handed over, by trace and span id, so that a span stored twice (a client's retry)
 * counts once, as {@link RecordKind#SPANS} tells spans apart. An OTLP span's 16-byte trace id and 8-byte span
 * id are kept as three longs in an open-addressing table, some 33 to 50 bytes a span; ids of other lengths
 * (which ingest refuses, but a block written by another tool may hold) as objects, {@link #OBJECT_BYTES} apiece.
 * Every byte is reserved in the query's budget as the table grows. Thread-safe.
 */
final class SpanIdentities {

    /** What remembering one span's identity as an object costs: the key, its two ids and the set's entry. */
    static final long OBJECT_BYTES = 160;
    /** A slot of the table: three longs and its occupied flag. */
    private static final long SLOT_BYTES = 25;

    private final QueryBudget budget;
    private long[] keys = new long[0];
    private boolean[] used = new boolean[0];
    private int size;
    private Set<Object> others;

    SpanIdentities(QueryBudget budget) {
        this.budget = budget;
    }

    /** Whether {@code span} is seen for the first time; remembers it. */
    synchronized boolean add(SpanRecord span) {
        byte[] trace = span.traceId().unsafeArray();
        byte[] id = span.spanId().unsafeArray();
        if (trace.length != 16 || id.length != 8) {
            if (others == null) {
                others = new HashSet<>();
            }
            if (!others.add(RecordKind.SPANS.identity().apply(span))) {
                return false;
            }
            budget.reserve(OBJECT_BYTES);
            return true;
        }
        ByteBuffer t = ByteBuffer.wrap(trace);
        long hi = t.getLong(0);
        long lo = t.getLong(8);
        long sp = ByteBuffer.wrap(id).getLong(0);
        if ((size + 1) * 4L > used.length * 3L) {
            grow();
        }
        if (!put(keys, used, hi, lo, sp)) {
            return false;
        }
        size++;
        return true;
    }

    /** Doubles the table (16 slots at first), reserving the new slots. */
    private void grow() {
        int capacity = Math.max(16, used.length * 2);
        budget.reserve((capacity - used.length) * SLOT_BYTES);
        long[] newKeys = new long[3 * capacity];
        boolean[] newUsed = new boolean[capacity];
        for (int slot = 0; slot < used.length; slot++) {
            if (used[slot]) {
                put(newKeys, newUsed, keys[3 * slot], keys[3 * slot + 1], keys[3 * slot + 2]);
            }
        }
        keys = newKeys;
        used = newUsed;
    }

    /** Puts the key in the first free slot from its hash on, unless it is there: whether it was put. */
    private static boolean put(long[] keys, boolean[] used, long hi, long lo, long sp) {
        int mask = used.length - 1;
        for (int slot = hash(hi, lo, sp) & mask; ; slot = (slot + 1) & mask) {
            if (!used[slot]) {
                used[slot] = true;
                keys[3 * slot] = hi;
                keys[3 * slot + 1] = lo;
                keys[3 * slot + 2] = sp;
                return true;
            }
            if (keys[3 * slot] == hi && keys[3 * slot + 1] == lo && keys[3 * slot + 2] == sp) {
                return false;
            }
        }
    }

    /** The three longs mixed (splitmix64's finalizer), so that structured ids spread over the table. */
    private static int hash(long hi, long lo, long sp) {
        long h = hi * 0x9E3779B97F4A7C15L + lo;
        h = h * 0x9E3779B97F4A7C15L + sp;
        h = (h ^ (h >>> 30)) * 0xBF58476D1CE4E5B9L;
        h = (h ^ (h >>> 27)) * 0x94D049BB133111EBL;
        return (int) (h ^ (h >>> 31));
    }
}
