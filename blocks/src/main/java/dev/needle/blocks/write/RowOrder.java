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
 * Public for the benchmark that measures it alone.
 */
public final class RowOrder {

    /*
     * Each record's key is read once into columns of longs whose signed order is the record order,
     * compared first to last. A sort of packed longs does the work: a long's high bits are a column's
     * value, less the smallest and shifted up so that the values' range fills them, and its low bits
     * are the row's position, as many bits as the last position needs (so every size fits). Rows
     * whose kept high bits are equal (a trace's spans, or values apart only in the bits the position
     * took) come out of that sort together in the order they were in; each such run is sorted the same
     * way again: by the same column, whose range in a run is so narrow that no bit is lost the second
     * time, or once the run's values are equal, by the next column. A run of a few rows, most often one
     * trace's spans, is sorted by insertion instead.
     */

    private static final int TRACE_ID_BYTES = 16;
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Runs up to this long are settled by insertion sort, longer ones by sorting packed keys again. */
    private static final int SHORT_RUN = 24;

    private RowOrder() {
    }

    /**
     * The spans' places in block order: {@code rows[r]} is the index of row r's span.
     *
     * @param distinctTraceIds how many distinct trace ids the spans hold, which sizes TRACE_IDX's builder;
     *                         0 when a trace id is not 16 bytes
     */
    public record Spans(int[] rows, int distinctTraceIds) {
    }

    /**
     * {@code records} in {@link BlockWriter#SPAN_ORDER}, stably. Trace ids of 16 bytes (all that the
     * receiver takes) compare as two big-endian longs with the sign bit flipped, whose signed order is
     * the unsigned order of {@link Bytes#compareTo}; other ids take the comparator.
     */
    public static Spans spans(SpanRecord[] records) {
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
    public static int[] logs(LogRecord[] records) {
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
        int n = columns[0].length;
        int[] rows = new int[n];
        Arrays.setAll(rows, i -> i);
        order(columns, 0, rows, 0, n, new long[n], new int[n]);
        return rows;
    }

    /**
     * Sorts {@code rows[from..to)}, whose values in the columns before {@code column} are equal, by the
     * columns from {@code column} on, keeping rows whose values are all equal in the order they are in.
     * {@code keys} and {@code moved} are scratch space, used only in {@code [from, to)}.
     */
    private static void order(long[][] columns, int column, int[] rows, int from, int to, long[] keys, int[] moved) {
        if (to - from <= SHORT_RUN) {
            insertionSort(columns, column, rows, from, to);
            return;
        }
        long[] values = columns[column];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int r = from; r < to; r++) {
            min = Math.min(min, values[rows[r]]);
            max = Math.max(max, values[rows[r]]);
        }
        if (min == max) {
            if (column + 1 < columns.length) {
                order(columns, column + 1, rows, from, to, keys, moved);
            }
            return;
        }
        // max - min and value - min are read unsigned: the range of signed longs needs all 64 bits.
        int spread = Long.numberOfLeadingZeros(max - min);
        int positionBits = Integer.SIZE - Integer.numberOfLeadingZeros(to - from - 1);
        long positionMask = (1L << positionBits) - 1;
        for (int r = from; r < to; r++) {
            keys[r] = ((((values[rows[r]] - min) << spread) ^ Long.MIN_VALUE) & ~positionMask) | (r - from);
        }
        Arrays.sort(keys, from, to);
        System.arraycopy(rows, from, moved, from, to - from);
        for (int r = from; r < to; r++) {
            rows[r] = moved[from + (int) (keys[r] & positionMask)];
        }
        // When the position took only bits the shift left zero, equal high bits mean equal values.
        int next = spread >= positionBits ? column + 1 : column;
        if (next == columns.length) {
            return;
        }
        int start = from;
        for (int r = from + 1; r <= to; r++) {
            if (r == to || ((keys[r] ^ keys[start]) & ~positionMask) != 0) {
                if (r - start > 1) {
                    order(columns, next, rows, start, r, keys, moved);
                }
                start = r;
            }
        }
    }

    /** {@link #order} for a few rows. */
    private static void insertionSort(long[][] columns, int column, int[] rows, int from, int to) {
        for (int i = from + 1; i < to; i++) {
            int row = rows[i];
            int j = i - 1;
            while (j >= from && compare(columns, column, rows[j], row) > 0) {
                rows[j + 1] = rows[j];
                j--;
            }
            rows[j + 1] = row;
        }
    }

    private static int compare(long[][] columns, int column, int a, int b) {
        for (int c = column; c < columns.length; c++) {
            int order = Long.compare(columns[c][a], columns[c][b]);
            if (order != 0) {
                return order;
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
