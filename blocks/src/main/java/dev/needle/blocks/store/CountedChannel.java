package dev.needle.blocks.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

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
