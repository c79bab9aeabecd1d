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
import dev.needle.blocks.store.reads.ByteRange;
import dev.needle.blocks.store.reads.CountedChannel;
import dev.needle.blocks.store.reads.RequestCounter;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Reads one published block: its meta.json (zone maps, checksums), its sidecars, and chosen columns
 * of chosen record batches, counting every byte it reads.
 *
 * <p>Opening reads meta.json and the Arrow file's footer. {@link #read} then reads one batch's
 * message header and only the byte ranges of the columns asked for ({@link BatchReader}), so
 * looking up a trace in a block without checksums reads one batch's trace-id column, then that
 * whole batch only if it matched. When meta.json holds checksums per column (writer version 3), a
 * read fetches the batch's header and the asked columns' ranges (close ones in one read: the store's
 * {@linkplain BlockStore#coalesceGap gap}) and checks each before any of it is decoded; with one
 * checksum per batch (version 2) a batch is read whole, once, and checked. Bytes that do not match
 * are a {@link CorruptBlockException}: they are never answered from. A missing or corrupt data.arrow
 * is a {@link CorruptBlockException} naming the block; a missing or corrupt meta.json (one that fails its
 * own checksum too) only means "no zone maps and no checksums": the block is read as one of writer version 1.
 *
 * <p>Batches may be uncompressed or ZSTD-compressed (Arrow's BUFFER method: each buffer is an
 * 8-byte little-endian uncompressed length, −1 for "stored as is", then the ZSTD frame). A
 * compressed buffer's stated length is checked against what its field node needs before any
 * memory is sized from it ({@link BufferChecker}), so a corrupt length costs at most what the
 * node needs.
 *
 * <p>Not thread-safe: a reader is for one thread at a time (a query reads each block on one task),
 * though the reads it starts may run on the store's {@linkplain BlockStore#readPool read pool}. Many
 * readers may share one store; the static methods may be called from any thread.
 */
public final class BlockReader implements AutoCloseable {

    /**
     * The most bytes {@link #fetchAhead} has a reader hold: a few tens of batches' chosen columns, with
     * a few blocks read at once on an object store.
     */
    public static final long MAX_AHEAD_BYTES = 16 << 20;

    private final BlockRef block;
    private final BlockStore store;
    private final CountedChannel data;
    private final ArrowFileReader arrow;
    private final BatchReader batchReader;
    private final Schema schema;
    private final BlockMeta meta;
    private final String metaProblem;
    private long sideBytesRead;

    private BlockReader(BlockRef block, BlockStore store, BufferAllocator allocator, CountedChannel data,
                        ArrowFileReader arrow, List<ArrowBlock> batches, Schema schema, BlockMeta meta,
                        String metaProblem, long metaBytes) {
        this.block = block;
        this.store = store;
        this.data = data;
        this.arrow = arrow;
        this.batchReader = new BatchReader(block, allocator, data, batches, schema, meta, store.coalesceGap());
        this.schema = schema;
        this.meta = meta;
        this.metaProblem = metaProblem;
        this.sideBytesRead = metaBytes;
    }

    /** Opens a block: reads meta.json and the Arrow footer, and checks the schema is the one its signal has. */
    public static BlockReader open(BlockStore store, BlockRef block, BufferAllocator allocator)
            throws CorruptBlockException {
        return open(store, block, allocator, null);
    }

    /**
     * Opens a block whose meta.json and footer an earlier reader learnt ({@link #facts}), reading
     * neither, or as {@link #open(BlockStore, BlockRef, BufferAllocator)} when {@code known} is
     * null or data.arrow no longer has the size it had.
     */
    public static BlockReader open(BlockStore store, BlockRef block, BufferAllocator allocator, BlockFacts known)
            throws CorruptBlockException {
        return open(store, block, allocator, known, RequestCounter.NONE);
    }

    /**
     * As {@link #open(BlockStore, BlockRef, BufferAllocator, BlockFacts)}, telling {@code counter}
     * of every request made to the store for this block's meta.json and data.arrow, opening and
     * later reads included.
     */
    public static BlockReader open(BlockStore store, BlockRef block, BufferAllocator allocator, BlockFacts known,
                                   RequestCounter counter) throws CorruptBlockException {
        if (known != null) {
            CountedChannel data = openData(store, block, counter);
            try {
                if (data.size() == known.meta().dataBytes()) {
                    return new BlockReader(block, store, allocator, data, null, known.batches(), schemaOf(block),
                            known.meta(), null, 0);
                }
            } catch (IOException e) {
                // Read as if nothing were known: that reports the problem in its own words.
            }
            closeQuietly(data);
        }
        // data.arrow is opened while meta.json is read: on an object store two GETs at once, not one after the other.
        Future<CountedChannel> opening = store.readPool().submit(() -> openData(store, block, counter));
        BlockMeta meta = null;
        String metaProblem = null;
        long metaBytes = 0;
        try (InputStream in = Channels.newInputStream(store.open(block, BlockLayout.META, counter))) {
            byte[] json = in.readNBytes((int) BlockLayout.MAX_META_BYTES + 1);
            metaBytes = json.length;
            if (json.length > BlockLayout.MAX_META_BYTES) {
                metaProblem = "meta.json is larger than " + BlockLayout.MAX_META_BYTES + " bytes";
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
        return withFooter(block, store, allocator, opened(block, opening), meta, metaProblem, metaBytes);
    }

    /**
     * Opens a block whose meta.json is already known (an index holds it), reading only the Arrow
     * footer; {@code meta} is checked against data.arrow as a read one is. {@code counter} as in
     * {@link #open(BlockStore, BlockRef, BufferAllocator, BlockFacts, RequestCounter)}.
     */
    public static BlockReader openWithMeta(BlockStore store, BlockRef block, BufferAllocator allocator, BlockMeta meta,
                                           RequestCounter counter) throws CorruptBlockException {
        return withFooter(block, store, allocator, openData(store, block, counter), meta, null, 0);
    }

    /**
     * Opens a block whose meta.json and footer an index holds ({@link DataFooter#facts}), reading
     * neither, nor data.arrow's tail on a store that can open a file of known size without a request:
     * the first read then checks the size. {@code counter} as in
     * {@link #open(BlockStore, BlockRef, BufferAllocator, BlockFacts, RequestCounter)}.
     *
     * @throws CorruptBlockException when data.arrow cannot be opened, or has another size than meta.json says
     */
    public static BlockReader openKnown(BlockStore store, BlockRef block, BufferAllocator allocator, BlockFacts known,
                                        RequestCounter counter) throws CorruptBlockException {
        long size = known.meta().dataBytes();
        CountedChannel data = openData(store, block, counter, size);
        String problem;
        try {
            problem = data.size() == size ? null : "data.arrow has " + data.size() + " bytes, meta.json says " + size;
        } catch (IOException e) {
            problem = "cannot open data.arrow: " + e.getMessage();
        }
        if (problem != null) {
            closeQuietly(data);
            throw new CorruptBlockException(block, problem, null);
        }
        return new BlockReader(block, store, allocator, data, null, known.batches(), schemaOf(block), known.meta(), null,
                0);
    }

    /** Reads the footer of {@code data} and checks {@code meta} (null with {@code metaProblem} saying why) against it. */
    private static BlockReader withFooter(BlockRef block, BlockStore store, BufferAllocator allocator,
                                          CountedChannel data, BlockMeta meta, String metaProblem, long metaBytes)
            throws CorruptBlockException {
        ArrowFileReader arrow = new ArrowFileReader(data, allocator);
        try {
            List<ArrowBlock> batches = List.copyOf(arrow.getRecordBlocks());
            Schema schema = arrow.getVectorSchemaRoot().getSchema();
            if (!schema.equals(schemaOf(block))) {
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

    /** What {@code opening} opened, or why it could not. */
    private static CountedChannel opened(BlockRef block, Future<CountedChannel> opening) throws CorruptBlockException {
        try {
            return opening.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CorruptBlockException corrupt) {
                throw corrupt;
            }
            throw new CorruptBlockException(block, "cannot open data.arrow: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CorruptBlockException(block, "interrupted while opening data.arrow", e);
        }
    }

    private static CountedChannel openData(BlockStore store, BlockRef block, RequestCounter counter)
            throws CorruptBlockException {
        return openData(store, block, counter, -1);
    }

    /** Opens data.arrow, of {@code knownSize} bytes ({@link BlockStore#openKnown}) unless that is negative: unknown. */
    private static CountedChannel openData(BlockStore store, BlockRef block, RequestCounter counter, long knownSize)
            throws CorruptBlockException {
        try {
            return new CountedChannel(knownSize < 0 ? store.open(block, BlockLayout.DATA, counter)
                    : store.openKnown(block, BlockLayout.DATA, knownSize, counter), RequestCounter.NONE);
        } catch (NoSuchFileException e) {
            throw new CorruptBlockException(block, "data.arrow is missing", e);
        } catch (IOException e) {
            throw new CorruptBlockException(block, "cannot open data.arrow: " + e.getMessage(), e);
        }
    }

    /** The schema of {@code block}'s signal, which its data.arrow must have. */
    static Schema schemaOf(BlockRef block) {
        return block.signal() == Signal.SPANS ? SpanColumns.SCHEMA : LogColumns.SCHEMA;
    }

    /** Why a meta.json cannot be the one written with this data.arrow, or null when it can. */
    static String mismatch(BlockMeta meta, BlockRef block, int batches, long dataBytes) {
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

    /** The block's meta.json, or empty when it is missing or corrupt: then there are no zone maps or checksums. */
    public Optional<BlockMeta> meta() {
        return Optional.ofNullable(meta);
    }

    /**
     * What opening learnt, for {@link #open(BlockStore, BlockRef, BufferAllocator, BlockFacts)} to
     * skip next time; empty without a usable meta.json, so that a repaired one is read again.
     */
    public Optional<BlockFacts> facts() {
        return meta == null ? Optional.empty() : Optional.of(new BlockFacts(meta, batchReader.batches()));
    }

    /** Why {@link #meta} is empty; null when it is present. */
    public String metaProblem() {
        return metaProblem;
    }

    /** The number of record batches. */
    public int batchCount() {
        return batchReader.batchCount();
    }

    /** The Arrow schema of data.arrow. */
    public Schema schema() {
        return schema;
    }

    /**
     * Bytes read so far: meta.json, the footer, sidecars, batch headers and column ranges, and what
     * {@link #fetchAhead} fetched for reads not made (yet).
     */
    public long bytesRead() {
        return data.bytesRead() + data.heldBytes() + sideBytesRead;
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
        return readSidecar(store, block, name, RequestCounter.NONE);
    }

    /** As {@link #readSidecar(BlockStore, BlockRef, String)}, telling {@code counter} of each request made. */
    public static Sidecar readSidecar(BlockStore store, BlockRef block, String name, RequestCounter counter) {
        try (SeekableByteChannel channel = store.open(block, name, counter)) {
            return BloomSidecar.read(channel, block + "/" + name);
        } catch (NoSuchFileException e) {
            return Sidecar.failedOpen(FailOpenReason.MISSING, "block " + block + " has no " + name, 0);
        } catch (IOException | RuntimeException e) {
            return Sidecar.failedOpen(FailOpenReason.IO, "cannot read " + block + "/" + name + ": " + e, 0);
        }
    }

    /**
     * On a store where each read is a request (an object store's ranged GET), fetches the bytes that
     * reading {@code columns} (null: every column) of each of {@code batches} will take, computed as
     * those reads compute them, by requests made at once on the store's {@linkplain BlockStore#readPool
     * read pool}, and holds them until the reads take them or this reader is closed: n batches then
     * cost one round trip instead of n. The reads check every byte against its checksum as ever.
     * Takes {@code batches} in order while what this reader holds stays within
     * {@link #MAX_AHEAD_BYTES} (the first batch whatever its size) and returns how many it took; the
     * caller fetches the others later. A batch whose place the footer gets wrong ends the batches
     * taken, and its read reports it.
     *
     * <p>Locally this fetches nothing and takes every batch: a read call there costs about as much as
     * holding its bytes would, and reads stay as they are. So it does for a block without checksums
     * (writer version 1), whose columns only each batch's header places.
     *
     * @throws CorruptBlockException naming the block when a request fails; nothing is then held for
     *         the batches taken that it did not bring
     */
    public int fetchAhead(List<Integer> batches, Collection<String> columns) throws CorruptBlockException {
        if (!data.fetchesAhead() || meta == null || !meta.hasChecksums() || batches.isEmpty()) {
            return batches.size();
        }
        Collection<String> asked = columns == null ? batchReader.columnNames() : columns;
        List<ByteRange> ranges = new ArrayList<>();
        long bytes = data.heldBytes();
        int taken = 0;
        for (int b : batches) {
            List<ByteRange> batchRanges;
            try {
                batchRanges = batchReader.ranges(b, asked);
            } catch (CorruptBlockException e) {
                break;
            }
            long batchBytes = batchRanges.stream().mapToLong(ByteRange::length).sum();
            if (taken > 0 && bytes + batchBytes > MAX_AHEAD_BYTES) {
                break;
            }
            ranges.addAll(batchRanges);
            bytes += batchBytes;
            taken++;
        }
        try {
            data.fetchAhead(ranges, store.readPool());
        } catch (IOException e) {
            throw new CorruptBlockException(block, "cannot read data.arrow: " + e.getMessage(), e);
        }
        return Math.max(1, taken);
    }

    /** Reads every column of batch {@code batch}; the caller closes the root. */
    public VectorSchemaRoot readAll(int batch) throws CorruptBlockException {
        return batchReader.read(batch, batchReader.columnNames());
    }

    /**
     * Reads only the named columns of batch {@code batch}, in schema order; the caller closes the
     * root. Reads the batch's message header and one byte range per column, or with checksums the
     * whole batch, once, checked before anything is decoded. Every length and offset is checked
     * before memory is sized from it, and the loaded vectors are validated, so a corrupt file gives
     * a {@link CorruptBlockException}, never a wrong-sized allocation.
     */
    public VectorSchemaRoot read(int batch, Collection<String> columns) throws CorruptBlockException {
        return batchReader.read(batch, columns);
    }

    private static void closeQuietly(AutoCloseable closeable) {
        try {
            closeable.close();
        } catch (Exception ignored) {
            // Already failing with a better message.
        }
    }

    @Override
    public void close() throws IOException {
        batchReader.close();
        if (arrow != null) {
            arrow.close();
        } else {
            data.close();
        }
    }
}
