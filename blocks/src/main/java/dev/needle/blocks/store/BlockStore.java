package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.concurrent.ExecutorService;

/**
 * Where blocks live: list block names, read byte ranges of a block's files, publish a block
 * atomically, delete a block. The local filesystem ({@link FsBlockStore}) is the embedded
 * default; an object store can implement the same four operations.
 */
public interface BlockStore {

    /** Tenants that have at least one signal directory, in name order. */
    List<TenantId> tenants() throws IOException;

    /** The published blocks of one tenant and signal, in name order (which is time order). */
    List<BlockRef> list(TenantId tenant, Signal signal) throws IOException;

    /**
     * Opens one file of a published block for positioned reads.
     *
     * @throws java.nio.file.NoSuchFileException when the block or the file does not exist
     */
    SeekableByteChannel open(BlockRef block, String file) throws IOException;

    /**
     * Opens one file of a published block as {@link #open(BlockRef, String)} does, telling
     * {@code counter} of every request made for it, opening included: here, each read call.
     *
     * @throws java.nio.file.NoSuchFileException when the block or the file does not exist
     */
    default SeekableByteChannel open(BlockRef block, String file, RequestCounter counter) throws IOException {
        return new CountedChannel(open(block, file), counter);
    }

    /**
     * Bytes between two ranges of one file that cost less to read through than a second read: a
     * reader fetches ranges closer than this as one. Local files: a few KiB (a read call costs
     * about as much as copying them); an object store: far more, a request costs 20–100 ms.
     */
    default long coalesceGap() {
        return 4 << 10;
    }

    /**
     * Where a reader runs the reads of one block that do not depend on each other (meta.json and
     * data.arrow's opening): a small bounded pool on an object store, where each is a round trip;
     * locally the calling thread, at once.
     */
    default ExecutorService readPool() {
        return CallerRuns.INSTANCE;
    }

    /** Starts a block: its files are written into a private staging area, never visible to readers. */
    PendingBlock create(TenantId tenant, Signal signal) throws IOException;

    /** Deletes a published block; readers see it whole or not at all. Deleting a missing block is not an error. */
    void delete(BlockRef block) throws IOException;
}
