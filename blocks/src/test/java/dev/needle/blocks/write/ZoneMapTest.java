package dev.needle.blocks.write;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The zone maps in meta.json equal the minimums, maximums and null counts recomputed from each
 * decoded batch's own rows; the block's name covers every event time; rows are in the writer's order.
 */
class ZoneMapTest {

    private static final long NANOS_PER_MILLI = 1_000_000L;

    @TempDir
    Path dir;
    private BufferAllocator allocator;
    private FsBlockStore store;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
    }

    @AfterEach
    void closeAllocator() {
        allocator.close();
    }

    static Stream<Arguments> seedsAndBatchSizes() {
        List<Arguments> out = new ArrayList<>();
        for (long seed : new long[] {41, 42, 43}) {
            for (int batchRows : new int[] {1, 10, 333, BlockLayout.MAX_BATCH_ROWS}) {
                out.add(Arguments.of(seed, batchRows));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "seed {0}, {1} rows a batch")
    @MethodSource("seedsAndBatchSizes")
    void writeSpans_randomRecords_zoneMapsEqualDecodedBatches(long seed, int batchRows) throws IOException {
        List<SpanRecord> spans = new RandomRecords(seed).spans(batchRows == 1 ? 200 : 1_500);
        checkSpans(new BlockWriter(store, allocator, batchRows).writeSpans(TenantId.DEFAULT, spans), spans.size(), batchRows);
    }

    @ParameterizedTest(name = "seed {0}, {1} rows a batch")
    @MethodSource("seedsAndBatchSizes")
    void writeLogs_randomRecords_zoneMapsEqualDecodedBatches(long seed, int batchRows) throws IOException {
        List<LogRecord> logs = new RandomRecords(seed + 1000).logs(batchRows == 1 ? 200 : 1_500);
        checkLogs(new BlockWriter(store, allocator, batchRows).writeLogs(TenantId.DEFAULT, logs), logs.size(), batchRows);
    }

    @Test
    void writeSpans_eventTimesOverTheWholeLongRange_zoneMapsAndNameStillHold() throws IOException {
        SplittableRandom random = new SplittableRandom(44);
        List<SpanRecord> spans = new ArrayList<>();
        for (SpanRecord s : new RandomRecords(44).spans(700)) {
            long start = extremeTime(random);
            long duration = random.nextLong(-2_000_000_000L, 2_000_000_000L);
            long end = addOrSame(start, duration);
            spans.add(s.toBuilder().startTimeUnixNano(start).endTimeUnixNano(end).build());
        }
        checkSpans(new BlockWriter(store, allocator, 64).writeSpans(TenantId.DEFAULT, spans), spans.size(), 64);
    }

    @Test
    void writeLogs_eventTimesOverTheWholeLongRangeAndUnsetTimes_zoneMapsAndNameStillHold() throws IOException {
        SplittableRandom random = new SplittableRandom(45);
        List<LogRecord> logs = new ArrayList<>();
        for (LogRecord r : new RandomRecords(45).logs(700)) {
            long observed = extremeTime(random);
            long time = random.nextInt(3) == 0 ? 0 : extremeTime(random);
            logs.add(r.toBuilder().timeUnixNano(time).observedTimeUnixNano(observed)
                    .severityNumber(random.nextInt(4) == 0 ? 0 : r.severityNumber()).build());
        }
        checkLogs(new BlockWriter(store, allocator, 64).writeLogs(TenantId.DEFAULT, logs), logs.size(), 64);
    }

    @Test
    void writeLogs_everySeverityUnspecifiedAndNoTraceIds_nullMinMaxAndFullNullCounts() throws IOException {
        List<LogRecord> logs = new RandomRecords(46).logs(250).stream()
                .map(r -> r.toBuilder().severityNumber(0).traceId(Bytes.EMPTY).spanId(Bytes.EMPTY).build())
                .toList();
        WrittenBlock block = new BlockWriter(store, allocator, 100).writeLogs(TenantId.DEFAULT, logs);
        for (BatchMeta batch : block.meta().batches()) {
            assertEquals(null, batch.minSeverity(), "batch " + batch.index());
            assertEquals(batch.rows(), batch.severityNullCount(), "batch " + batch.index());
            assertEquals(null, batch.minTraceId(), "batch " + batch.index());
            assertEquals(batch.rows(), batch.traceIdNullCount(), "batch " + batch.index());
        }
        checkLogs(block, logs.size(), 100);
    }

    private void checkSpans(WrittenBlock block, int records, int batchRows) throws IOException {
        List<List<SpanRecord>> batches = new ArrayList<>();
        BlockMeta meta;
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            meta = reader.meta().orElseThrow(() -> new AssertionError(reader.metaProblem()));
            for (int b = 0; b < reader.batchCount(); b++) {
                List<SpanRecord> rows = new ArrayList<>();
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    SpanColumns columns = new SpanColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        rows.add(columns.read(row));
                    }
                }
                batches.add(rows);
            }
        }
        assertEquals(block.meta(), meta, "the meta.json read back differs from the one the writer returned");
        checkBatchSizes(batches.stream().map(List::size).toList(), records, batchRows);

        List<BatchMeta> expected = new ArrayList<>();
        long firstRow = 0;
        for (int b = 0; b < batches.size(); b++) {
            List<SpanRecord> rows = batches.get(b);
            TraceIds ids = TraceIds.of(rows.stream().map(SpanRecord::traceId).toList());
            expected.add(new BatchMeta(b, firstRow, rows.size(),
                    min(rows, SpanRecord::startTimeUnixNano), max(rows, SpanRecord::startTimeUnixNano),
                    ids.min, ids.max, ids.nulls,
                    min(rows, s -> s.endTimeUnixNano() - s.startTimeUnixNano()),
                    max(rows, s -> s.endTimeUnixNano() - s.startTimeUnixNano()),
                    null, null, null, meta.batches().get(b).crc32c()).withColumns(meta.batches().get(b).columns()));
            firstRow += rows.size();
        }
        checkBatches(expected, meta);

        List<SpanRecord> all = batches.stream().flatMap(List::stream).toList();
        checkBlock(block.ref(), meta, all.stream().mapToLong(SpanRecord::startTimeUnixNano).toArray());
        for (int i = 1; i < all.size(); i++) {
            SpanRecord a = all.get(i - 1);
            SpanRecord b = all.get(i);
            int byId = Arrays.compareUnsigned(a.traceId().unsafeArray(), b.traceId().unsafeArray());
            assertTrue(byId < 0 || byId == 0 && a.startTimeUnixNano() <= b.startTimeUnixNano(),
                    "rows " + (i - 1) + " and " + i + " are not sorted by trace id then start time: "
                            + a.traceId() + "@" + a.startTimeUnixNano() + ", " + b.traceId() + "@" + b.startTimeUnixNano());
        }
    }

    private void checkLogs(WrittenBlock block, int records, int batchRows) throws IOException {
        List<List<LogRecord>> batches = new ArrayList<>();
        BlockMeta meta;
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            meta = reader.meta().orElseThrow(() -> new AssertionError(reader.metaProblem()));
            for (int b = 0; b < reader.batchCount(); b++) {
                List<LogRecord> rows = new ArrayList<>();
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    LogColumns columns = new LogColumns(root);
                    for (int row = 0; row < root.getRowCount(); row++) {
                        rows.add(columns.read(row));
                    }
                }
                batches.add(rows);
            }
        }
        assertEquals(block.meta(), meta, "the meta.json read back differs from the one the writer returned");
        checkBatchSizes(batches.stream().map(List::size).toList(), records, batchRows);

        List<BatchMeta> expected = new ArrayList<>();
        long firstRow = 0;
        for (int b = 0; b < batches.size(); b++) {
            List<LogRecord> rows = batches.get(b);
            TraceIds ids = TraceIds.of(rows.stream().map(LogRecord::traceId).toList());
            Integer minSeverity = null;
            Integer maxSeverity = null;
            int severityNulls = 0;
            for (LogRecord r : rows) {
                if (r.severityNumber() == 0) {
                    severityNulls++;
                } else {
                    minSeverity = minSeverity == null ? r.severityNumber() : Math.min(minSeverity, r.severityNumber());
                    maxSeverity = maxSeverity == null ? r.severityNumber() : Math.max(maxSeverity, r.severityNumber());
                }
            }
            expected.add(new BatchMeta(b, firstRow, rows.size(),
                    min(rows, ZoneMapTest::eventTime), max(rows, ZoneMapTest::eventTime),
                    ids.min, ids.max, ids.nulls, null, null, minSeverity, maxSeverity, severityNulls,
                    meta.batches().get(b).crc32c()).withColumns(meta.batches().get(b).columns()));
            firstRow += rows.size();
        }
        checkBatches(expected, meta);

        List<LogRecord> all = batches.stream().flatMap(List::stream).toList();
        long[] times = all.stream().mapToLong(ZoneMapTest::eventTime).toArray();
        checkBlock(block.ref(), meta, times);
        for (int i = 1; i < times.length; i++) {
            assertTrue(times[i - 1] <= times[i], "rows " + (i - 1) + " and " + i + " are not sorted by event time: "
                    + times[i - 1] + ", " + times[i]);
        }
    }

    /** A log's event time, by OTLP's rule: its time, or when unset (0) its observed time. */
    private static long eventTime(LogRecord r) {
        return r.timeUnixNano() != 0 ? r.timeUnixNano() : r.observedTimeUnixNano();
    }

    private static void checkBatchSizes(List<Integer> sizes, int records, int batchRows) {
        int expectedBatches = (records + batchRows - 1) / batchRows;
        assertEquals(expectedBatches, sizes.size(), "batches");
        for (int b = 0; b < sizes.size(); b++) {
            assertEquals(b < sizes.size() - 1 ? batchRows : records - batchRows * (expectedBatches - 1), sizes.get(b),
                    "rows of batch " + b);
        }
    }

    private static void checkBatches(List<BatchMeta> expected, BlockMeta meta) {
        assertEquals(expected.size(), meta.batches().size(), "batches in meta.json");
        for (int b = 0; b < expected.size(); b++) {
            assertEquals(expected.get(b), meta.batches().get(b), "zone map of batch " + b);
        }
    }

    /** Block-level facts: row count, time range, and a name whose range covers every event time, rounded by at most 1 ms. */
    private static void checkBlock(BlockRef ref, BlockMeta meta, long[] times) {
        long min = Arrays.stream(times).min().orElseThrow();
        long max = Arrays.stream(times).max().orElseThrow();
        assertEquals(times.length, meta.rows(), "rows");
        assertEquals(min, meta.minTimeUnixNano(), "block minTimeUnixNano");
        assertEquals(max, meta.maxTimeUnixNano(), "block maxTimeUnixNano");
        BlockName name = ref.name();
        for (int i = 0; i < times.length; i++) {
            long t = times[i];
            assertTrue(name.startUnixNano() <= t && t <= name.endUnixNano(),
                    "row " + i + " at " + t + " lies outside block " + name + " [" + name.startUnixNano() + ", "
                            + name.endUnixNano() + "]");
            assertTrue(name.mayOverlap(t, t), "the name would prune row " + i + " at " + t);
        }
        // Rounded outwards to the millisecond, and no further.
        assertEquals(Math.floorDiv(min, NANOS_PER_MILLI), name.startUnixMilli(), "start rounded down from " + min);
        assertEquals(Math.floorDiv(max, NANOS_PER_MILLI) + (Math.floorMod(max, NANOS_PER_MILLI) == 0 ? 0 : 1),
                name.endUnixMilli(), "end rounded up from " + max);
    }

    /** Minimum, maximum and null count of trace ids in unsigned byte order, empty ids being null. */
    private record TraceIds(Bytes min, Bytes max, int nulls) {
        static TraceIds of(List<Bytes> ids) {
            byte[] min = null;
            byte[] max = null;
            int nulls = 0;
            for (Bytes id : ids) {
                byte[] b = id.unsafeArray();
                if (b.length == 0) {
                    nulls++;
                    continue;
                }
                if (min == null || Arrays.compareUnsigned(b, min) < 0) {
                    min = b;
                }
                if (max == null || Arrays.compareUnsigned(b, max) > 0) {
                    max = b;
                }
            }
            return new TraceIds(min == null ? null : Bytes.copyOf(min), max == null ? null : Bytes.copyOf(max), nulls);
        }
    }

    private static <R> long min(List<R> rows, ToLongFunction<R> f) {
        return rows.stream().mapToLong(f).min().orElseThrow();
    }

    private static <R> long max(List<R> rows, ToLongFunction<R> f) {
        return rows.stream().mapToLong(f).max().orElseThrow();
    }

    /** Times anywhere in the long range, with the edges, 0, -1 and sub-millisecond values over-represented. */
    private static long extremeTime(SplittableRandom random) {
        return switch (random.nextInt(10)) {
            case 0 -> Long.MIN_VALUE + random.nextInt(3);
            case 1 -> Long.MAX_VALUE - random.nextInt(3);
            case 2 -> random.nextLong(-3_000_000, 3_000_000);
            case 3 -> random.nextLong() / NANOS_PER_MILLI * NANOS_PER_MILLI;
            default -> random.nextLong();
        };
    }

    private static long addOrSame(long start, long duration) {
        try {
            return Math.addExact(start, duration);
        } catch (ArithmeticException e) {
            return start;
        }
    }
}
