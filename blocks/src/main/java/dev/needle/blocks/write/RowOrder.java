package dev.needle.blocks.write;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Comparator;
import java.util.function.ObjIntConsumer;

/**
 * The order of a block's rows ({@link BlockWriter#SPAN_ORDER}, {@link BlockWriter#LOG_ORDER}, equal
 * records in the order they came), found by sorting primitive keys rather than comparing objects.
 * Public for the benchmark that measures it alone.
 */
public final class RowOrder {

    /*
     * Each record's key is read once into columns of longs whose signed order is the record order,
     * compared first to last; rows are then sorted by a most-significant-digit radix sort. Rows are
     * dealt by a column's value, less the smallest and shifted up so that the values' range fills
     * the bits, into buckets by its top bits (16 of them, fewer for fewer rows): stably, so rows with
     * equal keys stay in the order they came. A bucket whose rows may still differ is sorted the same
     * way again: by the same column, whose range in a bucket is far narrower, or, once a bucket holds
     * one value, by the next column. A few rows, most often one trace's spans, are sorted by insertion.
     * Dealing by range rather than by fixed digits keeps the buckets even where ids are not random
     * (64-bit ids padded with zeros, counters) and for times, whose range is narrow.
     */

    private static final int TRACE_ID_BYTES = 16;
    private static final VarHandle BIG_ENDIAN_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** Rows up to this many are sorted by insertion: dealing them out would cost more. */
    private static final int FEW_ROWS = 16;
    /** At most 2^16 buckets a deal: 300,000 random trace ids come out about 4.6 a bucket. */
    private static final int MAX_BUCKET_BITS = 16;

    private RowOrder() {
    }

    /**
     * The spans' places in block order: {@code rows[r]} is the index of row r's span.
     *
     * @param traceIds the distinct trace ids in block order as TRACE_IDX keys them, id i's little-endian
     *                 halves lo at 2i and hi at 2i + 1: its keys without reading a span again; empty when
     *                 a trace id is not 16 bytes
     */
    public record Spans(int[] rows, long[] traceIds) {

        /** How many distinct trace ids the spans hold; 0 when a trace id is not 16 bytes. */
        public int distinctTraceIds() {
            return traceIds.length / 2;
        }
    }

    /**
     * {@code records} in {@link BlockWriter#SPAN_ORDER}, stably. Trace ids of 16 bytes (all that the
     * receiver takes) compare as two big-endian longs with the sign bit flipped, whose signed order is
     * the unsigned order of {@link Bytes#compareTo}; other ids take the comparator.
     *
     * @param alongside given each span with its index, in the order they came, in the one pass that
     *                  reads their keys: a writer's other per-span work then costs no second pass
     */
    public static Spans spans(SpanRecord[] records, ObjIntConsumer<? super SpanRecord> alongside) {
        long[] high = new long[records.length];
        long[] low = new long[records.length];
        long[] start = new long[records.length];
        boolean sixteenBytes = true;
        for (int i = 0; i < records.length; i++) {
            SpanRecord span = records[i];
            alongside.accept(span, i);
            byte[] id = span.traceId().unsafeArray();
            if (id.length == TRACE_ID_BYTES) {
                high[i] = (long) BIG_ENDIAN_LONG.get(id, 0) ^ Long.MIN_VALUE;
                low[i] = (long) BIG_ENDIAN_LONG.get(id, Long.BYTES) ^ Long.MIN_VALUE;
                start[i] = span.startTimeUnixNano();
            } else {
                sixteenBytes = false;
            }
        }
        if (!sixteenBytes) {
            return new Spans(stableOrder(records, BlockWriter.SPAN_ORDER), new long[0]);
        }
        int[] rows = sort(high, low, start);
        int distinct = 0;
        for (int r = 0; r < rows.length; r++) {
            if (startsTrace(rows, r, high, low)) {
                distinct++;
            }
        }
        long[] traceIds = new long[2 * distinct];
        for (int r = 0, id = -2; r < rows.length; r++) {
            if (startsTrace(rows, r, high, low)) {
                id += 2;
                // Back from big-endian with the sign flipped to the little-endian halves of KeyMix.traceIdLo/Hi.
                traceIds[id] = Long.reverseBytes(high[rows[r]] ^ Long.MIN_VALUE);
                traceIds[id + 1] = Long.reverseBytes(low[rows[r]] ^ Long.MIN_VALUE);
            }
        }
        return new Spans(rows, traceIds);
    }

    /** Whether sorted row {@code r} is its trace's first. */
    private static boolean startsTrace(int[] rows, int r, long[] high, long[] low) {
        return r == 0 || high[rows[r]] != high[rows[r - 1]] || low[rows[r]] != low[rows[r - 1]];
    }

    /**
     * The indexes of {@code records} in {@link BlockWriter#LOG_ORDER}, stably.
     *
     * @param alongside given each record with its index, in the order they came, in the one pass that
     *                  reads their times
     */
    public static int[] logs(LogRecord[] records, ObjIntConsumer<? super LogRecord> alongside) {
        long[] time = new long[records.length];
        for (int i = 0; i < records.length; i++) {
            alongside.accept(records[i], i);
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
        order(columns, 0, rows, 0, n, new int[n], new int[n]);
        return rows;
    }

    /**
     * Sorts {@code rows[from..to)}, whose values in the columns before {@code column} are equal, by the
     * columns from {@code column} on, keeping rows whose values are all equal in the order they are in.
     * {@code moved} and {@code buckets} are scratch space, used only in {@code [from, to)}.
     */
    private static void order(long[][] columns, int column, int[] rows, int from, int to, int[] moved, int[] buckets) {
        if (to - from <= FEW_ROWS) {
            insertionSort(columns, column, rows, from, to);
            return;
        }
        long[] values = columns[column];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int r = from; r < to; r++) {
            long value = values[rows[r]];
            min = Math.min(min, value);
            max = Math.max(max, value);
        }
        if (min == max) {
            if (column + 1 < columns.length) {
                order(columns, column + 1, rows, from, to, moved, buckets);
            }
            return;
        }
        // max - min and value - min are read unsigned: the range of signed longs needs all 64 bits.
        int spread = Long.numberOfLeadingZeros(max - min);
        int bucketBits = Math.min(MAX_BUCKET_BITS, Integer.SIZE - Integer.numberOfLeadingZeros(to - from) - 2);
        int drop = Long.SIZE - bucketBits;
        // ends[b + 1] counts bucket b's rows, then, summed, ends[b] is where bucket b starts, then where it ends.
        int[] ends = new int[(1 << bucketBits) + 1];
        for (int r = from; r < to; r++) {
            int bucket = (int) (((values[rows[r]] - min) << spread) >>> drop);
            buckets[r] = bucket;
            ends[bucket + 1]++;
        }
        ends[0] = from;
        for (int b = 1; b < ends.length; b++) {
            ends[b] += ends[b - 1];
        }
        System.arraycopy(rows, from, moved, from, to - from);
        for (int r = from; r < to; r++) {
            rows[ends[buckets[r]]++] = moved[r];
        }
        // When the bucket took every bit of the range, a bucket's rows have one value.
        int next = Long.SIZE - spread <= bucketBits ? column + 1 : column;
        if (next == columns.length) {
            return;
        }
        int start = from;
        for (int b = 0; b < ends.length - 1; b++) {
            if (ends[b] - start > 1) {
                order(columns, next, rows, start, ends[b], moved, buckets);
            }
            start = ends[b];
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
