package dev.needle.blocks.read;

import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.reads.ByteRange;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/**
 * One record batch's whole IPC message, read from data.arrow into memory and checked against the
 * CRC-32C that meta.json holds for it, then served as a read-only channel at the file's own
 * positions: {@link BatchReader} reads the header from here exactly as from the file, and takes
 * the column ranges as slices of the copy, so every byte it sees has been checked. Outside the
 * batch the channel is at its end. Closing releases the copy once the vectors loaded from its
 * slices are closed too: they hold their own references.
 */
final class VerifiedBatch implements SeekableByteChannel {

    /** NIO lengths are ints: a batch is read and checksummed in pieces of at most this. */
    private static final int PIECE = 1 << 30;

    private final int batch;
    private final long offset;
    private final ArrowBuf bytes;
    private long position;
    private boolean closed;

    private VerifiedBatch(int batch, long offset, ArrowBuf bytes) {
        this.batch = batch;
        this.offset = offset;
        this.bytes = bytes;
    }

    /**
     * The ranges of data.arrow that {@link #read} reads for a batch the footer places at
     * {@code place}, in file order: the whole batch, in pieces of at most {@link #PIECE} bytes.
     */
    static List<ByteRange> ranges(ArrowBlock place) {
        long start = place.getOffset();
        long end = start + place.getMetadataLength() + place.getBodyLength();
        List<ByteRange> ranges = new ArrayList<>();
        for (long at = start; at < end; at += PIECE) {
            ranges.add(new ByteRange(at, Math.min(end, at + PIECE)));
        }
        return ranges;
    }

    /**
     * Reads batch {@code batch}, which the footer places at {@code place} (already checked to lie in
     * the file), from {@code data} and checks it against {@code expected}; a mismatch is a
     * {@link CorruptBlockException} that names both checksums.
     */
    static VerifiedBatch read(BlockRef block, int batch, ArrowBlock place, long expected, SeekableByteChannel data,
                              BufferAllocator allocator) throws IOException {
        long length = place.getMetadataLength() + place.getBodyLength();
        ArrowBuf bytes = allocator.buffer(length);
        try {
            CRC32C crc = new CRC32C();
            for (ByteRange range : ranges(place)) {
                ByteBuffer piece = bytes.nioBuffer(range.start() - place.getOffset(), (int) range.length());
                data.position(range.start());
                while (piece.hasRemaining()) {
                    if (data.read(piece) < 0) {
                        throw new IOException("data.arrow ends inside batch " + batch);
                    }
                }
                crc.update(piece.flip());
            }
            if (crc.getValue() != expected) {
                throw CorruptBlockException.inBatch(block, batch, String.format("checksum failed: expected crc32c"
                        + " 0x%08x (meta.json), actual 0x%08x over its %d bytes at offset %d of data.arrow",
                        expected, crc.getValue(), length, place.getOffset()));
            }
            return new VerifiedBatch(batch, place.getOffset(), bytes);
        } catch (IOException | RuntimeException e) {
            bytes.close();
            throw e;
        }
    }

    /**
     * A channel over {@code bytes}, which were checked already and lie at file position
     * {@code offset}: the header of batch {@code batch}, read by {@link CheckedPieces}. Holds a
     * reference of its own to them, which {@link #close} releases.
     */
    static VerifiedBatch of(int batch, long offset, ArrowBuf bytes) {
        bytes.getReferenceManager().retain();
        return new VerifiedBatch(batch, offset, bytes);
    }

    /** The index of the batch held. */
    int batch() {
        return batch;
    }

    /** The {@code length} bytes at file position {@code position}, which lie in the batch, without copying. */
    ArrowBuf slice(long position, long length) {
        if (position < offset || position + length > offset + bytes.capacity()) {
            throw new IndexOutOfBoundsException("bytes " + position + "..+" + length + " lie outside batch " + batch);
        }
        return bytes.slice(position - offset, length);
    }

    @Override
    public int read(ByteBuffer dst) {
        long end = offset + bytes.capacity();
        if (position < offset || position >= end) {
            return -1;
        }
        int n = (int) Math.min(dst.remaining(), end - position);
        dst.put(bytes.nioBuffer(position - offset, n));
        position += n;
        return n;
    }

    @Override
    public long position() {
        return position;
    }

    @Override
    public SeekableByteChannel position(long newPosition) {
        position = newPosition;
        return this;
    }

    @Override
    public long size() {
        return offset + bytes.capacity();
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new NonWritableChannelException();
    }

    @Override
    public boolean isOpen() {
        return !closed;
    }

    /** Releases this reference to the copy. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            bytes.close();
        }
    }
}
