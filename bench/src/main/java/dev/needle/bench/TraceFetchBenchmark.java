package dev.needle.bench;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.TraceLookup;
import dev.needle.blocks.store.FsBlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fetching every span of one trace from a 300,000-span block: the batch picked by the trace-id zone
 * maps, its trace-id column read, then the rest of that batch. {@code cold} opens a new reader each
 * time (meta.json and the Arrow footer are read again; the OS page cache stays warm); {@code warm}
 * reuses one. The teardown prints the bytes read per lookup.
 *
 * <p>Run: {@code ./needle bench jmh TraceFetch -f 1 -wi 3 -i 5}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-opens=java.base/java.nio=ALL-UNNAMED", "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class TraceFetchBenchmark {

    private static final int TRACES_PROBED = 256;

    private Path dir;
    private BufferAllocator allocator;
    private FsBlockStore store;
    private WrittenBlock block;
    private BlockReader warmReader;
    private Bytes[] traceIds;
    private int next;
    private long lookups;
    private long bytes;

    /** Writes one 300,000-span block and picks the traces to fetch. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        List<SpanRecord> spans = BenchSpans.generate(BlockWriteBenchmark.SPANS, 7);
        dir = Files.createTempDirectory("needle-bench-fetch");
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        warmReader = BlockReader.open(store, block.ref(), allocator);
        traceIds = new Bytes[TRACES_PROBED];
        for (int i = 0; i < TRACES_PROBED; i++) {
            traceIds[i] = spans.get(i * (spans.size() / TRACES_PROBED)).traceId();
        }
    }

    /** One lookup through a reader that stays open. */
    @Benchmark
    public List<SpanRecord> warm() throws IOException {
        return fetch(warmReader);
    }

    /** One lookup through a freshly opened reader. */
    @Benchmark
    public List<SpanRecord> cold() throws IOException {
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator)) {
            long before = reader.bytesRead();
            List<SpanRecord> found = fetch(reader);
            bytes += before;
            return found;
        }
    }

    private List<SpanRecord> fetch(BlockReader reader) throws IOException {
        Bytes id = traceIds[next++ & (TRACES_PROBED - 1)];
        long before = reader.bytesRead();
        List<SpanRecord> found = TraceLookup.spans(reader, id);
        Verify.that(found.size() == BenchSpans.SPANS_PER_TRACE, "trace %s: %d spans, expected %d", id, found.size(),
                BenchSpans.SPANS_PER_TRACE);
        bytes += reader.bytesRead() - before;
        lookups++;
        return found;
    }

    /** Prints the bytes read per lookup in this iteration. */
    @TearDown(Level.Iteration)
    public void report() {
        System.out.printf("%n  %.0f bytes read per lookup (block: %d bytes, %d batches)%n",
                (double) bytes / Math.max(1, lookups), block.meta().dataBytes(), block.meta().batches().size());
        bytes = 0;
        lookups = 0;
    }

    /** Closes the reader and deletes the block. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        warmReader.close();
        allocator.close();
        BlockWriteBenchmark.deleteTree(dir);
    }
}
