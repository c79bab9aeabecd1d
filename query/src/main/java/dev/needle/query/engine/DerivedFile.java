package dev.needle.query.engine;

import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;

/** Reads a block's derived files (TAGS, COUNTS), which a query uses when it can and reads the block without. */
final class DerivedFile {

    private DerivedFile() {
    }

    /**
     * File {@code name} of block {@code ref}, or null when it is larger than {@code maxBytes}, which its format
     * never writes.
     *
     * @throws IOException when it is missing or cannot be read
     */
    static byte[] read(BlockStore store, BlockRef ref, String name, long maxBytes) throws IOException {
        try (SeekableByteChannel channel = store.open(ref, name)) {
            return channel.size() > maxBytes ? null : Channels.newInputStream(channel).readAllBytes();
        }
    }
}
