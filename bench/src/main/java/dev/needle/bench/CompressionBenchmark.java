package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.AttributeColumn;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TraceResult;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.apache.arrow.compression.CommonsCompressionFactory;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.VectorUnloader;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
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
 * What data.arrow's compression costs and saves on a 300,000-span block of {@link BenchSpans}, per
 * {@link BlockWriter.Codec}: writing (spans/s, with sort, sidecars and fsynced publish), fetching
 * one trace through {@link QueryEngine#trace} as the server does ({@code fetch}: TRACE_IDX cached
 * after the first fetch, the block opened for each fetch, its zone maps, the picked batch's trace-id
 * column, then that whole batch; the OS page cache stays warm), and scanning one predicate column
 * of every batch through a reader that stays open ({@code scanRoute}: the {@code attributes}
 * column, counting spans with {@code http.route = "/api/cart"}). The scan compares keys once per
 * batch and values as bytes, as the engine's column kernels also do ({@link EqualityScanBenchmark}
 * times the engine's own scan, with its checks of key references and of every condition's type):
 * it measures what compression costs a column read, not the engine.
 * The setup prints bytes per span and each column's stored bytes; the teardowns print bytes read.
 * Every fetch and every scan checks its answer. The figures and the decision are in docs/COMPRESSION.md.
 *
 * <p>Run: {@code ./needle bench jmh Compression -f 1} (or {@code java -jar bench/target/benchmarks.jar
 * Compression -f 1}).
 *
 * <p>A per-column experiment: {@code -p codec=ZSTD_BUT_ATTRIBUTES} (fetch and scan only) rewrites the
 * uncompressed block's data.arrow so that every buffer is ZSTD-compressed except those of the
 * {@code attributes} column, which are stored raw (uncompressed length −1). Arrow IPC has one codec
 * per record batch, but each buffer may be stored raw; Arrow Java's writer only does that when
 * compressing would not shrink the buffer, so the choice is made here by a codec that counts buffers.
 * BlockWriter cannot write such a block, so {@code write} refuses this value.
 */
