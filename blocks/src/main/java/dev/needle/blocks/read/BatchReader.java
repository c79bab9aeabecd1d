package dev.needle.blocks.read;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.arrow.ColumnBuffers;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.reads.ByteRange;
import dev.needle.blocks.store.reads.CountedChannel;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.arrow.flatbuf.BodyCompression;
import org.apache.arrow.flatbuf.BodyCompressionMethod;
import org.apache.arrow.flatbuf.MessageHeader;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorLoader;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageMetadataResult;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads chosen columns of one record batch of data.arrow: the batch's message header, checked
 * against the footer and the schema, then one byte range per run of the chosen columns' buffers,
 * which a {@link BufferChecker} checks before they are loaded. Every byte of a batch is read here.
 *
 * <p>When meta.json holds checksums per column (writer version 3), the header and the chosen
 * columns' ranges are read first, runs closer than the store's gap as one read, and each is checked
 * against its own checksum ({@link CheckedPieces}): only what is needed is read, and all of it is
 * checked. When it holds one checksum per batch (writer version 2), a batch is first read whole and checked
 * against its CRC-32C ({@link VerifiedBatch}), and the header and column ranges are then read from
 * that copy: one checksum covers the whole batch, so reading a single column of it costs the whole
 * batch's bytes, which is why version 3 exists. The checked copy of the last batch is kept, so that
 * the usual pattern — the predicate's columns, then every column of a batch that matched — reads
 * and checks each batch once.
 */
final class BatchReader implements AutoCloseable {

    /** A batch's message header lists a few dozen nodes and buffers: far below this. */
    private static final int MAX_BATCH_METADATA = 1 << 20;

    private final BlockRef block;
    private final BufferAllocator allocator;
    private final CountedChannel data;
    private final List<ArrowBlock> batches;
    private final Schema schema;
    private final List<String> columnNames;
    private final BlockMeta meta;
    private final int totalNodes;
    private final int totalBuffers;
    /** Ranges of a batch closer than this are read as one: the gap costs less than another request. */
    private final long gap;
    /** The last batch read and checked, or null; only with checksums. */
    private VerifiedBatch verified;

    /**
     * A reader of the {@code batches} the footer of {@code data} lists, whose columns are
     * {@code schema}'s; {@code meta}, when not null, must agree with each batch's row count, and
     * when it {@linkplain BlockMeta#hasChecksums has checksums} each batch must match its own.
     */
    BatchReader(BlockRef block, BufferAllocator allocator, CountedChannel data, List<ArrowBlock> batches,
                Schema schema, BlockMeta meta, long gap) {
        this.block = block;
        this.gap = gap;
        this.allocator = allocator;
        this.data = data;
        this.batches = batches;
        this.schema = schema;
        this.columnNames = schema.getFields().stream().map(Field::getName).toList();
        this.meta = meta;
        this.totalNodes = schema.getFields().stream().mapToInt(ColumnBuffers::nodes).sum();
        this.totalBuffers = schema.getFields().stream().mapToInt(ColumnBuffers::buffers).sum();
    }

    /** The number of record batches. */
    int batchCount() {
        return batches.size();
    }

    /** The record batches the footer lists, in file order. */
    List<ArrowBlock> batches() {
        return batches;
    }

    /** Every column name, in schema order. */
    List<String> columnNames() {
        return columnNames;
    }

