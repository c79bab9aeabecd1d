package dev.needle.blocks.read;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.CorruptMetaException;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.ValueVectorUtility;

/**
 * Reads one published block: its meta.json (zone maps), its sidecars, and chosen columns of chosen
 * record batches, counting every byte it reads.
 *
 * <p>Opening reads meta.json and the Arrow file's footer. {@link #read} then reads one batch's
 * message header and only the byte ranges of the columns asked for, so looking up a trace reads
 * one batch's trace-id column, then the rest of that batch only if it matched. A missing or
 * corrupt data.arrow is a {@link CorruptBlockException} naming the block; a corrupt meta.json
 * only means "no zone maps".
 *
 * <p>Batches may be uncompressed or ZSTD-compressed (Arrow's BUFFER method: each buffer is an
 * 8-byte little-endian uncompressed length, −1 for "stored as is", then the ZSTD frame). A
 * compressed buffer's stated length is checked against what its field node needs before any
 * memory is sized from it, so a corrupt length costs at most what the node needs.
 */
public final class BlockReader implements AutoCloseable {

    /** Name of the Arrow IPC file in a block. */
    public static final String DATA = "data.arrow";
    /** Name of the block's metadata file. */
    public static final String META = "meta.json";
    private static final long MAX_META_BYTES = 64L << 20;
    /** A batch's message header lists a few dozen nodes and buffers: far below this. */
    private static final int MAX_BATCH_METADATA = 1 << 20;
    /** The one codec needle writes; the codec itself is stateless. */
    private static final CompressionCodec ZSTD = BlockLayout.CODECS.createCodec(BlockLayout.CODEC);
    /**
     * A decompressed buffer may exceed what its node needs by at most this rounding (Arrow Java
     * writes exactly what is needed; other writers pad to 8 or 64 bytes).
     */
    private static final long BUFFER_ROUNDING = 64;

    private final BlockRef block;
    private final BlockStore store;
    private final BufferAllocator allocator;
    private final CountingChannel data;
    private final ArrowFileReader arrow;
    private final List<ArrowBlock> batches;
    private final Schema schema;
    private final BlockMeta meta;
    private final String metaProblem;
    private final int totalNodes;
    private final int totalBuffers;
    private long sideBytesRead;

    private BlockReader(BlockRef block, BlockStore store, BufferAllocator allocator, CountingChannel data,
                        ArrowFileReader arrow, List<ArrowBlock> batches, Schema schema, BlockMeta meta,
                        String metaProblem, long metaBytes) {
        this.block = block;
        this.store = store;
        this.allocator = allocator;
        this.data = data;
        this.arrow = arrow;
        this.batches = batches;
        this.schema = schema;
        this.meta = meta;
        this.metaProblem = metaProblem;
        this.sideBytesRead = metaBytes;
        this.totalNodes = schema.getFields().stream().mapToInt(BlockReader::countNodes).sum();
        this.totalBuffers = schema.getFields().stream().mapToInt(BlockReader::countBuffers).sum();
    }

