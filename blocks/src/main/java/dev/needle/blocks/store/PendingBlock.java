package dev.needle.blocks.store;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * A block being written: files go into a staging area, then {@link #publish} makes the whole block
 * visible at once under its final name. Closing without publishing discards everything.
 */
public interface PendingBlock extends Closeable {

    /** A new file of the block; the caller closes the stream before publishing. */
    OutputStream create(String file) throws IOException;

    /**
     * Makes the block visible under {@code name}, durably (every file and the rename are synced).
     *
     * @throws java.nio.file.FileAlreadyExistsException when a block of that name is already
     *     published; nothing changes and another name may be tried
     */
    BlockRef publish(BlockName name) throws IOException;

    /** Discards the staged files unless the block was published. */
    @Override
    void close() throws IOException;
}
