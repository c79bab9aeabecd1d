package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Reading one full record batch (8,192 rows) of a 300,000-span block ({@code -p blockSpans=N} for
 * another size) through a reader that stays open: the middle batch, full in any block of at least
 * two batches. {@code all}:
 * {@link BlockReader#readAll} and every row decoded with {@link SpanColumns#read}, what a lookup
 * pays for each batch that holds a match. {@code traceId}: only the trace_id column read
 * ({@link BlockReader#read}) and its values taken straight from the vector, what a trace lookup
 * pays to test a batch. Throughput is rows per second on one thread. The block has a checksum per
 * batch, and a reader keeps the last batch it read and checked: from the second invocation on, this
 * times decoding from that copy, not reading ({@link ChecksumBenchmark} times the reads).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar BatchDecode -f 1 -wi 2 -i 3}
 * (or {@code ./needle bench jmh BatchDecode -f 1 -wi 2 -i 3}).
 *
 * <p>Every invocation checks the row count and position-weighted checksums of the trace ids (and,
 * for {@code all}, the span ids) it read against those of the spans the batch was written from:
 * the writer's sort order, 8,192 rows per batch, so the setup knows them without reading the block.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class BatchDecodeBenchmark {

    static final int ROWS = BlockLayout.MAX_BATCH_ROWS;
    private static final Set<String> TRACE_ID_ONLY = Set.of(SpanColumns.TRACE_ID);
    private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** {@code all}: every column, every row decoded. {@code traceId}: the trace_id vector only. */
    @Param({"all", "traceId"})
    public String columns;

    /** The spans in the block, at least two batches' worth; only the setup's time depends on it. */
    @Param({"300000"})
    public int blockSpans;

    private Path dir;
    private BufferAllocator allocator;
    private BlockReader reader;
    private boolean allColumns;
    private int batch;
    long expectedTraceSum;
    private long expectedSpanSum;

    /** Writes the block, opens it, and takes the checksums of its middle batch from the sorted spans. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        allColumns = switch (columns) {
            case "all" -> true;
            case "traceId" -> false;
            default -> throw new IllegalArgumentException("unknown columns: " + columns);
        };
        Verify.that(blockSpans >= 2 * ROWS, "a block of %d spans has no full middle batch", blockSpans);
        List<SpanRecord> spans = BenchSpans.generate(blockSpans, 7);
        dir = Files.createTempDirectory("needle-bench-decode");
        allocator = new RootAllocator();
        FsBlockStore store = new FsBlockStore(dir);
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        reader = BlockReader.open(store, block.ref(), allocator);
        batch = reader.batchCount() / 2;
        BatchMeta meta = block.meta().batches().get(batch);
        Verify.that(meta.rows() == ROWS && meta.firstRow() == (long) batch * ROWS,
                "batch %d holds rows %d..+%d, expected %d..+%d", batch, meta.firstRow(), meta.rows(), batch * ROWS, ROWS);
        List<SpanRecord> rows = sortedAsWritten(spans).subList(batch * ROWS, (batch + 1) * ROWS);
        for (int row = 0; row < ROWS; row++) {
            byte[] traceId = rows.get(row).traceId().unsafeArray();
            expectedTraceSum += traceTerm(row, longAt(traceId, 0), longAt(traceId, 8));
            expectedSpanSum += spanTerm(row, rows.get(row).spanId());
        }
    }

    /** The spans in a block's row order: BlockWriter's stable sort by trace id, then start time. */
    static List<SpanRecord> sortedAsWritten(List<SpanRecord> spans) {
        List<SpanRecord> sorted = new ArrayList<>(spans);
        sorted.sort(BlockWriter.SPAN_ORDER);
        return sorted;
    }

    /** Reads the batch (every column, or trace_id only) and checks what it read; returns the trace-id checksum. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long readBatch() throws IOException {
        return allColumns ? decodeAll() : traceIdsOnly();
    }

    private long decodeAll() throws IOException {
        long traceSum = 0;
        long spanSum = 0;
        try (VectorSchemaRoot root = reader.readAll(batch)) {
            int rows = root.getRowCount();
            SpanColumns decoder = new SpanColumns(root);
            for (int row = 0; row < rows; row++) {
                SpanRecord span = decoder.read(row);
                byte[] traceId = span.traceId().unsafeArray();
                traceSum += traceTerm(row, longAt(traceId, 0), longAt(traceId, 8));
                spanSum += spanTerm(row, span.spanId());
            }
            check(rows, traceSum);
            Verify.that(spanSum == expectedSpanSum, "batch %d: span-id checksum %016x, expected %016x", batch, spanSum,
                    expectedSpanSum);
        }
        return traceSum;
    }

    private long traceIdsOnly() throws IOException {
        long traceSum = 0;
        try (VectorSchemaRoot root = reader.read(batch, TRACE_ID_ONLY)) {
            int rows = root.getRowCount();
            // ArrowBuf reads in the machine's byte order: on a little-endian machine that is how lo and
            // hi are defined (on another, the check fails loudly).
            ArrowBuf data = ((FixedSizeBinaryVector) root.getVector(SpanColumns.TRACE_ID)).getDataBuffer();
            for (int row = 0; row < rows; row++) {
                long at = (long) row * 16;
                traceSum += traceTerm(row, data.getLong(at), data.getLong(at + 8));
            }
            check(rows, traceSum);
        }
        return traceSum;
    }

    private void check(int rows, long traceSum) {
        Verify.that(rows == ROWS, "batch %d has %d rows, expected %d", batch, rows, ROWS);
        Verify.that(traceSum == expectedTraceSum, "batch %d: trace-id checksum %016x, expected %016x", batch, traceSum,
                expectedTraceSum);
    }

    /* Each row's term is weighted by its position, so that rows read out of order change the sum,
     * while the terms stay independent of each other and add no serial chain to the loop. */

    private static long traceTerm(int row, long lo, long hi) {
        return (row + 1L) * (31 * lo + hi);
    }

    private static long spanTerm(int row, Bytes spanId) {
        return (row + 1L) * longAt(spanId.unsafeArray(), 0);
    }

    private static long longAt(byte[] bytes, int offset) {
        return (long) LE_LONG.get(bytes, offset);
    }

    /** Closes the reader and deletes the block. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        reader.close();
        allocator.close();
        BlockWriteBenchmark.deleteTree(dir);
    }
}
