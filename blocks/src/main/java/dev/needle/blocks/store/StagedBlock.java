package dev.needle.blocks.store;

import dev.needle.blocks.model.Signal;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.util.Objects;

/**
 * A pending block whose files are staged in a local directory until a store makes them visible: the
 * part every store shares (the block's place, its one publish, its one close), the store doing the rest.
 */
public abstract class StagedBlock implements PendingBlock {

    protected final TenantId tenant;
    protected final Signal signal;
    protected final Path staging;
    private boolean published;
    private boolean closed;

    protected StagedBlock(TenantId tenant, Signal signal, Path staging) {
        this.tenant = tenant;
        this.signal = signal;
        this.staging = staging;
    }

    /** A new file in the staging directory. */
    protected abstract OutputStream newFile(Path file) throws IOException;

    /**
     * Makes the staged files visible as {@code ref}, calling {@link #madeVisible} the moment readers
     * may see them (a failure after it leaves the block published).
     */
    protected abstract void makeVisible(BlockRef ref) throws IOException;

    /** Drops what is left of the staging directory; {@code published} says whether the block was published. */
    protected abstract void discard(boolean published) throws IOException;

    @Override
    public final OutputStream create(String file) throws IOException {
        checkOpen();
        return newFile(staging.resolve(BlockRef.checkFileName(file)));
    }

    @Override
    public final BlockRef publish(BlockName name) throws IOException {
        Objects.requireNonNull(name, "name");
        checkOpen();
        BlockRef ref = new BlockRef(tenant, signal, name);
        makeVisible(ref);
        return ref;
    }

    /** Records that the block is visible: it is no longer the staging area's to discard. */
    protected final void madeVisible() {
        published = true;
    }

    @Override
    public final void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        discard(published);
    }

    private void checkOpen() {
        if (published || closed) {
            throw new IllegalStateException("block staged in " + staging + " is already "
                    + (published ? "published" : "closed"));
        }
    }

    /** The error of a publish that finds {@code ref}'s name taken, {@code where}; {@code cause} may be null. */
    protected static FileAlreadyExistsException alreadyPublished(BlockRef ref, String where, String outcome, Exception cause) {
        FileAlreadyExistsException e = new FileAlreadyExistsException(where, null,
                "a block named " + ref.name() + " is already published; " + outcome);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }
}