    /**
     * Reads only the named columns of batch {@code batch}, in schema order; the caller closes the
     * root. Every length and offset is checked before memory is sized from it or a value is read
     * through it ({@link BufferChecker}), so a corrupt file gives a {@link CorruptBlockException},
     * never a wrong-sized allocation.
     */
    VectorSchemaRoot read(int batch, Collection<String> asked) throws CorruptBlockException {
        Set<String> columns = columnSet(asked);
        ArrowBlock arrowBlock = batches.get(batch);
        checkPlace(batch, arrowBlock);
        long bodyStart = arrowBlock.getOffset() + arrowBlock.getMetadataLength();
        List<ArrowBuf> owned = new ArrayList<>();
        VectorSchemaRoot root = null;
        try {
            CheckedPieces pieces = meta != null && meta.hasColumnChecksums()
                    ? CheckedPieces.read(block, batch, arrowBlock, meta.batches().get(batch).columns(),
                            chosenColumns(columns), columnNames, data, gap, allocator, owned)
                    : null;
            RecordBatch header;
            if (pieces != null) {
                try (VerifiedBatch headerBytes = pieces.header()) {
                    header = readHeader(batch, arrowBlock, headerBytes);
                }
            } else {
                header = readHeader(batch, arrowBlock, source(batch, arrowBlock));
            }
            long rows = header.length();
            if (rows < 1 || rows > BlockLayout.MAX_BATCH_ROWS) {
                throw corrupt(batch, "has " + rows + " rows, expected 1.." + BlockLayout.MAX_BATCH_ROWS);
            }
            if (meta != null && meta.batches().get(batch).rows() != rows) {
                throw corrupt(batch, "has " + rows + " rows, meta.json says " + meta.batches().get(batch).rows());
            }
            BufferChecker checker = new BufferChecker(block, batch, header, arrowBlock.getBodyLength(), allocator);
            List<Field> chosen = new ArrayList<>();
            List<Integer> planColumns = new ArrayList<>();
            int node = 0;
            int buffer = 0;
            for (int c = 0; c < schema.getFields().size(); c++) {
                Field field = schema.getFields().get(c);
                if (header.nodes(node).length() != rows) {
                    throw corrupt(batch, "column " + field.getName() + " has " + header.nodes(node).length()
                            + " values for " + rows + " rows");
                }
                if (columns.contains(field.getName())) {
                    chosen.add(field);
                    checker.add(field, node, buffer);
                    while (planColumns.size() < checker.plans().size()) {
                        planColumns.add(c);
                    }
                }
                node += ColumnBuffers.nodes(field);
                buffer += ColumnBuffers.buffers(field);
            }
            List<ArrowBuf> stored = pieces != null
                    ? pieces.buffers(checker.plans(), planColumns)
                    : readRanges(source(batch, arrowBlock), checker.plans(), bodyStart, owned);
            List<ArrowBuf> buffers = checker.checkContents(stored, owned);
            root = VectorSchemaRoot.create(new Schema(chosen), allocator);
            try (ArrowRecordBatch recordBatch = new ArrowRecordBatch((int) rows, checker.nodes(), buffers)) {
                new VectorLoader(root).load(recordBatch);
            }
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

    /**
     * The ranges of data.arrow that {@link #read} of {@code asked} columns of batch {@code batch}
     * reads next, in file order, computed as that read computes them: with checksums per column the
     * header's and the columns' runs ({@link CheckedPieces}), with one per batch the whole batch
     * ({@link VerifiedBatch}) unless its checked copy is held already; without checksums none, as
     * where the columns lie is known only once the batch's header is read.
     */
    List<ByteRange> ranges(int batch, Collection<String> asked) throws CorruptBlockException {
        Set<String> columns = columnSet(asked);
        ArrowBlock arrowBlock = batches.get(batch);
        checkPlace(batch, arrowBlock);
        if (meta != null && meta.hasColumnChecksums()) {
            return CheckedPieces.ranges(block, batch, arrowBlock, meta.batches().get(batch).columns(),
                    chosenColumns(columns), columnNames, gap);
        }
        if (meta != null && meta.hasChecksums() && (verified == null || verified.batch() != batch)) {
            return VerifiedBatch.ranges(arrowBlock);
        }
        return List.of();
    }

    /** {@code asked} as a set, every one of them a column of the schema. */
    private Set<String> columnSet(Collection<String> asked) {
        Set<String> columns = asked instanceof Set<String> set ? set : new HashSet<>(asked);
        if (!columnNames.containsAll(columns)) {
            throw new IllegalArgumentException("unknown column among " + columns + " for " + block.signal());
        }
        return columns;
    }

    /** The schema positions of {@code columns}, ascending. */
    private List<Integer> chosenColumns(Set<String> columns) {
        List<Integer> chosen = new ArrayList<>();
        for (int c = 0; c < columnNames.size(); c++) {
            if (columns.contains(columnNames.get(c))) {
                chosen.add(c);
            }
        }
        return chosen;
    }

    /**
     * Reads the byte ranges, one read per run of adjacent ranges: a column's buffers are contiguous.
     * From a checked batch they are slices of its copy, which the loaded vectors then share.
     */
    private List<ArrowBuf> readRanges(SeekableByteChannel source, List<BufferChecker.BufferPlan> ranges, long bodyStart,
                                      List<ArrowBuf> owned) throws IOException {
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
            ArrowBuf run;
            if (source instanceof VerifiedBatch checked) {
                run = checked.slice(bodyStart + start, end - start);
            } else {
                run = allocator.buffer(Math.max(1, end - start));
                owned.add(run);
                readFully(source, run.nioBuffer(0, (int) (end - start)), bodyStart + start);
            }
            for (int k = i; k <= j; k++) {
                buffers.add(run.slice(ranges.get(k).offset() - start, ranges.get(k).size()));
            }
            i = j + 1;
        }
        return buffers;
    }

    /**
     * Where batch {@code batch}'s bytes are read from: data.arrow itself, or with checksums a copy
     * of the whole batch checked against its own, once its place in the file is checked.
     */
    private SeekableByteChannel source(int batch, ArrowBlock arrowBlock) throws CorruptBlockException {
        try {
            if (meta == null || !meta.hasChecksums()) {
                return data;
            }
            if (verified == null || verified.batch() != batch) {
                closeVerified();
                verified = VerifiedBatch.read(block, batch, arrowBlock, meta.batches().get(batch).crc32c(), data,
                        allocator);
            }
            return verified;
        } catch (CorruptBlockException e) {
            throw e;
        } catch (IOException | RuntimeException e) {
            throw new CorruptBlockException(block, "cannot read batch " + batch + ": " + e, e);
        }
    }

    /** Checks that the footer places batch {@code batch} inside the file, before anything is sized from it. */
    private void checkPlace(int batch, ArrowBlock arrowBlock) throws CorruptBlockException {
        try {
            int metadataLength = arrowBlock.getMetadataLength();
            if (arrowBlock.getOffset() < 0 || metadataLength < 8 || metadataLength > MAX_BATCH_METADATA
                    || arrowBlock.getBodyLength() < 0
                    || arrowBlock.getOffset() + metadataLength + arrowBlock.getBodyLength() > data.size()) {
                throw corrupt(batch, "the footer places it outside the file");
            }
        } catch (IOException e) {
            throw new CorruptBlockException(block, "cannot read batch " + batch + ": " + e, e);
        }
    }

    private RecordBatch readHeader(int batch, ArrowBlock arrowBlock, SeekableByteChannel source)
            throws CorruptBlockException {
        try {
            int metadataLength = arrowBlock.getMetadataLength();
            // MessageSerializer sizes its buffer from this prefix: check it against the footer first.
            ByteBuffer prefix = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
            readFully(source, prefix, arrowBlock.getOffset());
            int continuation = prefix.getInt(0);
            int length = prefix.getInt(4);
            if (continuation != MessageSerializer.IPC_CONTINUATION_TOKEN || length < 1 || length > metadataLength - 8) {
                throw corrupt(batch, "has a bad message prefix");
            }
            source.position(arrowBlock.getOffset());
            MessageMetadataResult message = MessageSerializer.readMessage(new ReadChannel(source));
            if (message == null || message.getMessage().headerType() != MessageHeader.RecordBatch) {
                throw corrupt(batch, "does not start with a record batch message");
            }
            RecordBatch header = (RecordBatch) message.getMessage().header(new RecordBatch());
            BodyCompression compression = header.compression();
            if (compression != null && (compression.codec() != BlockLayout.CODEC.getType()
                    || compression.method() != BodyCompressionMethod.BUFFER)) {
                throw corrupt(batch, "is compressed with codec " + compression.codec() + ", method "
                        + compression.method() + "; needle writes only " + BlockLayout.CODEC + " ("
                        + BlockLayout.CODEC.getType() + "), method BUFFER (" + BodyCompressionMethod.BUFFER + ")");
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
        return CorruptBlockException.inBatch(block, batch, problem);
    }

    private static void readFully(SeekableByteChannel source, ByteBuffer target, long position) throws IOException {
        source.position(position);
        while (target.hasRemaining()) {
            if (source.read(target) < 0) {
                throw new IOException("data.arrow ends inside a batch");
            }
        }
    }

    private void closeVerified() {
        if (verified != null) {
            verified.close();
            verified = null;
        }
    }

    /** Releases the checked copy of the last batch; data.arrow is the block reader's to close. */
    @Override
    public void close() {
        closeVerified();
    }
}