    /** Opens a block: reads meta.json and the Arrow footer, and checks the schema is the one its signal has. */
    public static BlockReader open(BlockStore store, BlockRef block, BufferAllocator allocator)
            throws CorruptBlockException {
        BlockMeta meta = null;
        String metaProblem = null;
        long metaBytes = 0;
        try (InputStream in = Channels.newInputStream(store.open(block, META))) {
            byte[] json = in.readNBytes((int) MAX_META_BYTES + 1);
            metaBytes = json.length;
            if (json.length > MAX_META_BYTES) {
                metaProblem = "meta.json is larger than " + MAX_META_BYTES + " bytes";
            } else {
                meta = BlockMetaJson.read(json);
            }
        } catch (NoSuchFileException e) {
            metaProblem = "no meta.json";
        } catch (CorruptMetaException e) {
            metaProblem = "corrupt meta.json: " + e.getMessage();
        } catch (IOException | RuntimeException e) {
            metaProblem = "cannot read meta.json: " + e;
        }

        CountingChannel data;
        try {
            data = new CountingChannel(store.open(block, DATA));
        } catch (NoSuchFileException e) {
            throw new CorruptBlockException(block, "data.arrow is missing", e);
        } catch (IOException e) {
            throw new CorruptBlockException(block, "cannot open data.arrow: " + e.getMessage(), e);
        }
        ArrowFileReader arrow = new ArrowFileReader(data, allocator);
        try {
            List<ArrowBlock> batches = List.copyOf(arrow.getRecordBlocks());
            Schema schema = arrow.getVectorSchemaRoot().getSchema();
            Schema expected = block.signal() == Signal.SPANS ? SpanColumns.SCHEMA : LogColumns.SCHEMA;
            if (!schema.equals(expected)) {
                throw new CorruptBlockException(block, "data.arrow has an unexpected schema for "
                        + block.signal().dirName() + ": " + schema, null);
            }
            String mismatch = meta == null ? null : mismatch(meta, block, batches.size(), data.size());
            if (mismatch != null) {
                metaProblem = "meta.json does not describe this data.arrow: " + mismatch;
                meta = null;
            }
            return new BlockReader(block, store, allocator, data, arrow, batches, schema, meta, metaProblem, metaBytes);
        } catch (CorruptBlockException e) {
            closeQuietly(arrow);
            throw e;
        } catch (IOException | RuntimeException e) {
            closeQuietly(arrow);
            throw new CorruptBlockException(block, "data.arrow is not a readable Arrow file: " + e, e);
        }
    }

    /** Why a meta.json cannot be the one written with this data.arrow, or null when it can. */
    private static String mismatch(BlockMeta meta, BlockRef block, int batches, long dataBytes) {
        if (meta.signal() != block.signal()) {
            return "it is for " + meta.signal().dirName();
        } else if (meta.batches().size() != batches) {
            return "it lists " + meta.batches().size() + " batches, data.arrow has " + batches;
        } else if (meta.dataBytes() != dataBytes) {
            return "it says data.arrow has " + meta.dataBytes() + " bytes, it has " + dataBytes;
        }
        return null;
    }

    /** The block this reader reads. */
    public BlockRef block() {
        return block;
    }

    /** The block's meta.json, or empty when it is missing or corrupt: then there are no zone maps. */
    public Optional<BlockMeta> meta() {
        return Optional.ofNullable(meta);
    }

    /** Why {@link #meta} is empty; null when it is present. */
    public String metaProblem() {
        return metaProblem;
    }

    /** The number of record batches. */
    public int batchCount() {
        return batches.size();
    }

    /** The Arrow schema of data.arrow. */
    public Schema schema() {
        return schema;
    }

    /** Bytes read so far: meta.json, the footer, sidecars, batch headers and column ranges. */
    public long bytesRead() {
        return data.bytesRead() + sideBytesRead;
    }

    /** Reads the TRACE_IDX or ATTR_IDX sidecar of this block; never throws, fails open. */
    public Sidecar sidecar(String name) {
        Sidecar sidecar = readSidecar(store, block, name);
        sideBytesRead += sidecar.bytesRead();
        return sidecar;
    }

    /**
     * Reads a sidecar of a block without opening the block, so that a block ruled out by it costs
     * only the sidecar's bytes. Never throws: anything unreadable fails open.
     */
    public static Sidecar readSidecar(BlockStore store, BlockRef block, String name) {
        try (SeekableByteChannel channel = store.open(block, name)) {
            return BloomSidecar.read(channel, block + "/" + name);
        } catch (NoSuchFileException e) {
            return Sidecar.failedOpen(FailOpenReason.MISSING, "block " + block + " has no " + name, 0);
        } catch (IOException | RuntimeException e) {
            return Sidecar.failedOpen(FailOpenReason.IO, "cannot read " + block + "/" + name + ": " + e, 0);
        }
    }

