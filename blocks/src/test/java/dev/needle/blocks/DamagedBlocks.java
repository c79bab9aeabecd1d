package dev.needle.blocks;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;

/** Damage done to a published block's files on disk, the way a failing disk does it. */
public final class DamagedBlocks {

    private DamagedBlocks() {
    }

    /** Flips one bit in the middle of record batch {@code batch}'s body in the block's data.arrow. */
    public static void flipBitInBatch(Path blockDir, int batch, BufferAllocator allocator) throws IOException {
        Path data = blockDir.resolve(BlockLayout.DATA);
        ArrowBlock place;
        try (ArrowFileReader reader = new ArrowFileReader(FileChannel.open(data, StandardOpenOption.READ), allocator)) {
            place = reader.getRecordBlocks().get(batch);
        }
        flipBit(data, place.getOffset() + place.getMetadataLength() + place.getBodyLength() / 2);
    }

    /** Flips bit 4 of the byte at {@code position} of {@code file}. */
    public static void flipBit(Path file, long position) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[Math.toIntExact(position)] ^= 0x10;
        Files.write(file, bytes);
    }
}
