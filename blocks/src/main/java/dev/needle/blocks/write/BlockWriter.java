package dev.needle.blocks.write;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.SignalKind;
import dev.needle.blocks.arrow.ColumnBuffers;
import dev.needle.blocks.arrow.RecordColumns;
import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.index.TagsOnlyPairs;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.ColumnChecksums;
import dev.needle.blocks.model.Interner;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.FooterReplaces;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.AttrIdxBuilder;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.BatchAttrIdxBuilder;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.TraceIdxBuilder;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.ObjIntConsumer;
import java.util.zip.CRC32C;
import org.apache.arrow.flatbuf.Message;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileWriter;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.IpcOption;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Writes records as one block: sorts them (spans by trace id then start time, logs by event
 * time), writes {@code data.arrow} in batches of at most {@value BlockLayout#MAX_BATCH_ROWS} rows, then
 * {@code TRACE_IDX}, {@code ATTR_IDX}, {@code BATCH_ATTR_IDX}, {@code TAGS} and {@code meta.json}, and publishes the block atomically
 * under a name that holds its time range. meta.json holds each batch's CRC-32C, taken over the bytes
 * on their way to the file ({@link BlockMetaJson} says which bytes).
 *
 * <p>Record batches are written uncompressed unless {@link Options} ask for {@link Codec#ZSTD};
 * docs/COMPRESSION.md has the measurements behind that default.
 */
public final class BlockWriter {

    /** The order of a spans block's rows: by trace id, so that a trace's rows are together, then by start time. */
    public static final Comparator<SpanRecord> SPAN_ORDER = Comparator.comparing(SpanRecord::traceId)
            .thenComparingLong(SpanRecord::startTimeUnixNano);

    /** The order of a logs block's rows: by event time. */
    public static final Comparator<LogRecord> LOG_ORDER = Comparator.comparingLong(LogRecord::eventTimeUnixNano);

    private final BlockStore store;
    private final BufferAllocator allocator;
    private final Options options;
    private final Clock clock;
    private final Executor sidecarExecutor;

    /**
     * How data.arrow's record batches are compressed. Arrow IPC names one codec per record batch
     * (a buffer may only be left raw, which Arrow Java does when compressing would not shrink it),
     * so the choice is per block, not per column; docs/COMPRESSION.md has the measurements.
     */
    public enum Codec {
        /** Buffers stored as they are in memory: the fastest reads. The default. */
        NONE,
        /** Every buffer ZSTD-compressed (level 3) unless that would make it larger. */
        ZSTD
    }

    /**
     * A writer's choices.
     *
     * @param batchRows rows per record batch, 1..{@value BlockLayout#MAX_BATCH_ROWS}; small batches suit tests
     * @param codec     the compression of every record batch
     */
    public record Options(int batchRows, Codec codec) {

        /** {@value BlockLayout#MAX_BATCH_ROWS} rows per batch, uncompressed. */
        public static final Options DEFAULT = new Options(BlockLayout.MAX_BATCH_ROWS, Codec.NONE);

        /** Checks the batch size and the codec. */
        public Options {
            if (batchRows < 1 || batchRows > BlockLayout.MAX_BATCH_ROWS) {
                throw new IllegalArgumentException("batchRows (" + batchRows + ") must be in 1.."
                        + BlockLayout.MAX_BATCH_ROWS);
            }
            if (codec == null) {
                throw new IllegalArgumentException("codec must not be null");
            }
        }

        /** These options with {@code codec}. */
        public Options withCodec(Codec codec) {
            return new Options(batchRows, codec);
        }

        /** These options with {@code batchRows} rows per batch. */
        public Options withBatchRows(int batchRows) {
            return new Options(batchRows, codec);
        }
    }

    /** A writer with batches of {@value BlockLayout#MAX_BATCH_ROWS} rows, uncompressed. */
    public BlockWriter(BlockStore store, BufferAllocator allocator) {
        this(store, allocator, Options.DEFAULT);
    }

    /**
     * A writer with batches of {@code batchRows} rows (1..{@value BlockLayout#MAX_BATCH_ROWS}), uncompressed; small
     * batches suit tests.
     */
    public BlockWriter(BlockStore store, BufferAllocator allocator, int batchRows) {
        this(store, allocator, Options.DEFAULT.withBatchRows(batchRows));
    }

    /** A writer with the given options. */
    public BlockWriter(BlockStore store, BufferAllocator allocator, Options options) {
        this(store, allocator, options, Clock.systemUTC());
    }

    /**
     * A writer with the given options whose meta.json says it was written at {@code clock}'s time:
     * a fixed clock makes the same records give the same bytes, which reproducible corpora need.
     */
    public BlockWriter(BlockStore store, BufferAllocator allocator, Options options, Clock clock) {
        this(store, allocator, options, clock, Runnable::run);
    }

    private BlockWriter(BlockStore store, BufferAllocator allocator, Options options, Clock clock,
                        Executor sidecarExecutor) {
        if (options == null || clock == null) {
            throw new IllegalArgumentException("options and clock must not be null");
        }
        this.store = store;
        this.allocator = allocator;
        this.options = options;
        this.clock = clock;
        this.sidecarExecutor = sidecarExecutor;
    }

    /**
     * This writer, building each block's sidecars on {@code executor} while the calling thread writes
     * its data.arrow: the two passes read the same sorted records and share nothing else, so a block
     * takes as long as the longer of them where a second core is free. The bytes are the same.
     */
    public BlockWriter withSidecarsOn(Executor executor) {
        return new BlockWriter(store, allocator, options, clock, executor);
    }

    /** The options this writer writes with. */
    public Options options() {
        return options;
    }

    /** Writes and publishes one spans block with a fresh random id. */
    public WrittenBlock writeSpans(TenantId tenant, List<SpanRecord> spans) throws IOException {
        return write(SignalKind.SPANS, tenant, spans, BlockName.newId(), List.of());
    }

    /** Writes and publishes one spans block named with {@code id}. */
    public WrittenBlock writeSpans(TenantId tenant, List<SpanRecord> spans, String id) throws IOException {
        return write(SignalKind.SPANS, tenant, spans, id, List.of());
    }

    /** Writes and publishes one logs block with a fresh random id. */
    public WrittenBlock writeLogs(TenantId tenant, List<LogRecord> logs) throws IOException {
        return write(SignalKind.LOGS, tenant, logs, BlockName.newId(), List.of());
    }

    /** Writes and publishes one logs block named with {@code id}. */
    public WrittenBlock writeLogs(TenantId tenant, List<LogRecord> logs, String id) throws IOException {
        return write(SignalKind.LOGS, tenant, logs, id, List.of());
    }

    /**
     * Writes and publishes one block of {@code kind}'s records named with {@code id} that replaces the blocks
     * {@code replaces} (a compaction's output, see {@link BlockMeta#replaces}; none otherwise): its name covers
     * theirs too.
     */
    public <R> WrittenBlock write(SignalKind<R> kind, TenantId tenant, List<R> records, String id,
                                  List<BlockName> replaces) throws IOException {
        R[] array = kind.toArray(records);
        Shared shared = new Shared(array.length);
        Rows<R> rows = rows(kind, array, (r, i) -> shared.take(i, kind.resource(r), kind.scope(r)));
        Ordered<R> sorted = new Ordered<>(array, rows.order, shared.resources, shared.scopes);
        return write(tenant, kind, sorted, id, replaces, rows);
    }

    /** The rows of a block of {@code kind}, {@code records} sorted into block order with {@code alongside} given each. */
    @SuppressWarnings("unchecked")
    private static <R> Rows<R> rows(SignalKind<R> kind, R[] records, ObjIntConsumer<R> alongside) {
        return switch (kind.signal()) {
            case SPANS -> (Rows<R>) new SpanRows(RowOrder.spans((SpanRecord[]) records,
                    (ObjIntConsumer<SpanRecord>) alongside));
            case LOGS -> (Rows<R>) new LogRows(RowOrder.logs((LogRecord[]) records, (ObjIntConsumer<LogRecord>) alongside));
        };
    }

    /**
     * What a block's writing does by signal beyond {@link SignalKind}: its sort, the keys of its
     * TRACE_IDX, the zone map of a column of its own, and the pairs it indexes.
     */
    private abstract static class Rows<R> {
        /** {@code order[row]} is the index of the record of row {@code row}. */
        final int[] order;
        final TraceIdxBuilder traceIdx;
        final AttributeSidecars attrs = new AttributeSidecars();
        final BlockCounts.Builder counts;

        Rows(int[] order, TraceIdxBuilder traceIdx, Signal signal) {
            this.order = order;
            this.traceIdx = traceIdx;
            this.counts = new BlockCounts.Builder(signal);
        }

        /** Adds the record's own zone-map column to {@code zone}. */
        abstract void zone(R record, ZoneMap zone);

        /** Adds the keys the block's sort already holds to the sidecars' builders; first, on the sidecar executor. */
        abstract void indexSorted();

        /** Adds the record's keys to the sidecars' builders; called in row order, on the sidecar executor. */
        abstract void index(R record, Resource resource, Scope scope);
    }

    /** Spans: by trace id, then start time, and TRACE_IDX keyed from the sort's key columns. */
    private static final class SpanRows extends Rows<SpanRecord> {
        private final long[] traceIds;

        SpanRows(RowOrder.Spans order) {
            super(order.rows(), new TraceIdxBuilder(order.distinctTraceIds()), Signal.SPANS);
            traceIds = order.traceIds();
        }

        @Override
        void zone(SpanRecord s, ZoneMap zone) {
            zone.duration(s.durationNano());
        }

        @Override
        void indexSorted() {
            // From the sort's key columns: reading each span's id again missed the cache row by row.
            for (int i = 0; i < traceIds.length; i += 2) {
                traceIdx.add(traceIds[i], traceIds[i + 1]);
            }
        }

        @Override
        void index(SpanRecord s, Resource resource, Scope scope) {
            if (traceIds.length == 0) {
                // Ids that are not 16 bytes, which the sort does not key.
                traceIdx.add(s.traceId().unsafeArray(), 0);
            }
            attrs.pairs.span(s, resource, scope);
            counts.span(s, resource, scope);
        }
    }

    /** Log records: by event time, and TRACE_IDX keyed by the trace ids they have. */
    private static final class LogRows extends Rows<LogRecord> {

        LogRows(int[] order) {
            super(order, new TraceIdxBuilder(), Signal.LOGS);
        }

        @Override
        void zone(LogRecord r, ZoneMap zone) {
            zone.severity(r.severityNumber());
        }

        @Override
        void indexSorted() {
            // Logs are sorted by time: a record's trace id is read with its row.
        }

        @Override
        void index(LogRecord r, Resource resource, Scope scope) {
            if (!r.traceId().isEmpty()) {
                traceIdx.add(r.traceId().unsafeArray(), 0);
            }
            attrs.pairs.log(r, resource, scope);
            counts.log(r, resource, scope);
        }
    }

    /** A block's sidecar files as built, and the distinct keys meta.json counts. */
    private record Sidecars(Optional<byte[]> traceIdx, Optional<byte[]> attrIdx, Optional<byte[]> batchAttrIdx,
                            Optional<byte[]> tags, Optional<byte[]> counts, int traceIdxKeys, int attrIdxKeys) {
    }

    /** Every row's sidecar keys, batch by batch as data.arrow has them, then the files built from them. */
    private static <R> Sidecars buildSidecars(Ordered<R> records, int batchRows, Rows<R> rows) {
        TraceIdxBuilder traceIdx = rows.traceIdx;
        AttributeSidecars attrs = rows.attrs;
        rows.indexSorted();
        for (int first = 0, batch = 0; first < records.size(); first += batchRows, batch++) {
            attrs.startBatch(batch);
            int end = Math.min(records.size(), first + batchRows);
            for (int row = first; row < end; row++) {
                rows.index(records.record(row), records.resource(row), records.scope(row));
            }
        }
        return new Sidecars(traceIdx.build(), attrs.attrIdx.build(), attrs.batchAttrIdx.build(), attrs.tags.file(),
                rows.counts.file(), traceIdx.distinctKeys(), attrs.attrIdx.distinctKeys());
    }

    /** The sidecars {@code building} gives, with what it threw thrown here. */
    private static Sidecars await(CompletableFuture<Sidecars> building) {
        try {
            return building.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            if (e.getCause() instanceof Error err) {
                throw err;
            }
            throw e;
        }
    }

    private <R> WrittenBlock write(TenantId tenant, SignalKind<R> kind, Ordered<R> records, String id,
                                   List<BlockName> replaces, Rows<R> rows) throws IOException {
        Signal signal = kind.signal();
        int batchRows = options.batchRows();
        if (records.size() == 0) {
            throw new IllegalArgumentException("a block needs at least one record");
        }
        CompletableFuture<Sidecars> building = CompletableFuture.supplyAsync(
                () -> buildSidecars(records, batchRows, rows), sidecarExecutor);
        try (PendingBlock pending = store.create(tenant, signal)) {
            List<BatchMeta> batches = new ArrayList<>();
            long dataBytes;
            try (CountingStream out = new CountingStream(pending.create(BlockLayout.DATA));
                 VectorSchemaRoot root = VectorSchemaRoot.create(kind.schema(), allocator);
                 ArrowFileWriter arrow = newArrowWriter(root, Channels.newChannel(out), replaces)) {
                RecordColumns<R> columns = kind.columns(root);
                arrow.start();
                for (int first = 0; first < records.size(); first += batchRows) {
                    int n = Math.min(batchRows, records.size() - first);
                    if (first == 0) {
                        for (FieldVector vector : root.getFieldVectors()) {
                            vector.setInitialCapacity(n);
                        }
                        root.allocateNew();
                    } else {
                        // Emptied and zeroed, as allocateNew leaves them, but keeping the buffers the
                        // previous batches grew: a batch fills them without reallocating.
                        for (FieldVector vector : root.getFieldVectors()) {
                            vector.reset();
                        }
                    }
                    ZoneMap zone = new ZoneMap(signal == Signal.SPANS);
                    for (int i = 0; i < n; i++) {
                        int row = first + i;
                        R record = records.record(row);
                        columns.write(i, record, records.resource(row), records.scope(row));
                        zone.add(kind.time(record), kind.traceId(record));
                        rows.zone(record, zone);
                    }
                    columns.finish(n);
                    out.startBatch();
                    arrow.writeBatch();
                    ArrowBlock written = arrow.getRecordBlocks().get(batches.size());
                    long crc32c = out.batchCrc32c(written);
                    batches.add(zone.toMeta(batches.size(), first, crc32c)
                            .withColumns(out.columnChecksums(written, root.getSchema())));
                }
                arrow.end();
                out.flush();
                dataBytes = out.count;
            }
            Sidecars sidecars = await(building);
            long traceIdxBytes = writeSidecar(pending, BloomSidecar.TRACE_IDX, sidecars.traceIdx());
            long attrIdxBytes = writeSidecar(pending, BloomSidecar.ATTR_IDX, sidecars.attrIdx());
            long batchAttrIdxBytes = writeSidecar(pending, BloomSidecar.BATCH_ATTR_IDX, sidecars.batchAttrIdx());
            writeSidecar(pending, BlockTags.FILE, sidecars.tags());
            writeSidecar(pending, BlockCounts.FILE, sidecars.counts());
            long minTime = batches.stream().mapToLong(BatchMeta::minTimeUnixNano).min().orElseThrow();
            long maxTime = batches.stream().mapToLong(BatchMeta::maxTimeUnixNano).max().orElseThrow();
            BlockMeta meta = new BlockMeta(BlockMeta.WRITER_VERSION_CURRENT, signal, records.size(), dataBytes,
                    minTime, maxTime, sidecars.traceIdxKeys(), traceIdxBytes, attrIdxBytes, sidecars.attrIdxKeys(),
                    clock.millis(), batches).replacing(replaces);
            try (OutputStream out = pending.create(BlockLayout.META)) {
                out.write(BlockMetaJson.write(meta));
            }
            BlockName name = BlockName.forRange(minTime, maxTime, id);
            for (BlockName replaced : replaces) {
                // Readers look for what a block replaces only among the blocks its name's range holds.
                name = new BlockName(Math.min(name.startUnixMilli(), replaced.startUnixMilli()),
                        Math.max(name.endUnixMilli(), replaced.endUnixMilli()), id);
            }
            return new WrittenBlock(pending.publish(name), meta, batchAttrIdxBytes);
        }
    }

    /** A writer of data.arrow, whose footer names {@code replaces} too ({@link FooterReplaces}). */
    private ArrowFileWriter newArrowWriter(VectorSchemaRoot root, WritableByteChannel channel,
                                           List<BlockName> replaces) {
        Map<String, String> footer = FooterReplaces.metadata(replaces);
        return switch (options.codec()) {
            // The plain constructor, so that uncompressed files stay byte for byte what they were.
            case NONE -> new ArrowFileWriter(root, null, channel, footer);
            case ZSTD -> new ArrowFileWriter(root, null, channel, footer, IpcOption.DEFAULT,
                    BlockLayout.CODECS, BlockLayout.CODEC);
        };
    }

    private static long writeSidecar(PendingBlock pending, String name, Optional<byte[]> file) throws IOException {
        if (file.isEmpty()) {
            return 0;
        }
        try (OutputStream out = pending.create(name)) {
            out.write(file.get());
        }
        return file.get().length;
    }

    /**
     * Records in block order ({@code records[order[row]]} is row's), each with its resource and scope
     * as {@link Shared} gives them.
     */
    private record Ordered<R>(R[] records, int[] order, Resource[] resources, Scope[] scopes) {

        int size() {
            return order.length;
        }

        /** The record of row {@code row} of the block. */
        R record(int row) {
            return records[order[row]];
        }

        Resource resource(int row) {
            return resources[order[row]];
        }

        Scope scope(int row) {
            return scopes[order[row]];
        }
    }

    /**
     * Each record's resource and scope as the one instance of the block that is equal to it, so that
     * batches find them by identity. Taken in the order the records came in, where a request's records
     * follow each other with the same instances: a record whose instances are its predecessor's costs
     * two comparisons instead of two lookups.
     */
    private static final class Shared {
        final Resource[] resources;
        final Scope[] scopes;
        private final Interner<Resource> sharedResources = new Interner<>();
        private final Interner<Scope> sharedScopes = new Interner<>();
        private Resource lastResource;
        private Resource sharedResource;
        private Scope lastScope;
        private Scope sharedScope;

        Shared(int records) {
            resources = new Resource[records];
            scopes = new Scope[records];
        }

        /** Record {@code i}'s resource and scope. */
        void take(int i, Resource resource, Scope scope) {
            if (resource != lastResource) {
                lastResource = resource;
                sharedResource = sharedResources.shared(resource);
            }
            resources[i] = sharedResource;
            if (scope != lastScope) {
                lastScope = scope;
                sharedScope = sharedScopes.shared(scope);
            }
            scopes[i] = sharedScope;
        }
    }

    /**
     * The block's ATTR_IDX, BATCH_ATTR_IDX and TAGS, fed by one {@link IndexedPairs} that passes each
     * pair on once per record batch, hashed once for both sidecars; TAGS also takes a span's
     * {@link TagsOnlyPairs}, once per batch too, never hashed.
     */
    private static final class AttributeSidecars implements IndexedPairs.Sink {
        final AttrIdxBuilder attrIdx = new AttrIdxBuilder();
        final BatchAttrIdxBuilder batchAttrIdx = new BatchAttrIdxBuilder();
        final BlockTags.Builder tags = new BlockTags.Builder();
        final IndexedPairs pairs = new IndexedPairs(this, tags);
        private int batch;

        /** The next rows are record batch {@code index}'s. */
        void startBatch(int index) {
            batch = index;
            pairs.newBatch();
        }

        @Override
        public void string(String key, String value) {
            tags.string(key, value);
            add(AttributeHash.ofString(key, value));
        }

        @Override
        public void integer(String key, long value) {
            tags.integer(key, value);
            add(AttributeHash.ofLong(key, value));
        }

        @Override
        public void dbl(String key, double value) {
            tags.dbl(key, value);
            attrIdx.holdingDouble();
            batchAttrIdx.holdingDouble();
            AttributeHash hash = AttributeHash.ofDouble(key, value);
            if (hash != null) {
                add(hash);
            }
        }

        @Override
        public void bool(String key, boolean value) {
            tags.bool(key, value);
            add(AttributeHash.ofBool(key, value));
        }

        private void add(AttributeHash hash) {
            attrIdx.add(hash);
            batchAttrIdx.add(batch, hash);
        }
    }

    /**
     * Counts what reaches the file and buffers it, since Arrow writes many small pieces; and takes
     * the CRC-32C of each record batch's bytes as they pass, between {@link #startBatch} and
     * {@link #batchCrc32c}, keeping them for {@link #columnChecksums}.
     */
    private static final class CountingStream extends FilterOutputStream {
        private final CRC32C crc = new CRC32C();
        private final BatchBytes batch = new BatchBytes();
        private long count;
        private long batchStart;

        CountingStream(OutputStream out) {
            super(new BufferedOutputStream(out, 1 << 16));
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            crc.update(b);
            batch.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            crc.update(b, off, len);
            batch.write(b, off, len);
            count += len;
        }

        /** The next bytes are a record batch's. */
        void startBatch() {
            crc.reset();
            batch.reset();
            batchStart = count;
        }

        /**
         * The CRC-32C of the bytes since {@link #startBatch}, which must be exactly those the
         * footer will place at {@code written}: a reader checks the checksum over that range.
         */
        long batchCrc32c(ArrowBlock written) {
            long length = count - batchStart;
            if (written.getOffset() != batchStart || written.getMetadataLength() + written.getBodyLength() != length) {
                throw new IllegalStateException("Arrow wrote a batch of " + length + " bytes at " + batchStart
                        + ", its footer entry says " + (written.getMetadataLength() + written.getBodyLength())
                        + " at " + written.getOffset());
            }
            return crc.getValue();
        }

        /**
         * The checksums of the batch just written piece by piece: its header, and each top-level
         * column's range of the body, which starts at the column's first buffer and runs to the next
         * column's (see {@link ColumnChecksums}).
         */
        ColumnChecksums columnChecksums(ArrowBlock written, Schema schema) {
            byte[] bytes = batch.bytes();
            int metadataLength = written.getMetadataLength();
            int flatbufferLength = ByteBuffer.wrap(bytes, 4, 4).order(ByteOrder.LITTLE_ENDIAN).getInt();
            Message message = Message.getRootAsMessage(
                    ByteBuffer.wrap(bytes, 8, flatbufferLength).slice().order(ByteOrder.LITTLE_ENDIAN));
            RecordBatch header = (RecordBatch) message.header(new RecordBatch());
            List<Long> offsets = new ArrayList<>();
            int buffer = 0;
            for (Field field : schema.getFields()) {
                offsets.add(header.buffers(buffer).offset());
                buffer += ColumnBuffers.buffers(field);
            }
            long body = batch.size() - metadataLength;
            List<Long> crcs = new ArrayList<>();
            for (int c = 0; c < offsets.size(); c++) {
                long end = c + 1 < offsets.size() ? offsets.get(c + 1) : body;
                crcs.add(crc32c(bytes, metadataLength + offsets.get(c), end - offsets.get(c)));
            }
            return new ColumnChecksums(crc32c(bytes, 0, metadataLength), offsets, crcs);
        }

        /** The batch's bytes, read in place rather than copied: a batch is megabytes. */
        private static final class BatchBytes extends ByteArrayOutputStream {
            /** The buffer; its first {@link #size()} bytes are the batch's. */
            byte[] bytes() {
                return buf;
            }
        }

        private static long crc32c(byte[] bytes, long from, long length) {
            CRC32C piece = new CRC32C();
            piece.update(bytes, (int) from, (int) length);
            return piece.getValue();
        }
    }
}