    /** Reads every column of batch {@code batch}; the caller closes the root. */
    public VectorSchemaRoot readAll(int batch) throws CorruptBlockException {
        return read(batch, schema.getFields().stream().map(Field::getName).toList());
    }

    /**
     * Reads only the named columns of batch {@code batch}, in schema order; the caller closes the
     * root. Reads the batch's message header and one byte range per column. Every length and
     * offset is checked before memory is sized from it, and the loaded vectors are validated, so a
     * corrupt file gives a {@link CorruptBlockException}, never a wrong-sized allocation.
     */
    public VectorSchemaRoot read(int batch, Collection<String> columns) throws CorruptBlockException {
        if (!schema.getFields().stream().map(Field::getName).toList().containsAll(columns)) {
            throw new IllegalArgumentException("unknown column among " + columns + " for " + block.signal());
        }
        ArrowBlock arrowBlock = batches.get(batch);
        RecordBatch header = readBatchHeader(batch, arrowBlock);
        long bodyStart = arrowBlock.getOffset() + arrowBlock.getMetadataLength();
        long bodyLength = arrowBlock.getBodyLength();
        List<ArrowBuf> owned = new ArrayList<>();
        VectorSchemaRoot root = null;
        try {
            long rows = header.length();
            if (rows < 1 || rows > BlockLayout.MAX_BATCH_ROWS) {
                throw corrupt(batch, "has " + rows + " rows, expected 1.." + BlockLayout.MAX_BATCH_ROWS);
            }
            if (meta != null && meta.batches().get(batch).rows() != rows) {
                throw corrupt(batch, "has " + rows + " rows, meta.json says " + meta.batches().get(batch).rows());
            }
            boolean compressed = header.compression() != null;
            List<Field> chosen = new ArrayList<>();
            List<ArrowFieldNode> nodes = new ArrayList<>();
            List<BufferPlan> plans = new ArrayList<>();
            int node = 0;
            int buffer = 0;
            for (Field field : schema.getFields()) {
                int fieldNodes = countNodes(field);
                int fieldBuffers = countBuffers(field);
                if (header.nodes(node).length() != rows) {
                    throw corrupt(batch, "column " + field.getName() + " has " + header.nodes(node).length()
                            + " values for " + rows + " rows");
                }
                if (columns.contains(field.getName())) {
                    chosen.add(field);
                    checkFieldBuffers(batch, field, header, node, buffer, bodyLength, compressed, nodes, plans);
                }
                node += fieldNodes;
                buffer += fieldBuffers;
            }
            List<ArrowBuf> buffers = checkContents(batch, plans, readRanges(plans, bodyStart, owned), compressed, owned);
            root = VectorSchemaRoot.create(new Schema(chosen), allocator);
            try (ArrowRecordBatch recordBatch = new ArrowRecordBatch((int) rows, nodes, buffers)) {
                new VectorLoader(root).load(recordBatch);
            }
            ValueVectorUtility.validateFull(root);
            VectorSchemaRoot loaded = root;
            root = null;
            return loaded;
        } catch (CorruptBlockException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new CorruptBlockException(block, "cannot read batch " + batch + ": " + e, e);
        } finally {
            if (root != null) {
                root.close();
            }
            owned.forEach(ArrowBuf::close);
        }
    }

    /** What a buffer holds, which decides how many bytes its node needs. */
    private enum Kind {
        /** Validity bits or fixed-width values: the node's length decides. */
        FIXED,
        /** A list's or a string's offsets: the node's length decides, and the last offset sizes the values. */
        OFFSETS,
        /** A string's or binary's values: the last offset before them decides. */
        VALUES
    }

