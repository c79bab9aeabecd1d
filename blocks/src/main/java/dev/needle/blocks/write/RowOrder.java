package dev.needle.blocks.write;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;

/**
 * The order of a block's rows ({@link BlockWriter#SPAN_ORDER}, {@link BlockWriter#LOG_ORDER}, equal
 * records in the order they came), found by sorting primitive keys rather than comparing objects.
 */
final class RowOrder {

    /*
     * Each record's key is read once into columns of longs whose signed order is the record order,
     * compared first to last. One sort of packed longs does most of the work: a long's high bits are
     * the first column's value, less the smallest and shifted up so that its range fills them, and its
     * low bits are the record's index, as many bits as the largest index needs (so every size fits).
     * Records whose kept high bits are equal, a trace's spans or values that differ only in the bits
     * the index took, come out of that sort together in the order they came; each such run is then
     * settled, stably, by the whole key. A run is short but for a trace of many spans.
     */

    private static final int TRACE_ID_BYTES = 16;
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Runs up to this long are settled by insertion sort, longer ones by merge sort. */
    private static final int SHORT_RUN = 24;

    private RowOrder() {
    }

    /**
     * The spans' places in block order: {@code rows[r]} is the index of row r's span.
     *
     * @param distinctTraceIds how many distinct trace ids the spans hold, which sizes TRACE_IDX's builder;
     *                         0 when a trace id is not 16 bytes
     */
    record Spans(int[] rows, int distinctTraceIds) {
    }

    /**
     * {@code records} in {@link BlockWriter#SPAN_ORDER}, stably. Trace ids of 16 bytes (all that the
     * receiver takes) compare as two big-endian longs with the sign bit flipped, whose signed order is
     * the unsigned order of {@link Bytes#compareTo}; other ids take the comparator.
     */
    static Spans spans(SpanRecord[] records) {
        long[] high = new long[records.length];
        long[] low = new long[records.length];
        long[] start = new long[records.length];
        for (int i = 0; i < records.length; i++) {
            byte[] id = records[i].traceId().unsafeArray();
            if (id.length != TRACE_ID_BYTES) {
                return new Spans(stableOrder(records, BlockWriter.SPAN_ORDER), 0);
            }
            high[i] = (long) BIG_ENDIAN_LONG.get(id, 0) ^ Long.MIN_VALUE;
            low[i] = (long) BIG_ENDIAN_LONG.get(id, Long.BYTES) ^ Long.MIN_VALUE;
            start[i] = records[i].startTimeUnixNano();
        }
        int[] rows = sort(high, low, start);
        int distinct = 0;
        for (int r = 0; r < rows.length; r++) {
            if (r == 0 || high[rows[r]] != high[rows[r - 1]] || low[rows[r]] != low[rows[r - 1]]) {
                distinct++;
            }
        }
        return new Spans(rows, distinct);
    }

    /** The indexes of {@code records} in {@link BlockWriter#LOG_ORDER}, stably. */
    static int[] logs(LogRecord[] records) {
        long[] time = new long[records.length];
        for (int i = 0; i < records.length; i++) {
            time[i] = records[i].eventTimeUnixNano();
        }
        return sort(time);
    }

    /**
     * The indexes 0..n-1 of columns of n values each, ordered by the first column, then the next, each as
     * signed longs, then by index.
     */
    static int[] sort(long[]... columns) {
        long[] first = columns[0];
        int n = first.length;
        if (n == 0) {
            return new int[0];
        }
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (long value : first) {
            min = Math.min(min, value);
            max = Math.max(max, value);
        }
        // max - min and value - min are read unsigned: the range of signed longs needs all 64 bits.
        int spread = Long.numberOfLeadingZeros(max - min);
        int indexBits = Integer.SIZE - Integer.numberOfLeadingZeros(n - 1);
        long indexMask = (1L << indexBits) - 1;
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = ((((first[i] - min) << spread) ^ Long.MIN_VALUE) & ~indexMask) | i;
        }
        Arrays.sort(keys);
        int[] rows = new int[n];
        for (int r = 0; r < n; r++) {
            rows[r] = (int) (keys[r] & indexMask);
        }
        // The index took only bits the shift left zero: equal high bits mean equal keys.
        if (columns.length == 1 && spread >= indexBits) {
            return rows;
        }
        int[] scratch = null;
        int from = 0;
        for (int r = 1; r <= n; r++) {
            if (r == n || ((keys[r] ^ keys[from]) & ~indexMask) != 0) {
                if (r - from > SHORT_RUN && scratch == null) {
                    scratch = new int[n];
                }
                settle(columns, rows, from, r, scratch);
                from = r;
            }
        }
        return rows;
    }

    /** Sorts {@code rows[from..to)}, indexes in ascending order, by the columns, keeping equal ones in place. */
    private static void settle(long[][] columns, int[] rows, int from, int to, int[] scratch) {
        if (to - from <= SHORT_RUN) {
            for (int i = from + 1; i < to; i++) {
                int row = rows[i];
                int j = i - 1;
                while (j >= from && compare(columns, rows[j], row) > 0) {
                    rows[j + 1] = rows[j];
                    j--;
                }
                rows[j + 1] = row;
            }
            return;
        }
        int mid = (from + to) >>> 1;
        settle(columns, rows, from, mid, scratch);
        settle(columns, rows, mid, to, scratch);
        if (compare(columns, rows[mid - 1], rows[mid]) <= 0) {
            return;
        }
        System.arraycopy(rows, from, scratch, from, mid - from);
        int left = from;
        int right = mid;
        int out = from;
        while (left < mid && right < to) {
            rows[out++] = compare(columns, rows[right], scratch[left]) < 0 ? rows[right++] : scratch[left++];
        }
        System.arraycopy(scratch, left, rows, out, mid - left);
    }

    private static int compare(long[][] columns, int a, int b) {
        for (long[] column : columns) {
            int c = Long.compare(column[a], column[b]);
            if (c != 0) {
                return c;
            }
        }
        return 0;
    }

    /** The indexes of {@code records} in {@code order}, equal records in the order they came. */
    private static <R> int[] stableOrder(R[] records, Comparator<R> order) {
        Integer[] indexes = new Integer[records.length];
        Arrays.setAll(indexes, i -> i);
        Arrays.sort(indexes, (a, b) -> order.compare(records[a], records[b]));
        return Arrays.stream(indexes).mapToInt(Integer::intValue).toArray();
    }
}