@State(Scope.Thread)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, JavaLaunch.NO_ZEROING, "-Xmx4g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class CompressionBenchmark {

    static final int SPANS = BlockWriteBenchmark.SPANS;
    private static final byte[] ROUTE_KEY = "http.route".getBytes(StandardCharsets.UTF_8);
    private static final String ROUTE = "/api/cart";
    private static final byte[] ROUTE_VALUE = ROUTE.getBytes(StandardCharsets.UTF_8);
    private static final Set<String> SCAN_COLUMNS = Set.of(SpanColumns.ATTRIBUTES);

    /** Not a {@link BlockWriter.Codec}: see the class comment. */
    static final String ZSTD_BUT_ATTRIBUTES = "ZSTD_BUT_ATTRIBUTES";

    @Param({"NONE", "ZSTD"})
    public String codec;

    private List<SpanRecord> spans;
    private Path dir;
    private Path writeDir;
    private BufferAllocator allocator;
    private FsBlockStore store;
    private BlockWriter writer;
    private BlockWriter scratchWriter;
    private WrittenBlock block;
    private WrittenBlock lastWritten;
    private BlockReader reader;
    private TraceFetch fetch;
    private long routeSpans;
    private boolean[] isRoute = new boolean[1024];
    private long scans;
    private long scanBytes;

    /** Writes one 300,000-span block with the codec, prints its size facts, and starts an engine over it. */
    @Setup(Level.Trial)
    public void setUp() throws IOException {
        spans = BenchSpans.generate(SPANS, 7);
        dir = Files.createTempDirectory("needle-bench-compression");
        writeDir = Files.createTempDirectory("needle-bench-compression-write");
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        boolean perColumn = codec.equals(ZSTD_BUT_ATTRIBUTES);
        BlockWriter.Options options = BlockWriter.Options.DEFAULT
                .withCodec(perColumn ? BlockWriter.Codec.NONE : BlockWriter.Codec.valueOf(codec));
        writer = new BlockWriter(store, allocator, options);
        scratchWriter = new BlockWriter(new FsBlockStore(writeDir), allocator, options);
        block = writer.writeSpans(TenantId.DEFAULT, spans);
        if (perColumn) {
            block = compressAllBut(store, block, Set.of(SpanColumns.ATTRIBUTES), allocator);
        }
        reader = BlockReader.open(store, block.ref(), allocator);
        fetch = new TraceFetch(store, spans);
        for (SpanRecord s : spans) {
            for (KeyValue kv : s.attributes()) {
                if (kv.key().equals("http.route") && kv.value().equals(new AnyValue.Str(ROUTE))) {
                    routeSpans++;
                }
            }
        }
        Path data = store.blockDir(block.ref()).resolve(BlockLayout.DATA);
        System.out.printf("%n  %s: data.arrow %d bytes, %.1f bytes/span, %d batches%n  stored bytes per column: %s%n",
                codec, block.meta().dataBytes(), (double) block.meta().dataBytes() / SPANS, block.meta().batches().size(),
                columnBytes(data, allocator));
    }

    /** Writes and publishes one block of all the spans with the codec. */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    @OperationsPerInvocation(SPANS)
    @Warmup(iterations = 2, time = 5)
    @Measurement(iterations = 5, time = 5)
    public WrittenBlock write() throws IOException {
        Verify.that(!codec.equals(ZSTD_BUT_ATTRIBUTES), "%s is not a codec BlockWriter writes", codec);
        lastWritten = scratchWriter.writeSpans(TenantId.DEFAULT, spans);
        Verify.that(lastWritten.meta().rows() == SPANS, "block has %d rows", lastWritten.meta().rows());
        return lastWritten;
    }

    /** One trace fetched through the query engine, which opens the block for it. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public TraceResult fetch() throws IOException {
        return fetch.next();
    }

    /**
     * Every batch's {@code attributes} column read, and the spans whose {@code http.route} is
     * {@value #ROUTE} counted: each batch holds a key once, so the key is compared once per batch
     * and the values as bytes.
     */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public long scanRoute() throws IOException {
        long before = reader.bytesRead();
        long matches = 0;
        for (int b = 0; b < reader.batchCount(); b++) {
            try (VectorSchemaRoot root = reader.read(b, SCAN_COLUMNS)) {
                AttributeColumn attributes = new AttributeColumn(root.getVector(SpanColumns.ATTRIBUTES));
                int entries = attributes.end(root.getRowCount() - 1);
                if (isRoute.length < entries) {
                    isRoute = new boolean[entries];
                }
                for (int i = 0; i < entries; i++) {
                    int ref = attributes.keyRef(i);
                    if (ref == i) {
                        isRoute[i] = attributes.keyTextEquals(i, ROUTE_KEY);
                    }
                    if (isRoute[ref] && attributes.type(i) == AttributeColumn.STRING
                            && attributes.stringEquals(i, ROUTE_VALUE)) {
                        matches++;
                    }
                }
            } catch (CorruptValueException e) {
                throw new IllegalStateException(e);
            }
        }
        Verify.that(matches == routeSpans, "scan found %d spans with http.route=%s, expected %d", matches, ROUTE,
                routeSpans);
        scanBytes += reader.bytesRead() - before;
        scans++;
        return matches;
    }

    /** Prints the bytes read per fetch or scan, and deletes the blocks the write benchmark wrote. */
    @TearDown(Level.Iteration)
    public void report() throws IOException {
        double perFetch = fetch.bytesPerFetch();
        if (perFetch > 0) {
            System.out.printf("%n  %s: %.0f bytes read per fetch%n", codec, perFetch);
        }
        if (scans > 0) {
            System.out.printf("%n  %s: %.0f bytes read per scan%n", codec, (double) scanBytes / scans);
        }
        if (lastWritten != null) {
            System.out.printf("%n  %s: written block %.1f bytes/span%n", codec, (double) lastWritten.meta().dataBytes() / SPANS);
        }
        scanBytes = 0;
        scans = 0;
        BlockWriteBenchmark.deleteTree(writeDir);
        Files.createDirectories(writeDir);
    }

    /** Closes the reader, stops the engine and deletes the blocks. */
    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        reader.close();
        fetch.close();
        allocator.close();
        BlockWriteBenchmark.deleteTree(dir);
        BlockWriteBenchmark.deleteTree(writeDir);
    }

    /** The bytes each top-level column takes in data.arrow, summed over batches, from the batches' metadata. */
    static Map<String, Long> columnBytes(Path data, BufferAllocator allocator) throws IOException {
        Map<String, Long> out = new LinkedHashMap<>();
        try (FileChannel channel = FileChannel.open(data, StandardOpenOption.READ);
             ArrowFileReader reader = new ArrowFileReader(FileChannel.open(data, StandardOpenOption.READ), allocator)) {
            List<Field> fields = reader.getVectorSchemaRoot().getSchema().getFields();
            for (ArrowBlock arrowBlock : reader.getRecordBlocks()) {
                channel.position(arrowBlock.getOffset());
                RecordBatch header = (RecordBatch) MessageSerializer.readMessage(new ReadChannel(channel))
                        .getMessage().header(new RecordBatch());
                int buffer = 0;
                for (Field field : fields) {
                    long sum = 0;
                    for (int i = bufferCount(field); i > 0; i--) {
                        sum += header.buffers(buffer++).length();
                    }
                    out.merge(field.getName(), sum, Long::sum);
                }
            }
        }
        return out;
    }

    private static int bufferCount(Field field) {
        return TypeLayout.getTypeBufferCount(field.getType())
                + field.getChildren().stream().mapToInt(CompressionBenchmark::bufferCount).sum();
    }

    /**
     * Rewrites {@code block}'s data.arrow batch for batch with every buffer ZSTD-compressed except
     * those of the {@code raw} columns, and its meta.json with the new size, so that zone maps stay.
     */
    static WrittenBlock compressAllBut(FsBlockStore store, WrittenBlock block, Set<String> raw, BufferAllocator allocator)
            throws IOException {
        Path blockDir = store.blockDir(block.ref());
        Path data = blockDir.resolve(BlockLayout.DATA);
        Path rewritten = blockDir.resolve("data.arrow.rewrite");
        List<Boolean> compress = new ArrayList<>();
        for (Field field : SpanColumns.SCHEMA.getFields()) {
            for (int i = bufferCount(field); i > 0; i--) {
                compress.add(!raw.contains(field.getName()));
            }
        }
        CompressionCodec.Factory factory = new ColumnChoice(compress);
        List<ArrowBlock> places;
        try (BlockReader reader = BlockReader.open(store, block.ref(), allocator);
             VectorSchemaRoot out = VectorSchemaRoot.create(SpanColumns.SCHEMA, allocator);
             FileChannel channel = FileChannel.open(rewritten, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
             ArrowFileWriter arrow = new ArrowFileWriter(out, null, channel, null, IpcOption.DEFAULT, factory,
                     CompressionUtil.CodecType.ZSTD)) {
            arrow.start();
            for (int b = 0; b < reader.batchCount(); b++) {
                try (VectorSchemaRoot in = reader.readAll(b);
                     ArrowRecordBatch batch = new VectorUnloader(in).getRecordBatch()) {
                    new VectorLoader(out).load(batch);
                }
                arrow.writeBatch();
            }
            arrow.end();
            places = List.copyOf(arrow.getRecordBlocks());
        }
        Files.move(rewritten, data, StandardCopyOption.REPLACE_EXISTING);
        BlockMeta m = block.meta();
        BlockMeta meta = new BlockMeta(m.writerVersion(), m.signal(), m.rows(), Files.size(data), m.minTimeUnixNano(),
                m.maxTimeUnixNano(), m.distinctTraceIds(), m.traceIdxBytes(), m.attrIdxBytes(),
                m.distinctAttributePairs(), m.createdUnixMillis(), withChecksums(m.batches(), data, places));
        Files.write(blockDir.resolve(BlockLayout.META), BlockMetaJson.write(meta));
        return new WrittenBlock(block.ref(), meta, block.batchAttrIdxBytes());
    }

    /** {@code batches} with the checksums of the batches of {@code data}, which its footer places at {@code places}. */
    private static List<BatchMeta> withChecksums(List<BatchMeta> batches, Path data, List<ArrowBlock> places)
            throws IOException {
        List<BatchMeta> out = new ArrayList<>();
        try (FileChannel channel = FileChannel.open(data, StandardOpenOption.READ)) {
            for (BatchMeta batch : batches) {
                ArrowBlock place = places.get(batch.index());
                CRC32C crc = new CRC32C();
                crc.update(channel.map(FileChannel.MapMode.READ_ONLY, place.getOffset(),
                        place.getMetadataLength() + place.getBodyLength()));
                out.add(batch.withCrc32c(crc.getValue()));
            }
        }
        return out;
    }

    /**
     * ZSTD for the buffers marked true, raw for the others. Arrow's VectorUnloader compresses a
     * batch's buffers one by one in schema order, so counting calls tells which column a buffer is of.
     */
    private static final class ColumnChoice implements CompressionCodec.Factory, CompressionCodec {
        private final CompressionCodec zstd = CommonsCompressionFactory.INSTANCE.createCodec(CompressionUtil.CodecType.ZSTD);
        private final List<Boolean> compress;
        private int next;

        ColumnChoice(List<Boolean> compress) {
            this.compress = compress;
        }

        @Override
        public CompressionCodec createCodec(CompressionUtil.CodecType type) {
            return this;
        }

        @Override
        public CompressionCodec createCodec(CompressionUtil.CodecType type, int level) {
            return this;
        }

        @Override
        public ArrowBuf compress(BufferAllocator allocator, ArrowBuf buffer) {
            boolean zstdThis = compress.get(next);
            next = (next + 1) % compress.size();
            if (zstdThis || buffer.writerIndex() == 0) {
                return zstd.compress(allocator, buffer);
            }
            ArrowBuf stored = CompressionUtil.packageRawBuffer(allocator, buffer);
            buffer.close();
            return stored;
        }

        @Override
        public ArrowBuf decompress(BufferAllocator allocator, ArrowBuf buffer) {
            return zstd.decompress(allocator, buffer);
        }

        @Override
        public CompressionUtil.CodecType getCodecType() {
            return CompressionUtil.CodecType.ZSTD;
        }
    }
}
