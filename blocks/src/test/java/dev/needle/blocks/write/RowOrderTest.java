package dev.needle.blocks.write;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.sidecar.KeyMix;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ObjIntConsumer;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/**
 * {@link RowOrder} gives the rows in the order {@link List#sort} gives with {@link BlockWriter#SPAN_ORDER}
 * and {@link BlockWriter#LOG_ORDER}, equal records in the order they came, on records made to meet its
 * corners: equal keys, trace ids equal in their first 8 bytes or apart only in a few low bits of them,
 * ids with the high bit set or the first 8 bytes zero, extreme and clustered times, ids not 16 bytes,
 * and many rows of one trace; and passes each record on once, in the order they came.
 */
class RowOrderTest {

    /** Sizes around every branch: none, one, around the insertion sort's limit (16), and up to 13 bucket bits. */
    private static final int[] SIZES = {0, 1, 2, 3, 5, 8, 15, 16, 17, 18, 33, 100, 257, 1_000, 4_097};

    @Test
    void spans_randomRecords_orderOfListSort() {
        for (long seed = 1; seed <= 40; seed++) {
            for (int size : SIZES) {
                checkSpans(new Generator(seed * 1_000 + size).spans(size), "seed " + seed + ", " + size + " spans");
            }
        }
    }

    @Test
    void spans_oneTraceOfManySpans_orderOfListSort() {
        Generator generator = new Generator(7);
        Bytes id = generator.traceId();
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            spans.add(span(id, generator.time()));
        }
        checkSpans(spans, "one trace");
    }

    @Test
    void spans_idsNotSixteenBytes_orderOfListSortAndNoCount() {
        Generator generator = new Generator(3);
        List<SpanRecord> spans = new ArrayList<>(generator.spans(500));
        spans.add(250, span(Bytes.fromHex("0102"), 5));
        spans.add(span(Bytes.EMPTY, 5));
        RowOrder.Spans order = checkSpans(spans, "short ids");
        assertEquals(0, order.distinctTraceIds());
    }

    @Test
    void logs_randomRecords_orderOfListSort() {
        for (long seed = 1; seed <= 40; seed++) {
            for (int size : SIZES) {
                checkLogs(new Generator(seed * 1_000 + size).logs(size), "seed " + seed + ", " + size + " logs");
            }
        }
    }

    @Test
    void logs_timesCloseTogether_orderOfListSort() {
        // A narrow range of times, spread over the buckets' bits: one deal, then buckets of a few.
        SplittableRandom random = new SplittableRandom(11);
        List<LogRecord> logs = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            logs.add(log(1_700_000_000_000_000_000L + random.nextLong(1_000_000), 0));
        }
        checkLogs(logs, "close times");
    }

    @Test
    void sort_manyRowsInClusters_orderOfBoxedSort() {
        // Clusters at both ends of the signed range and between: each is dealt again, its range far narrower.
        SplittableRandom random = new SplittableRandom(5);
        int n = (1 << 17) + 3;
        long[] first = new long[n];
        long[] second = new long[n];
        long[] bases = {Long.MIN_VALUE, -1, 0, Long.MAX_VALUE - (1 << 18), random.nextLong()};
        for (int i = 0; i < n; i++) {
            first[i] = bases[random.nextInt(bases.length)] + random.nextInt(1 << 18);
            second[i] = random.nextInt(4);
        }
        Integer[] expected = IntStream.range(0, n).boxed().toArray(Integer[]::new);
        Arrays.sort(expected, Comparator.<Integer>comparingLong(i -> first[i]).thenComparingLong(i -> second[i]));
        int[] rows = RowOrder.sort(first, second);
        assertEquals(n, rows.length);
        for (int r = 0; r < n; r++) {
            assertEquals(expected[r], rows[r], "row " + r);
        }
    }

    private static RowOrder.Spans checkSpans(List<SpanRecord> spans, String what) {
        List<SpanRecord> expected = new ArrayList<>(spans);
        expected.sort(BlockWriter.SPAN_ORDER);
        InArrivalOrder<SpanRecord> alongside = new InArrivalOrder<>(spans, what);
        RowOrder.Spans order = RowOrder.spans(spans.toArray(new SpanRecord[0]), alongside);
        assertRows(expected, spans, order.rows(), what);
        alongside.assertAllSeen();
        boolean sixteen = spans.stream().allMatch(s -> s.traceId().length() == 16);
        long distinct = spans.stream().map(SpanRecord::traceId).distinct().count();
        assertEquals(sixteen ? distinct : 0, order.distinctTraceIds(), what + ": distinct trace ids");
        if (sixteen) {
            // TRACE_IDX's keys of the distinct ids, in block order.
            long[] keys = expected.stream().map(SpanRecord::traceId).distinct()
                    .flatMapToLong(id -> LongStream.of(KeyMix.traceIdLo(id.toByteArray(), 0),
                            KeyMix.traceIdHi(id.toByteArray(), 0)))
                    .toArray();
            assertArrayEquals(keys, order.traceIds(), what + ": trace ids");
        }
        return order;
    }

    private static void checkLogs(List<LogRecord> logs, String what) {
        List<LogRecord> expected = new ArrayList<>(logs);
        expected.sort(BlockWriter.LOG_ORDER);
        InArrivalOrder<LogRecord> alongside = new InArrivalOrder<>(logs, what);
        assertRows(expected, logs, RowOrder.logs(logs.toArray(new LogRecord[0]), alongside), what);
        alongside.assertAllSeen();
    }

    /** Row by row the same instance: equal records must keep the order they came in. */
    private static <R> void assertRows(List<R> expected, List<R> records, int[] rows, String what) {
        assertEquals(expected.size(), rows.length, what + ": rows");
        assertEquals(records.size(), new HashSet<>(Arrays.stream(rows).boxed().toList()).size(), what + ": distinct rows");
        for (int r = 0; r < rows.length; r++) {
            assertSame(expected.get(r), records.get(rows[r]), what + ": row " + r);
        }
    }

    /** Checks that the records are passed on each once, with their indexes, in the order they came. */
    private static final class InArrivalOrder<R> implements ObjIntConsumer<R> {
        private final List<R> records;
        private final String what;
        private int seen;

        InArrivalOrder(List<R> records, String what) {
            this.records = records;
            this.what = what;
        }

        @Override
        public void accept(R record, int index) {
            assertEquals(seen, index, what + ": index passed alongside");
            assertSame(records.get(seen), record, what + ": record passed alongside");
            seen++;
        }

        void assertAllSeen() {
            assertEquals(records.size(), seen, what + ": records passed alongside");
        }
    }

    private static SpanRecord span(Bytes traceId, long start) {
        return SpanRecord.builder().traceId(traceId).spanId(Bytes.fromHex("0102030405060708")).name("span").kind(1)
                .startTimeUnixNano(start).endTimeUnixNano(start + 1).build();
    }

    private static LogRecord log(long time, long observed) {
        return LogRecord.builder().timeUnixNano(time).observedTimeUnixNano(observed).severityNumber(9)
                .severityText("INFO").build();
    }

    /** Keys drawn from small pools, so that equal and nearly equal keys are common. */
    private static final class Generator {
        private static final long[] TIMES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1,
                Long.MAX_VALUE, 1_700_000_000_000_000_000L};
        private final SplittableRandom random;
        private final List<Bytes> ids = new ArrayList<>();

        Generator(long seed) {
            random = new SplittableRandom(seed);
            for (int i = random.nextInt(1, 12); i > 0; i--) {
                ids.add(traceId());
            }
        }

        List<SpanRecord> spans(int n) {
            boolean shortIds = random.nextInt(8) == 0;
            List<SpanRecord> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Bytes id = shortIds && random.nextInt(50) == 0 ? otherLength() : ids.get(random.nextInt(ids.size()));
                out.add(span(id, time()));
            }
            return out;
        }

        List<LogRecord> logs(int n) {
            List<LogRecord> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                // A time of 0 means unset: the observed time orders the record.
                out.add(random.nextInt(6) == 0 ? log(0, time()) : log(time(), random.nextLong()));
            }
            return out;
        }

        /**
         * A near twin of an id made, apart only in the last 8 bytes or only in the first 8's low bits;
         * or a fresh id: its high bit set, or clear, or its first 8 bytes zero as a 64-bit id's are.
         */
        Bytes traceId() {
            byte[] id = new byte[16];
            random.nextBytes(id);
            int kind = random.nextInt(ids.isEmpty() ? 3 : 5);
            switch (kind) {
                case 0 -> id[0] |= (byte) 0x80;
                case 1 -> id[0] &= 0x7f;
                case 2 -> Arrays.fill(id, 0, 8, (byte) 0);
                default -> {
                    byte[] twin = ids.get(random.nextInt(ids.size())).toByteArray();
                    int same = kind == 3 ? 8 : 5;
                    System.arraycopy(twin, 0, id, 0, same);
                    if (same == 5) {
                        System.arraycopy(twin, 8, id, 8, 8);
                    }
                }
            }
            return Bytes.wrap(id);
        }

        long time() {
            return switch (random.nextInt(4)) {
                case 0 -> TIMES[random.nextInt(TIMES.length)];
                case 1 -> TIMES[random.nextInt(TIMES.length)] + random.nextInt(-3, 4);
                case 2 -> 1_700_000_000_000_000_000L + random.nextLong(1_000_000);
                default -> random.nextLong();
            };
        }

        private Bytes otherLength() {
            byte[] id = new byte[new int[] {1, 8, 15, 17, 32}[random.nextInt(5)]];
            random.nextBytes(id);
            return Bytes.wrap(id);
        }
    }
}
