package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.reads.CountedChannel;
import dev.needle.blocks.store.reads.RequestCounter;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * Where blocks live. Five operations make a store: list its tenants ({@link #tenants}), list a
 * tenant's blocks of one signal ({@link #list}), open a file of a published block for positioned
 * reads ({@link #open(BlockRef, String)}), start a block whose publish is atomic ({@link #create}),
 * and delete a block ({@link #delete}). The local filesystem ({@code store.fs.FsBlockStore}) is the
 * embedded default; a bucket ({@code store.s3.S3BlockStore}) is the other.
 *
 * <p>The default methods are what a local store needs and an object store overrides: opening with
 * each request counted ({@link #open(BlockRef, String, RequestCounter)}) or with the size known
 * ({@link #openKnown}), how reads are coalesced and run ({@link #coalesceGap}, {@link #readPool},
 * {@link #blocksReadAtOnce}), and the index object that a store may keep beside the blocks of each
 * tenant and signal ({@code dev.needle.blocks.index.BlockIndex}), read conditionally
 * ({@link #readIndex}) and replaced by compare-and-swap ({@link #writeIndex}, {@link #keepsIndex}).
 *
 * <p>Thread-safe: every implementation may be used by many threads at once (a server's ingest, its
 * queries and its compactions share one). What it hands out is not: a {@link PendingBlock} and an
 * opened channel are each for one thread at a time.
 */
public interface BlockStore {

    /** The name of the index object in {@code <tenant>/<signal>/}: not a block name, so no listing takes it for one. */
    String INDEX_OBJECT = "INDEX";

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
     * Opens one file of a published block whose size the caller knows (an index recorded it) as
     * {@link #open(BlockRef, String, RequestCounter)} does, but where the store can without a request
     * of its own: its first read then checks that the file has {@code size} bytes and fails if not.
     * Here, as {@link #open(BlockRef, String, RequestCounter)}: opening a local file costs no request.
     *
     * @throws java.nio.file.NoSuchFileException when the block or the file does not exist (here; a store
     *         that makes no request fails the first read instead)
     */
    default SeekableByteChannel openKnown(BlockRef block, String file, long size, RequestCounter counter)
            throws IOException {
        return open(block, file, counter);
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

    /**
     * How many blocks a query engine given {@code threads} reads at once: locally those threads, each
     * busy decoding; on an object store at least a few more, as each mostly waits for its GETs.
     */
    default int blocksReadAtOnce(int threads) {
        return threads;
    }

    /** Starts a block: its files are written into a private staging area, never visible to readers. */
    PendingBlock create(TenantId tenant, Signal signal) throws IOException;

    /** Deletes a published block; readers see it whole or not at all. Deleting a missing block is not an error. */
    void delete(BlockRef block) throws IOException;

    /**
     * Reads the index object of {@code tenant}'s {@code signal}; empty when there is none. When its
     * version is still {@code knownToken} (null: none known), answers so without reading its bytes.
     * A store that keeps no index answers empty, and readers list.
     *
     * @throws IOException when the object cannot be read (readers then list)
     */
    default Optional<IndexObject> readIndex(TenantId tenant, Signal signal, String knownToken) throws IOException {
        return Optional.empty();
    }

    /**
     * Replaces the index object of {@code tenant}'s {@code signal} with {@code bytes} if its version is
     * still {@code expectedToken}, or creates it if {@code expectedToken} is null and there is none.
     * Returns the new version's token, or null when another writer changed the object first: the
     * caller re-reads it and tries again.
     *
     * @throws UnsupportedOperationException when the store keeps no index or is read-only
     */
    default String writeIndex(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        throw new UnsupportedOperationException("this store keeps no index");
    }

    /** Whether {@link #writeIndex} works here: writers that find it false leave the index alone. */
    default boolean keepsIndex() {
        return false;
    }
}