    /**
     * One buffer of a chosen column as the batch's metadata places it.
     *
     * @param index      the buffer's position among all the batch's buffers, for messages
     * @param offset     where it starts in the batch body
     * @param size       its bytes in the body (compressed, when the batch is)
     * @param needed     the bytes its node needs (FIXED, OFFSETS); 0 for VALUES, which the offsets decide
     * @param emptyOk    whether it may be empty whatever its node's length (a validity buffer without nulls)
     * @param count      for OFFSETS, the node's length: the last offset is at {@code 4 * count}
     * @param childLimit for a list's OFFSETS, its child node's length, which the last offset may not pass; else -1
     */
    private record BufferPlan(String field, int index, Kind kind, long offset, long size, long needed,
                              boolean emptyOk, long count, long childLimit) {
    }

    /**
     * Adds the nodes and buffer plans of {@code field} and its children, checking that each buffer
     * lies in the body and, in an uncompressed batch, is large enough for its node's length, so that
     * loading never sizes memory from a length the file's own buffers do not back. A compressed
     * buffer's size says nothing about its contents: {@link #checkContents} checks those.
     */
    private int[] checkFieldBuffers(int batch, Field field, RecordBatch header, int node, int buffer, long bodyLength,
                                    boolean compressed, List<ArrowFieldNode> nodes, List<BufferPlan> plans)
            throws CorruptBlockException {
        long length = header.nodes(node).length();
        long nulls = header.nodes(node).nullCount();
        if (length < 0 || nulls < 0 || nulls > length) {
            throw corrupt(batch, "field node " + node + " has length " + length + " and " + nulls + " nulls");
        }
        nodes.add(new ArrowFieldNode(length, nulls));
        ArrowType type = field.getType();
        boolean fixedWidth = type instanceof ArrowType.Int || type instanceof ArrowType.FloatingPoint
                || type instanceof ArrowType.FixedSizeBinary || type instanceof ArrowType.Bool;
        for (BufferLayout layout : TypeLayout.getTypeLayout(type).getBufferLayouts()) {
            long offset = header.buffers(buffer).offset();
            long size = header.buffers(buffer).length();
            if (offset < 0 || size < 0 || offset + size > bodyLength) {
                throw corrupt(batch, "buffer " + buffer + " lies outside the batch body");
            }
            Kind kind = switch (layout.getType()) {
                case OFFSET -> Kind.OFFSETS;
                case DATA -> fixedWidth ? Kind.FIXED : Kind.VALUES;
                default -> Kind.FIXED;
            };
            long needed = switch (layout.getType()) {
                case VALIDITY -> (length + 7) / 8;
                case OFFSET -> length == 0 ? 0 : (length + 1) * 4;
                case DATA -> fixedWidth ? (length * layout.getTypeBitWidth() + 7) / 8 : 0;
                default -> 0;
            };
            boolean emptyOk = layout.getType() == BufferLayout.BufferType.VALIDITY && nulls == 0;
            if (!compressed && size < needed && !(size == 0 && emptyOk)) {
                throw corrupt(batch, "buffer " + buffer + " of " + field.getName() + " has " + size
                        + " bytes, its " + length + " values need " + needed);
            }
            if (compressed && size != 0 && size < CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
                throw corrupt(batch, "compressed buffer " + buffer + " of " + field.getName() + " has " + size
                        + " bytes, less than its length prefix");
            }
            long childLimit = kind == Kind.OFFSETS && type instanceof ArrowType.List ? header.nodes(node + 1).length() : -1;
            plans.add(new BufferPlan(field.getName(), buffer, kind, offset, size, needed, emptyOk, length, childLimit));
            buffer++;
        }
        node++;
        for (Field child : field.getChildren()) {
            int[] next = checkFieldBuffers(batch, child, header, node, buffer, bodyLength, compressed, nodes, plans);
            node = next[0];
            buffer = next[1];
        }
        return new int[] {node, buffer};
    }

