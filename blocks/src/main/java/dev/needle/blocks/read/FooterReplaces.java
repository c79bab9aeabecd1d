package dev.needle.blocks.read;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.flatbuf.Footer;
import org.apache.arrow.vector.ipc.message.ArrowFooter;

/**
 * The second copy of the blocks a block replaces ({@link dev.needle.blocks.meta.BlockMeta#replaces} is the
 * first): one entry of the custom metadata of data.arrow's Arrow footer, key {@value #KEY}, value the
 * names of the replaced blocks in name order, separated by {@code ,}.
 *
 * <p>Why the footer: it is what every reader of the block's records reads first (or holds the index's copy
 * of) to find the record batches. Whoever can answer the block's records can therefore learn what it
 * replaces, even when its meta.json cannot be read; and a block whose footer cannot be read answers no
 * record, so it replaces none. Only a block that replaces others has the entry: every other block's
 * data.arrow stays byte for byte what it was. A block without it replaces nothing, or was written before
 * the copy existed (its meta.json is then the only copy).
 */
public final class FooterReplaces {

    /** The footer metadata key. */
    public static final String KEY = "needle.replaces";

    private static final int END_BYTES = 4 + 6;

    private FooterReplaces() {
    }

    /** The footer metadata of a block that replaces {@code replaces}: null when it replaces none. */
    public static Map<String, String> metadata(List<BlockName> replaces) {
        if (replaces.isEmpty()) {
            return null;
        }
        List<String> names = replaces.stream().sorted().distinct().map(BlockName::toString).toList();
        return Map.of(KEY, String.join(",", names));
    }

    /**
     * What {@code footer} ({@link DataFooter#read} of {@code block}'s data.arrow) says {@code block} replaces:
     * empty when it has no entry.
     *
     * @throws CorruptBlockException when the bytes are no Arrow footer, or the entry is not a list of block
     *                               names, in order, each inside the range of {@code block}'s name (a replacing
     *                               block's name covers those it replaces)
     */
    public static Optional<List<BlockName>> of(BlockRef block, byte[] footer) throws CorruptBlockException {
        int length = footer.length - END_BYTES;
        if (length <= 0 || ByteBuffer.wrap(footer, length, 4).order(ByteOrder.LITTLE_ENDIAN).getInt() != length) {
            throw new CorruptBlockException(block, "data.arrow has no Arrow footer", null);
        }
        Map<String, String> metadata;
        try {
            metadata = new ArrowFooter(Footer.getRootAsFooter(ByteBuffer.wrap(footer, 0, length).slice())).getMetaData();
        } catch (RuntimeException e) {
            throw new CorruptBlockException(block, "data.arrow's footer cannot be read: " + e, e);
        }
        String value = metadata == null ? null : metadata.get(KEY);
        if (value == null) {
            return Optional.empty();
        }
        List<BlockName> names = new ArrayList<>();
        for (String text : value.split(",", -1)) {
            BlockName name = BlockName.parse(text).orElse(null);
            BlockName own = block.name();
            if (name == null || !names.isEmpty() && names.get(names.size() - 1).compareTo(name) >= 0
                    || name.startUnixMilli() < own.startUnixMilli() || name.endUnixMilli() > own.endUnixMilli()
                    || name.id().equals(own.id())) {
                throw new CorruptBlockException(block, "data.arrow's footer names no list of replaced blocks under "
                        + KEY + ": '" + value + "'", null);
            }
            names.add(name);
        }
        return Optional.of(List.copyOf(names));
    }

    /**
     * {@link #of} the footer of {@code block}'s own data.arrow.
     *
     * @throws CorruptBlockException when data.arrow is missing or its footer cannot be read
     * @throws IOException           when data.arrow cannot be read for now
     */
    public static Optional<List<BlockName>> read(BlockStore store, BlockRef block) throws IOException {
        byte[] footer;
        try (SeekableByteChannel data = store.open(block, BlockLayout.DATA)) {
            footer = DataFooter.read(data);
        } catch (NoSuchFileException e) {
            throw new CorruptBlockException(block, "no data.arrow", e);
        }
        return of(block, footer);
    }
}
