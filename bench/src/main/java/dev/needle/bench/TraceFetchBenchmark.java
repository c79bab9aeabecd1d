package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TraceResult;
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
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Fetching every span of one trace from a store of one 300,000-span block ({@code -p blockSpans=N}
 * for another size) through {@link QueryEngine#trace}, as the server runs it: the store listed,
 * the block's TRACE_IDX probed (read once, then cached), the block opened (meta.json and the Arrow
 * footer read), the batch picked by the trace-id zone maps, its trace-id column read, then that
 * whole batch and the trace's rows decoded. The OS page cache stays warm. The teardown prints the
 * bytes read per lookup; every lookup checks it returned exactly the trace's spans.
 *
 * <p>Run: {@code ./needle bench jmh TraceFetch -f 1 -wi 3 -i 5}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class TraceFetchBenchmark {

    /** The spans in the block; only the setup's time and the block's batch count depend on it. */
    @Param({"300000"})
    public int blockSpans;

    /** The writer version whose meta.json the block gets: 3 checks what it reads column by column, 2 a batch whole. */
    @Param({"3", "2"})
    public int writerVersion = BlockMeta.WRITER_VERSION_CURRENT;

    private Path dir;
    private WrittenBlock block;
    private TraceFetch fetch;

    /** Writes the block and starts an engine over it. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        List<SpanRecord> spans = BenchSpans.generate(blockSpans, 7);
        dir = Files.createTempDirectory("needle-bench-fetch");
        FsBlockStore store = new FsBlockStore(dir);
        // The engine has its own allocator; the writer's is closed once the block is published.
        try (BufferAllocator allocator = new RootAllocator()) {
            block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
        }
        WriterVersions.rewrite(store, block.ref(), writerVersion);
        fetch = new TraceFetch(store, spans);
    }

    /** One trace looked up. */
    @Benchmark
    public TraceResult trace() throws IOException {
        return fetch.next();
    }

    /** Prints the bytes read per lookup in this iteration. */
    @TearDown(Level.Iteration)
    public void report() {
        System.out.printf("%n  %.0f bytes read per lookup (block: %d bytes, %d batches)%n", fetch.bytesPerFetch(),
                block.meta().dataBytes(), block.meta().batches().size());
    }

    /** Stops the engine and deletes the block. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        fetch.close();
        BlockWriteBenchmark.deleteTree(dir);
    }
}
