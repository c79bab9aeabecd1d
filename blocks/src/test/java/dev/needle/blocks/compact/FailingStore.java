package dev.needle.blocks.compact;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.ForwardingBlockStore;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A store that fails one step of a compaction as a crash there would leave it: the publish of a block,
 * the write of an index, or the delete of a block. Everything else goes to the real store.
 */
final class FailingStore extends ForwardingBlockStore {

    /** The step that fails. */
    enum Step { PUBLISH, WRITE_INDEX, DELETE }

    private final Step failing;

    FailingStore(BlockStore store, Step failing) {
        super(store);
        this.failing = failing;
    }

    private void check(Step step) throws IOException {
        if (step == failing) {
            throw new IOException("injected failure at " + step);
        }
    }

    @Override
    public PendingBlock create(TenantId tenant, Signal signal) throws IOException {
        PendingBlock pending = store.create(tenant, signal);
        return new PendingBlock() {
            @Override
            public OutputStream create(String file) throws IOException {
                return pending.create(file);
            }

            @Override
            public BlockRef publish(BlockName name) throws IOException {
                check(Step.PUBLISH);
                return pending.publish(name);
            }

            @Override
            public void close() throws IOException {
                pending.close();
            }
        };
    }

    @Override
    public void delete(BlockRef block) throws IOException {
        check(Step.DELETE);
        store.delete(block);
    }

    @Override
    public String writeIndex(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        check(Step.WRITE_INDEX);
        return store.writeIndex(tenant, signal, bytes, expectedToken);
    }
}
