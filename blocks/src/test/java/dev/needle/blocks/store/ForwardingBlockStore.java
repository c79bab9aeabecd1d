package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.reads.RequestCounter;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * A store that hands every call to another, so that a test overrides only the step it counts, holds
 * or fails, and the rest behaves as the real store does (its read pool and coalescing included).
 */
public class ForwardingBlockStore implements BlockStore {

    protected final BlockStore store;

    public ForwardingBlockStore(BlockStore store) {
        this.store = store;
    }

    @Override
    public List<TenantId> tenants() throws IOException {
        return store.tenants();
    }

    @Override
    public List<BlockRef> list(TenantId tenant, Signal signal) throws IOException {
        return store.list(tenant, signal);
    }

    @Override
    public SeekableByteChannel open(BlockRef block, String file) throws IOException {
        return store.open(block, file);
    }

    @Override
    public SeekableByteChannel open(BlockRef block, String file, RequestCounter counter) throws IOException {
        return store.open(block, file, counter);
    }

    @Override
    public SeekableByteChannel openKnown(BlockRef block, String file, long size, RequestCounter counter)
            throws IOException {
        return store.openKnown(block, file, size, counter);
    }

    @Override
    public long coalesceGap() {
        return store.coalesceGap();
    }

    @Override
    public ExecutorService readPool() {
        return store.readPool();
    }

    @Override
    public int blocksReadAtOnce(int threads) {
        return store.blocksReadAtOnce(threads);
    }

    @Override
    public PendingBlock create(TenantId tenant, Signal signal) throws IOException {
        return store.create(tenant, signal);
    }

    @Override
    public void delete(BlockRef block) throws IOException {
        store.delete(block);
    }

    @Override
    public Optional<IndexObject> readIndex(TenantId tenant, Signal signal, String knownToken) throws IOException {
        return store.readIndex(tenant, signal, knownToken);
    }

    @Override
    public String writeIndex(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        return store.writeIndex(tenant, signal, bytes, expectedToken);
    }

    @Override
    public boolean keepsIndex() {
        return store.keepsIndex();
    }
}
