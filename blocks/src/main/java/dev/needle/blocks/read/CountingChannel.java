package dev.needle.blocks.read;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;

/** A read-only channel that counts the bytes read through it, for EXPLAIN and the benchmarks. */
final class CountingChannel implements SeekableByteChannel {

    private final SeekableByteChannel delegate;
    private long bytesRead;

    CountingChannel(SeekableByteChannel delegate) {
        this.delegate = delegate;
    }

    long bytesRead() {
        return bytesRead;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        int n = delegate.read(dst);
        if (n > 0) {
            bytesRead += n;
        }
        return n;
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
