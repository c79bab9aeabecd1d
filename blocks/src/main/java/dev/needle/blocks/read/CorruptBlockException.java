package dev.needle.blocks.read;

import dev.needle.blocks.store.BlockRef;
import java.io.IOException;

/** A block's data could not be read; the message names the block and what was wrong. */
public final class CorruptBlockException extends IOException {

    private final transient BlockRef block;
    private final String reason;

    /** A failure to read {@code block}, for {@code reason}. */
    public CorruptBlockException(BlockRef block, String reason, Throwable cause) {
        super("block " + block + ": " + reason, cause);
        this.block = block;
        this.reason = reason;
    }

    /** A problem with record batch {@code batch} of {@code block}: "block B: batch N {@code problem}". */
    static CorruptBlockException inBatch(BlockRef block, int batch, String problem) {
        return new CorruptBlockException(block, "batch " + batch + " " + problem, null);
    }

    /** The block that could not be read. */
    public BlockRef block() {
        return block;
    }

    /** What was wrong, without the block's name: the message is "block B: " and this. */
    public String reason() {
        return reason;
    }
}
