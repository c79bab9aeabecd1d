package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What checking each record batch's CRC-32C costs a reader, on a 300,000-span block of
 * {@link BenchSpans} (37 batches of 8,192 rows, uncompressed) whose meta.json is as written
 * ({@code -p writerVersion=3}: a checksum per header and column), or rewritten as writer version 2
 * (one per batch) or 1 (none; the same data.arrow in all three). {@code fetch}: what a trace lookup pays for the batch that holds its trace — a
 * reader opened, the batch's trace_id column read, then every column of it — over each batch in
 * turn. {@code scan}: the {@code attributes} column of every batch through one open reader, what
 * an attribute scan reads. Version 2 reads each batch whole and checks it once; versions 3 and 1
 * only the byte ranges of the columns asked for, which 3 checks. Microseconds per operation with the OS page cache
 * warm; the teardown prints the bytes read per operation.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar Checksum -f 1 -wi 2 -i 3}
 * (or {@code ./needle bench jmh Checksum -f 1 -wi 2 -i 3}).
 *
 * <p>Every fetch checks the batch's row count and its first trace id (the batch's smallest, in the
 * writer's order) against meta.json; every scan checks that it read the block's every row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class ChecksumBenchmark {

    private static final Set<String> TRACE_ID = Set.of(SpanColumns.TRACE_ID);
    private static final Set<String> ATTRIBUTES = Set.of(SpanColumns.ATTRIBUTES);

    /**
     * 3: a checksum per header and column (read as version 4 reads them: 4 adds only meta.json's own checksum);
     * 2: one per batch; 1: none.
     */
    @Param({"3", "2", "1"})
    public int writerVersion = BlockMeta.WRITER_VERSION_3;

    /** The spans in the block; only the setup's time depends on it. */
    @Param({"300000"})
    public int blockSpans;

    private Path dir;
    private BufferAllocator allocator;
    private FsBlockStore store;
    private BlockRef ref;
    private BlockMeta meta;
    private BlockReader scanner;
    private int next;
    private long bytesRead;
    private long operations;

    /** Writes the block, rewrites its meta.json as an earlier version when asked, and opens it for scans. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Verify.that(writerVersion >= BlockMeta.WRITER_VERSION_1 && writerVersion <= BlockMeta.WRITER_VERSION_3,
                "writerVersion %d is not one of 1..3", writerVersion);
        dir = Files.createTempDirectory("needle-bench-checksum");
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT,
                BenchSpans.generate(blockSpans, 7));
        ref = block.ref();
        WriterVersions.rewrite(store, ref, writerVersion);
        scanner = BlockReader.open(store, ref, allocator);
        meta = scanner.meta().orElseThrow();
        Verify.that(meta.writerVersion() == writerVersion, "the block's meta.json is not of writer version %d",
                writerVersion);
    }

    /** Opens the block, reads one batch's trace_id column, then the whole batch; returns the rows read. */
    @Benchmark
    public long fetch() throws IOException {
        int batch = next++ % meta.batches().size();
        long expected = meta.batches().get(batch).rows();
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            long rows;
            try (VectorSchemaRoot ids = reader.read(batch, TRACE_ID)) {
                rows = ids.getRowCount();
                Bytes first = Bytes.wrap(((FixedSizeBinaryVector) ids.getVector(SpanColumns.TRACE_ID)).get(0));
                Verify.that(first.equals(meta.batches().get(batch).minTraceId()), "batch %d starts with trace %s,"
                        + " meta.json says %s", batch, first, meta.batches().get(batch).minTraceId());
            }
            try (VectorSchemaRoot all = reader.readAll(batch)) {
                rows += all.getRowCount();
            }
            Verify.that(rows == 2 * expected, "batch %d: read %d rows twice over, expected %d", batch, rows, 2 * expected);
            bytesRead += reader.bytesRead();
            operations++;
            return rows;
        }
    }

    /** Reads the attributes column of every batch through the open reader; returns the rows read. */
    @Benchmark
    public long scan() throws IOException {
        long before = scanner.bytesRead();
        long rows = 0;
        for (int b = 0; b < scanner.batchCount(); b++) {
            try (VectorSchemaRoot root = scanner.read(b, ATTRIBUTES)) {
                rows += root.getRowCount();
            }
        }
        Verify.that(rows == blockSpans, "the scan read %d rows of %d", rows, blockSpans);
        bytesRead += scanner.bytesRead() - before;
        operations++;
        return rows;
    }

    /** Prints the bytes read per operation, closes the reader and deletes the block. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        System.out.printf("%nwriter version %d: %,d bytes read per operation%n", writerVersion,
                operations == 0 ? 0 : bytesRead / operations);
        scanner.close();
        allocator.close();
        BlockWriteBenchmark.deleteTree(dir);
    }
}
