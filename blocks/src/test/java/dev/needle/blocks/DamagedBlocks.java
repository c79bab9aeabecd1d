package dev.needle.blocks;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
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

    /**
     * Changes the last character of the first value of {@code field} in the JSON {@code file}, a digit or
     * hex letter, into another ('0' into '1', 'a' into 'b', …): the file still parses and says something
     * else, as a flipped bit in a zone map does. Returns the position changed.
     */
    public static long changeDigit(Path file, String field) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        String text = new String(bytes, StandardCharsets.ISO_8859_1);
        int at = text.indexOf("\"" + field + "\": ");
        if (at < 0) {
            throw new IllegalArgumentException(file + " has no field " + field);
        }
        int last = at + field.length() + 4;
        while (Character.digit(text.charAt(last + 1), 16) >= 0) {
            last++;
        }
        bytes[last] = changedDigit(bytes[last]);
        Files.write(file, bytes);
        return last;
    }

    /** Another digit or lower-case hex letter than {@code c}, one bit away where one is. */
    public static byte changedDigit(byte c) {
        if (c >= '0' && c <= '9') {
            return (byte) (c ^ 1);
        }
        if (c >= 'a' && c <= 'f') {
            return (byte) ('a' + (c - 'a' + 1) % 6);
        }
        throw new IllegalArgumentException("not a digit: " + (char) c);
    }

    /** Flips bit 4 of the byte at {@code position} of {@code file}. */
    public static void flipBit(Path file, long position) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        bytes[Math.toIntExact(position)] ^= 0x10;
        Files.write(file, bytes);
    }
}
