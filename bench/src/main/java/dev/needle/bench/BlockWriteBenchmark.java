package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpDecodeException;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
 * Writing a 300,000-span block: sort, Arrow batches, zone maps, TRACE_IDX, ATTR_IDX and
 * BATCH_ATTR_IDX, fsynced atomic publish. Throughput is spans per second on one thread (goal ≥ 1M); the teardown prints
 * bytes per span and the sidecars' share of the block.
 *
 * <p>{@code input}: {@code synthetic}, {@link BenchSpans}' spans, which share eight resource instances and their
 * keys' strings; {@code received}, the corpus {@code ./needle gen} sends, encoded as its requests of
 * {@value #REQUEST_SPANS} spans and decoded by the receiver's {@link OtlpWire}, as a server's head holds them:
 * each request its own resource instances and values, its keys the instances the decoder shares across requests.
 *
 * <p>{@code sidecars}: {@code caller}, built on the writing thread, so that the figure is spans per second
 * per core; {@code own-thread}, on a second thread while the first writes data.arrow, as the server's
 * publisher has them: a block's time to write when a core is free.
 *
 * <p>Run: {@code ./needle bench jmh BlockWrite -f 1 -wi 2 -i 5}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-Xmx4g"})
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 5, time = 5)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class BlockWriteBenchmark {

    static final int SPANS = 300_000;
    static final int REQUEST_SPANS = 1_000;

    /** {@code synthetic} or {@code received}. */
    @Param({"synthetic", "received"})
    public String input;

    /** {@code caller} or {@code own-thread}. */
    @Param({"caller", "own-thread"})
    public String sidecars;

    private List<SpanRecord> spans;
    private Path dir;
    private BufferAllocator allocator;
    private BlockWriter writer;
    private ExecutorService sidecarThread;
    private WrittenBlock last;

    /** Generates the spans once and opens a store in a temporary directory. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        spans = switch (input) {
            case "synthetic" -> BenchSpans.generate(SPANS, 42);
            case "received" -> received();
            default -> throw new IllegalArgumentException("input " + input + " is not synthetic or received");
        };
        dir = Files.createTempDirectory("needle-bench-write");
        allocator = new RootAllocator();
        writer = new BlockWriter(new FsBlockStore(dir), allocator);
        switch (sidecars) {
            case "caller" -> { }
            case "own-thread" -> {
                sidecarThread = Executors.newSingleThreadExecutor();
                writer = writer.withSidecarsOn(sidecarThread);
            }
            default -> throw new IllegalArgumentException("sidecars " + sidecars + " is not caller or own-thread");
        }
    }

    /** {@value #SPANS} spans of the corpus, each request's worth encoded and decoded as the server does. */
    static List<SpanRecord> received() throws IOException {
        Corpus corpus = new Corpus(CorpusSpec.defaults(SPANS, 0));
        List<SpanRecord> generated = new ArrayList<>(SPANS);
        for (int chunk = 0; chunk < corpus.spanChunks(); chunk++) {
            generated.addAll(corpus.spans(chunk).records());
        }
        List<SpanRecord> received = new ArrayList<>(SPANS);
        for (int first = 0; first < generated.size(); first += REQUEST_SPANS) {
            byte[] body = OtlpWireWriter.encodeSpans(generated.subList(first, Math.min(generated.size(), first + REQUEST_SPANS)));
            try {
                received.addAll(OtlpWire.decodeSpans(body).records());
            } catch (OtlpDecodeException e) {
                throw new IOException("the corpus's own request does not decode", e);
            }
        }
        Verify.that(received.size() == SPANS, "decoded %d spans, expected %d", received.size(), SPANS);
        return received;
    }

    /** Writes and publishes one block of all the spans. */
    @Benchmark
    @OperationsPerInvocation(SPANS)
    public WrittenBlock writeSpans() throws IOException {
        last = writer.writeSpans(TenantId.DEFAULT, spans);
        return last;
    }

    /** Checks the last block is whole, prints its size facts, and deletes the blocks written. */
    @TearDown(Level.Iteration)
    public void check() throws IOException {
        Verify.that(last.meta().rows() == SPANS, "block has %d rows, expected %d", last.meta().rows(), SPANS);
        Verify.that(!input.equals("synthetic") || last.meta().distinctTraceIds() == SPANS / BenchSpans.SPANS_PER_TRACE,
                "block has %d trace ids", last.meta().distinctTraceIds());
        Verify.that(last.meta().traceIdxBytes() > 0 && last.meta().attrIdxBytes() > 0 && last.batchAttrIdxBytes() > 0,
                "a sidecar is missing");
        long data = last.meta().dataBytes();
        System.out.printf("%n  block: %.1f bytes/span, TRACE_IDX %d B (%.3f%% of data), ATTR_IDX %d B (%.3f%%), "
                        + "BATCH_ATTR_IDX %d B (%.3f%%)%n",
                (double) data / SPANS, last.meta().traceIdxBytes(), 100.0 * last.meta().traceIdxBytes() / data,
                last.meta().attrIdxBytes(), 100.0 * last.meta().attrIdxBytes() / data, last.batchAttrIdxBytes(),
                100.0 * last.batchAttrIdxBytes() / data);
        deleteTree(dir);
        Files.createDirectories(dir);
    }

    /** Releases memory and the temporary directory. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        if (sidecarThread != null) {
            sidecarThread.shutdown();
        }
        allocator.close();
        deleteTree(dir);
    }

    static void deleteTree(Path root) throws IOException {
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
