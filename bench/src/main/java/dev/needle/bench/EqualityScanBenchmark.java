package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The full-scan fallback: {@link QueryEngine#searchSpans} with {@link Mechanisms#NONE} over a store
 * of one 300,000-span block, so that every row of every batch is tested for an attribute equality
 * by the engine's column kernels (predicate columns read, conditions judged on the Arrow buffers,
 * no row decoded). One operation is one row scanned, so throughput is rows per second; the engine
 * reads the block on one pool thread, so that is rows per second per core (goal: at least 50M).
 * The figure includes opening the block and reading each batch's predicate columns from the
 * (warm) OS page cache. {@code spanRoute} tests {@code span.http.route}, a string span attribute;
 * {@code spanStatus} tests {@code span.http.response.status_code}, an int span attribute;
 * {@code resourceService} tests {@code resource.service.name}, through each row's resource.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar EqualityScan -f 1 -wi 2 -i 3}
 * (or {@code ./needle bench jmh EqualityScan -f 1 -wi 2 -i 3}).
 *
 * <p>Every scan checks that it tested every row and found exactly the spans the setup counted,
 * with plain Java equality, among the records it wrote.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class EqualityScanBenchmark {

    static final int SPANS = BlockWriteBenchmark.SPANS;
    private static final String ROUTE = "/api/export";
    private static final long STATUS = 418;
    private static final String SERVICE = "audit";
    /*
     * The values looked for are planted in every 64th span of the block's first batch only (128
     * spans). A match costs its whole batch read and the row decoded, which is not the row test;
     * confined to one batch of 37 that stays small, close to a pure full-scan fallback (an absent
     * value, nothing decoded), while a scan that finds nothing still fails its check.
     */
    private static final int PLANT_EVERY = 64;

    /** The writer version whose meta.json the block gets: 3 reads and checks the predicate's columns, 2 each batch whole. */
    @Param({"3", "2"})
    public int writerVersion = BlockMeta.WRITER_VERSION_CURRENT;

    private Path dir;
    private QueryEngine engine;
    Expr routeQuery;
    private Expr statusQuery;
    private Expr serviceQuery;
    private long routeSpans;
    private long statusSpans;
    private long serviceSpans;
    private Explain.Totals last;

    /** Writes the block with the planted spans, counts the spans each query must find, and starts an engine. */
    @Setup(Level.Trial)
    public void setUp() throws IOException, QueryParseException {
        List<SpanRecord> spans = new ArrayList<>(BatchDecodeBenchmark.sortedAsWritten(BenchSpans.generate(SPANS, 7)));
        for (int row = 0; row < BlockLayout.MAX_BATCH_ROWS; row += PLANT_EVERY) {
            spans.set(row, planted(spans.get(row)));
        }
        for (SpanRecord s : spans) {
            routeSpans += s.attributes().contains(KeyValue.of("http.route", ROUTE)) ? 1 : 0;
            statusSpans += s.attributes().contains(KeyValue.of("http.response.status_code", STATUS)) ? 1 : 0;
            serviceSpans += s.resource().attributes().contains(KeyValue.of("service.name", SERVICE)) ? 1 : 0;
        }
        Verify.that(routeSpans > 0 && statusSpans > 0 && serviceSpans > 0, "no span carries the values looked for");
        dir = Files.createTempDirectory("needle-bench-scan");
        FsBlockStore store = new FsBlockStore(dir);
        // The engine has its own allocator; the writer's is closed once the block is published.
        try (BufferAllocator allocator = new RootAllocator()) {
            WrittenBlock block = new BlockWriter(store, allocator).writeSpans(TenantId.DEFAULT, spans);
            WriterVersions.rewrite(store, block.ref(), writerVersion);
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, 0, 1);
        routeQuery = QueryParser.parse("{ span.http.route = \"" + ROUTE + "\" }", Signal.SPANS);
        statusQuery = QueryParser.parse("{ span.http.response.status_code = " + STATUS + " }", Signal.SPANS);
        serviceQuery = QueryParser.parse("{ resource.service.name = \"" + SERVICE + "\" }", Signal.SPANS);
    }

    /**
     * {@code s} with its http.route set to {@value #ROUTE}, its http.response.status_code to
     * {@value #STATUS} and its resource's service.name to {@value #SERVICE}.
     */
    private static SpanRecord planted(SpanRecord s) {
        List<KeyValue> attributes = s.attributes().stream()
                .map(kv -> kv.key().equals("http.route") ? KeyValue.of("http.route", ROUTE)
                        : kv.key().equals("http.response.status_code") ? KeyValue.of("http.response.status_code", STATUS)
                        : kv).toList();
        List<KeyValue> resourceAttributes = s.resource().attributes().stream()
                .map(kv -> kv.key().equals("service.name") ? KeyValue.of("service.name", SERVICE) : kv).toList();
        Resource resource = new Resource(resourceAttributes, s.resource().droppedAttributesCount(),
                s.resource().schemaUrl());
        return s.toBuilder().resource(resource).attributes(attributes).build();
    }

    /** Every row tested for {@code span.http.route = "/api/export"}. */
    @Benchmark
    @OperationsPerInvocation(SPANS)
    public SearchResult<SpanRecord> spanRoute() throws IOException {
        return scan(routeQuery, routeSpans);
    }

    /** Every row tested for {@code span.http.response.status_code = 418}. */
    @Benchmark
    @OperationsPerInvocation(SPANS)
    public SearchResult<SpanRecord> spanStatus() throws IOException {
        return scan(statusQuery, statusSpans);
    }

    /** Every row tested for {@code resource.service.name = "audit"}. */
    @Benchmark
    @OperationsPerInvocation(SPANS)
    public SearchResult<SpanRecord> resourceService() throws IOException {
        return scan(serviceQuery, serviceSpans);
    }

    private SearchResult<SpanRecord> scan(Expr query, long expected) throws IOException {
        SearchResult<SpanRecord> result = engine.searchSpans(TenantId.DEFAULT, query, TimeRange.ALL, SPANS,
                Mechanisms.NONE);
        last = result.plan().totals();
        check(query, result, expected);
        return result;
    }

    /** Fails unless {@code result} read the whole block, tested every row and found {@code expected} spans. */
    static void check(Expr query, SearchResult<SpanRecord> result, long expected) {
        Explain.Totals totals = result.plan().totals();
        Verify.that(!result.partial(), "%s: the block could not be read: %s", query, result.problems());
        Verify.that(totals.rowsScanned() == SPANS, "%s tested %d rows, the block has %d", query, totals.rowsScanned(),
                SPANS);
        Verify.that(result.records().size() == expected, "%s found %d spans, expected %d", query,
                result.records().size(), expected);
    }

    /** Prints what the last scan read. */
    @TearDown(Level.Iteration)
    public void report() {
        if (last != null) {
            System.out.printf("%n  per scan: %d rows tested, %d matched, %d bytes read%n", last.rowsScanned(),
                    last.matched(), last.bytesRead());
        }
    }

    /** Stops the engine and deletes the block. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        engine.close();
        BlockWriteBenchmark.deleteTree(dir);
    }
}