    /**
     * Checks what the buffers hold, in order, and returns them ready to load: decompressed when the
     * batch is compressed. A list's offsets must stay within its child node; a string's last offset
     * is what its values buffer must hold. A compressed buffer's stated uncompressed length must be
     * what its node needs (up to {@value #BUFFER_ROUNDING}-byte rounding) before anything is
     * allocated for it, so no corrupt length can size memory beyond what the node needs.
     */
    private List<ArrowBuf> checkContents(int batch, List<BufferPlan> plans, List<ArrowBuf> stored, boolean compressed,
                                         List<ArrowBuf> owned) throws CorruptBlockException {
        List<ArrowBuf> out = new ArrayList<>(stored.size());
        long lastOffset = 0;
        for (int i = 0; i < plans.size(); i++) {
            BufferPlan plan = plans.get(i);
            long needed = plan.kind() == Kind.VALUES ? lastOffset : plan.needed();
            ArrowBuf buf = compressed ? uncompressed(batch, plan, stored.get(i), needed, owned) : stored.get(i);
            long bytes = buf.capacity();
            if (bytes < needed && !(bytes == 0 && plan.emptyOk())) {
                throw plan.kind() == Kind.VALUES
                        ? corrupt(batch, "has offsets up to " + needed + " beyond the " + bytes + " bytes of values of "
                                + plan.field())
                        : corrupt(batch, "buffer " + plan.index() + " of " + plan.field() + " has " + bytes
                                + " bytes, its " + plan.count() + " values need " + needed);
            }
            if (plan.kind() == Kind.OFFSETS) {
                lastOffset = 0;
                if (plan.count() > 0) {
                    int first = buf.getInt(0);
                    int last = buf.getInt(plan.count() * 4);
                    if (first < 0 || last < first || (plan.childLimit() >= 0 && last > plan.childLimit())) {
                        throw corrupt(batch, "has offsets " + first + ".." + last + " beyond their values"
                                + (plan.childLimit() >= 0 ? " (" + plan.childLimit() + ")" : ""));
                    }
                    lastOffset = last;
                }
            }
            out.add(buf);
        }
        return out;
    }

