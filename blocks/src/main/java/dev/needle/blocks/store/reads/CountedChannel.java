package dev.needle.blocks.store.reads;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * A read-only channel that counts the bytes read through it and tells a {@link RequestCounter} of
 * each read call: the local store's requests, and the bytes a block reader takes from any store.
 */
public final class CountedChannel implements SeekableByteChannel {

    private final SeekableByteChannel delegate;
    private final RequestCounter counter;
    private long bytesRead;

    /** Reads through {@code delegate}, telling {@code counter} of each read. */
    public CountedChannel(SeekableByteChannel delegate, RequestCounter counter) {
        this.delegate = delegate;
        this.counter = counter;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int n = delegate.read(dst);
        counter.request(Math.max(n, 0));
        if (n > 0) {
            bytesRead += n;
        }
        return n;
    }

    /** Bytes read through this channel so far. */
    public long bytesRead() {
        return bytesRead;
    }

    /**
     * Whether each read through this channel is a request that {@link #fetchAhead} can make ahead of
     * it: an object's ranged GET. A local file's read calls are not: they cost little each.
     */
    public boolean fetchesAhead() {
        return delegate instanceof AheadFetching;
    }

    /**
     * Where {@link #fetchesAhead}, fetches {@code ranges} at once on {@code pool} and holds their bytes
     * until the reads within them have taken them to their ends (or the channel is closed), telling the counter
     * under this channel of each request as it is made; returns once every range is held, or throws
     * the first failure. Elsewhere nothing: the reads read as they always do.
     */
    public void fetchAhead(List<ByteRange> ranges, ExecutorService pool) throws IOException {
        if (delegate instanceof AheadFetching ahead) {
            ahead.fetchAhead(ranges, pool);
        }
    }

    /** The bytes {@link #fetchAhead} fetched that no read took yet. */
    public long heldBytes() {
        return delegate instanceof AheadFetching ahead ? ahead.heldBytes() : 0;
    }

    @Override
    public int write(ByteBuffer src) {
        throw new NonWritableChannelException();
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public SeekableByteChannel position(long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public SeekableByteChannel truncate(long size) {
        throw new NonWritableChannelException();
    }

    @Override
    public boolean isOpen() {
        return delegate.isOpen();
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }
}
