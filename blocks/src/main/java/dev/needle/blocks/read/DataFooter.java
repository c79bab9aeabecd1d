package dev.needle.blocks.read;

import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.store.BlockRef;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowFooter;

/**
 * The end of a block's data.arrow from its Arrow footer on: the footer's flatbuffer, its i32
 * little-endian length and the magic {@code ARROW1} (Arrow's IPC file format, not needle's). An index
 * keeps it beside meta.json, so that a reader knows where each record batch lies and reads a batch
 * without first reading the file's tail ({@link BlockReader#openKnown}). {@link #read} takes it from a
 * file; {@link #facts} trusts nothing it is given: bytes that are not the footer of a file that
 * meta.json describes give no facts, and the block's own files are read instead.
 */
public final class DataFooter {

    /** The largest footer kept: one holds the schema and 24 bytes per batch, a few KiB for a million rows. */
    public static final int MAX_BYTES = 1 << 20;

    private static final byte[] MAGIC = "ARROW1".getBytes(StandardCharsets.US_ASCII);
    /** The footer's length and the magic after it. */
    private static final int END_BYTES = 4 + 6;
    /** The magic and its padding that open the file, before the first message. */
    private static final int START_BYTES = 8;

    private DataFooter() {
    }

    /**
     * The last bytes of {@code data} from its footer on; empty when the file does not end as an Arrow
     * file does or its footer passes {@link #MAX_BYTES}.
     */
    public static byte[] read(SeekableByteChannel data) throws IOException {
        long size = data.size();
        if (size < START_BYTES + END_BYTES) {
            return new byte[0];
        }
        ByteBuffer end = readFully(data, size - END_BYTES, END_BYTES);
        int length = end.getInt(0);
        if (!Arrays.equals(end.array(), 4, END_BYTES, MAGIC, 0, MAGIC.length) || length <= 0 || length > MAX_BYTES
                || length > size - START_BYTES - END_BYTES) {
            return new byte[0];
        }
        return readFully(data, size - END_BYTES - length, length + END_BYTES).array();
    }

    private static ByteBuffer readFully(SeekableByteChannel data, long from, int length) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        data.position(from);
        while (buffer.hasRemaining()) {
            if (data.read(buffer) < 0) {
                throw new EOFException("data.arrow ended at byte " + data.position() + ", before byte "
                        + (from + length));
            }
        }
        return buffer;
    }

    /**
     * What opening {@code block} would learn, from {@code footer} (its data.arrow's, as {@link #read}
     * took it) and {@code meta} (its meta.json): empty when the footer is not one, names another
     * schema than the block's signal has, or does not agree with meta.json (batch count, batches
     * inside the file meta.json sizes), and when meta.json has no checksums, which are what checks
     * every byte read through these facts.
     */
    public static Optional<BlockFacts> facts(BlockRef block, BlockMeta meta, byte[] footer) {
        int length = footer.length - END_BYTES;
        if (length <= 0 || !meta.hasChecksums()
                || !Arrays.equals(footer, length + 4, footer.length, MAGIC, 0, MAGIC.length)
                || ByteBuffer.wrap(footer, length, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() != length
                || footer.length > meta.dataBytes() - START_BYTES) {
            return Optional.empty();
        }
        try {
            ArrowFooter parsed = new ArrowFooter(Footer.getRootAsFooter(ByteBuffer.wrap(footer, 0, length).slice()));
            List<ArrowBlock> batches = parsed.getRecordBatches();
            long batchesEnd = meta.dataBytes() - footer.length;
            boolean inside = batches.stream().allMatch(b -> b.getOffset() >= START_BYTES && b.getMetadataLength() > 0
                    && b.getBodyLength() >= 0
                    && b.getOffset() + b.getMetadataLength() + b.getBodyLength() <= batchesEnd);
            if (!parsed.getSchema().equals(BlockReader.schemaOf(block)) || !parsed.getDictionaries().isEmpty()
                    || BlockReader.mismatch(meta, block, batches.size(), meta.dataBytes()) != null || !inside) {
                return Optional.empty();
            }
            return Optional.of(new BlockFacts(meta, batches));
        } catch (RuntimeException e) {
            // Bytes that are no flatbuffer footer: the block's own data.arrow is read instead.
            return Optional.empty();
        }
    }
}