    /**
     * The uncompressed bytes of one compressed buffer: its 8-byte length prefix checked against
     * {@code needed} first, then the ZSTD frame decompressed into exactly that many bytes (owned).
     */
    private ArrowBuf uncompressed(int batch, BufferPlan plan, ArrowBuf stored, long needed, List<ArrowBuf> owned)
            throws CorruptBlockException {
        long size = stored.capacity();
        if (size == 0) {
            return stored;
        }
        long length = stored.getLong(0);
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            length = Long.reverseBytes(length);
        }
        long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
        if (length == CompressionUtil.NO_COMPRESSION_LENGTH) {
            return stored.slice(prefix, size - prefix);
        }
        long allowed = (Math.max(needed, 1) + BUFFER_ROUNDING - 1) / BUFFER_ROUNDING * BUFFER_ROUNDING;
        if (length < 0 || length > allowed || (length < needed && !(length == 0 && plan.emptyOk()))) {
            throw corrupt(batch, "compressed buffer " + plan.index() + " of " + plan.field() + " says it holds "
                    + length + " bytes, its node needs " + needed
                    + (plan.kind() == Kind.VALUES ? " (the last offset)" : ""));
        }
        if (length == 0) {
            return stored.slice(0, 0);
        }
        // The codec closes the buffer it decompresses; this one is a slice of a run this reader owns.
        stored.getReferenceManager().retain();
        ArrowBuf out;
        try {
            out = ZSTD.decompress(allocator, stored);
        } catch (RuntimeException e) {
            stored.getReferenceManager().release();
            throw new CorruptBlockException(block, "batch " + batch + " compressed buffer " + plan.index() + " of "
                    + plan.field() + " does not decompress: " + e.getMessage(), e);
        }
        owned.add(out);
        return out;
    }

    /** Reads the byte ranges, one read per run of adjacent ranges: a column's buffers are contiguous. */
    private List<ArrowBuf> readRanges(List<BufferPlan> ranges, long bodyStart, List<ArrowBuf> owned) throws IOException {
        List<ArrowBuf> buffers = new ArrayList<>(ranges.size());
        int i = 0;
        while (i < ranges.size()) {
            int j = i;
            long start = ranges.get(i).offset();
            long end = start + ranges.get(i).size();
            while (j + 1 < ranges.size() && ranges.get(j + 1).offset() >= end && ranges.get(j + 1).offset() - end < 64) {
                j++;
                end = ranges.get(j).offset() + ranges.get(j).size();
            }
            ArrowBuf run = allocator.buffer(Math.max(1, end - start));
            owned.add(run);
            readFully(run.nioBuffer(0, (int) (end - start)), bodyStart + start);
            for (int k = i; k <= j; k++) {
                buffers.add(run.slice(ranges.get(k).offset() - start, ranges.get(k).size()));
            }
            i = j + 1;
        }
        return buffers;
    }

    private RecordBatch readBatchHeader(int batch, ArrowBlock arrowBlock) throws CorruptBlockException {
        try {
            long fileSize = data.size();
            int metadataLength = arrowBlock.getMetadataLength();
            if (arrowBlock.getOffset() < 0 || metadataLength < 8 || metadataLength > MAX_BATCH_METADATA
                    || arrowBlock.getBodyLength() < 0
                    || arrowBlock.getOffset() + metadataLength + arrowBlock.getBodyLength() > fileSize) {
                throw corrupt(batch, "the footer places it outside the file");
            }
            // MessageSerializer sizes its buffer from this prefix: check it against the footer first.
            ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(prefix, arrowBlock.getOffset());
            int continuation = prefix.getInt(0);
            int length = prefix.getInt(4);
            if (continuation != MessageSerializer.IPC_CONTINUATION_TOKEN || length < 1 || length > metadataLength - 8) {
                throw corrupt(batch, "has a bad message prefix");
            }
            data.position(arrowBlock.getOffset());
            MessageMetadataResult message = MessageSerializer.readMessage(new ReadChannel(data));
            if (message == null || message.getMessage().headerType() != MessageHeader.RecordBatch) {
                throw corrupt(batch, "does not start with a record batch message");
            }
            RecordBatch header = (RecordBatch) message.getMessage().header(new RecordBatch());
            BodyCompression compression = header.compression();
            if (compression != null && (compression.codec() != BlockLayout.CODEC.getType()
                    || compression.method() != BodyCompressionMethod.BUFFER)) {
                throw corrupt(batch, "is compressed with codec " + compression.codec() + ", method "
                        + compression.method() + "; needle writes only " + BlockLayout.CODEC + " ("
                        + BlockLayout.CODEC.getType() + "), method BUFFER ("
                        + BodyCompressionMethod.BUFFER + ")");
            }
            if (header.nodesLength() != totalNodes || header.buffersLength() != totalBuffers) {
                throw corrupt(batch, "has " + header.nodesLength() + " nodes and " + header.buffersLength()
                        + " buffers, the schema needs " + totalNodes + " and " + totalBuffers);
            }
            return header;
        } catch (CorruptBlockException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new CorruptBlockException(block, "cannot read the header of batch " + batch + ": " + e, e);
        }
    }

    private CorruptBlockException corrupt(int batch, String problem) {
        return new CorruptBlockException(block, "batch " + batch + " " + problem, null);
    }

    private void readFully(ByteBuffer target, long position) throws IOException {
        data.position(position);
        while (target.hasRemaining()) {
            if (data.read(target) < 0) {
                throw new IOException("data.arrow ends inside a batch");
            }
        }
    }

    private static int countNodes(Field field) {
        return 1 + field.getChildren().stream().mapToInt(BlockReader::countNodes).sum();
    }

    private static int countBuffers(Field field) {
        return TypeLayout.getTypeBufferCount(field.getType())
                + field.getChildren().stream().mapToInt(BlockReader::countBuffers).sum();
    }

    private static void closeQuietly(ArrowFileReader arrow) {
        try {
            arrow.close();
        } catch (IOException | RuntimeException ignored) {
            // Already failing with a better message.
        }
    }

    @Override
    public void close() throws IOException {
        arrow.close();
    }
}
