package dev.needle.blocks.read;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.store.BlockRef;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.flatbuf.RecordBatch;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BufferLayout;
import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * Checks the buffers of one record batch's chosen columns before any memory is sized from them,
 * and decompresses them.
 *
 * <p>First, from the batch's message header alone ({@link #add}): each buffer lies in the batch
 * body and, uncompressed, is large enough for its field node's length, and a struct's children
 * have its length. Then, from the bytes read ({@link #checkContents}): every offsets buffer, in one
 * pass, starts at 0 or above and never decreases, a list's last offset stays within its child
 * node, a string's within its values, which are UTF-8, and a ZSTD buffer's 8-byte little-endian
 * uncompressed length (−1 for "stored as is") is what its node needs, up to
 * {@value #BUFFER_ROUNDING}-byte rounding, before anything is allocated for it: a corrupt length
 * costs at most what the node needs.
 *
 * <p>These checks are all the loaded vectors get, and all that readers of their buffers rely on.
 * They refuse what Arrow's own validator ({@code ValueVectorUtility.validateFull}) refuses, at a
 * fraction of its cost: it boxes every offset it reads and copies every string value to check it,
 * where these read each offset once and all-ASCII strings eight bytes a read.
 */
final class BufferChecker {

    /** The one codec needle writes; the codec itself is stateless. */
    private static final CompressionCodec ZSTD = BlockLayout.CODECS.createCodec(BlockLayout.CODEC);
    /**
     * A decompressed buffer may exceed what its node needs by at most this rounding (Arrow Java
     * writes exactly what is needed; other writers pad to 8 or 64 bytes).
     */
    private static final long BUFFER_ROUNDING = 64;

    /** What a buffer holds, which decides how many bytes its node needs. */
    private enum Kind {
        /** Validity bits or fixed-width values: the node's length decides. */
        FIXED,
        /** A list's or a string's offsets: the node's length decides, and the last offset sizes the values. */
        OFFSETS,
        /** A binary's values: the last offset before them decides. */
        VALUES,
        /** A string's values: as VALUES, and each value must be well-formed UTF-8. */
        TEXT;

        /** Whether the last offset before the buffer, not its node's length, decides its size. */
        boolean sizedByOffsets() {
            return this == VALUES || this == TEXT;
        }
    }

    /**
     * One buffer of a chosen column as the batch's metadata places it.
     *
     * @param index      the buffer's position among all the batch's buffers, for messages
     * @param offset     where it starts in the batch body
     * @param size       its bytes in the body (compressed, when the batch is)
     * @param needed     the bytes its node needs (FIXED, OFFSETS); 0 for VALUES and TEXT, which the offsets decide
     * @param emptyOk    whether it may be empty whatever its node's length (a validity buffer without nulls)
     * @param count      for OFFSETS, the node's length: the last offset is at {@code 4 * count}
     * @param childLimit for a list's OFFSETS, its child node's length, which the last offset may not pass; else -1
     */
    record BufferPlan(String field, int index, Kind kind, long offset, long size, long needed,
                      boolean emptyOk, long count, long childLimit) {
    }

    private final BlockRef block;
    private final int batch;
    private final RecordBatch header;
    private final long bodyLength;
    private final boolean compressed;
    private final BufferAllocator allocator;
    private final List<ArrowFieldNode> nodes = new ArrayList<>();
    private final List<BufferPlan> plans = new ArrayList<>();

    /** A checker for batch {@code batch} of {@code block}, whose message header is {@code header}. */
    BufferChecker(BlockRef block, int batch, RecordBatch header, long bodyLength, BufferAllocator allocator) {
        this.block = block;
        this.batch = batch;
        this.header = header;
        this.bodyLength = bodyLength;
        this.compressed = header.compression() != null;
        this.allocator = allocator;
    }

    /** The field nodes of the columns added so far, in order: what the loader needs. */
    List<ArrowFieldNode> nodes() {
        return nodes;
    }

    /** The buffers of the columns added so far, in body order: the byte ranges to read. */
    List<BufferPlan> plans() {
        return plans;
    }

    /**
     * Adds the nodes and buffer plans of {@code field} and its children, whose first node and
     * buffer are at {@code node} and {@code buffer} in the header, checking that each buffer lies
     * in the body and, in an uncompressed batch, is large enough for its node's length, so that
     * loading never sizes memory from a length the file's own buffers do not back. A compressed
     * buffer's size says nothing about its contents: {@link #checkContents} checks those.
     */
    void add(Field field, int node, int buffer) throws CorruptBlockException {
        addField(field, node, buffer);
    }

    private int[] addField(Field field, int node, int buffer) throws CorruptBlockException {
        long length = header.nodes(node).length();
        long nulls = header.nodes(node).nullCount();
        if (length < 0 || nulls < 0 || nulls > length) {
            throw corrupt("field node " + node + " has length " + length + " and " + nulls + " nulls");
        }
        nodes.add(new ArrowFieldNode(length, nulls));
        ArrowType type = field.getType();
        boolean fixedWidth = type instanceof ArrowType.Int || type instanceof ArrowType.FloatingPoint
                || type instanceof ArrowType.FixedSizeBinary || type instanceof ArrowType.Bool;
        for (BufferLayout layout : TypeLayout.getTypeLayout(type).getBufferLayouts()) {
            long offset = header.buffers(buffer).offset();
            long size = header.buffers(buffer).length();
            if (offset < 0 || size < 0 || offset + size > bodyLength) {
                throw corrupt("buffer " + buffer + " lies outside the batch body");
            }
            Kind kind = switch (layout.getType()) {
                case OFFSET -> Kind.OFFSETS;
                case DATA -> fixedWidth ? Kind.FIXED : type instanceof ArrowType.Utf8 ? Kind.TEXT : Kind.VALUES;
                default -> Kind.FIXED;
            };
            long needed = switch (layout.getType()) {
                case VALIDITY -> (length + 7) / 8;
                case OFFSET -> length == 0 ? 0 : (length + 1) * 4;
                case DATA -> fixedWidth ? (length * layout.getTypeBitWidth() + 7) / 8 : 0;
                default -> 0;
            };
            boolean emptyOk = layout.getType() == BufferLayout.BufferType.VALIDITY && nulls == 0;
            if (!compressed && size < needed && !(size == 0 && emptyOk)) {
                throw corrupt("buffer " + buffer + " of " + field.getName() + " has " + size
                        + " bytes, its " + length + " values need " + needed);
            }
            if (compressed && size != 0 && size < CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH) {
                throw corrupt("compressed buffer " + buffer + " of " + field.getName() + " has " + size
                        + " bytes, less than its length prefix");
            }
            long childLimit = kind == Kind.OFFSETS && type instanceof ArrowType.List ? header.nodes(node + 1).length() : -1;
            plans.add(new BufferPlan(field.getName(), buffer, kind, offset, size, needed, emptyOk, length, childLimit));
            buffer++;
        }
        node++;
        for (Field child : field.getChildren()) {
            // A struct's children hold one value per struct value: what its readers index them by.
            if (type instanceof ArrowType.Struct && header.nodes(node).length() != length) {
                throw corrupt("field node " + node + " (" + child.getName() + ") has length " + header.nodes(node).length()
                        + ", its struct " + field.getName() + " " + length);
            }
            int[] next = addField(child, node, buffer);
            node = next[0];
            buffer = next[1];
        }
        return new int[] {node, buffer};
    }

    /**
     * Checks what the buffers hold, in the order of {@link #plans}, and returns them ready to load:
     * decompressed when the batch is compressed, the decompressed ones added to {@code owned}.
     */
    List<ArrowBuf> checkContents(List<ArrowBuf> stored, List<ArrowBuf> owned) throws CorruptBlockException {
        List<ArrowBuf> out = new ArrayList<>(stored.size());
        long lastOffset = 0;
        ByteBuffer offsets = null;
        for (int i = 0; i < plans.size(); i++) {
            BufferPlan plan = plans.get(i);
            long needed = plan.kind().sizedByOffsets() ? lastOffset : plan.needed();
            ArrowBuf buf = compressed ? uncompressed(plan, stored.get(i), needed, owned) : stored.get(i);
            long bytes = buf.capacity();
            if (bytes < needed && !(bytes == 0 && plan.emptyOk())) {
                throw plan.kind().sizedByOffsets()
                        ? corrupt("has offsets up to " + needed + " beyond the " + bytes + " bytes of values of "
                                + plan.field())
                        : corrupt("buffer " + plan.index() + " of " + plan.field() + " has " + bytes
                                + " bytes, its " + plan.count() + " values need " + needed);
            }
            if (plan.kind() == Kind.OFFSETS) {
                offsets = plan.count() > 0 ? offsets(plan, buf) : null;
                lastOffset = offsets != null ? checkOffsets(plan, offsets) : 0;
            } else if (plan.kind() == Kind.TEXT && offsets != null) {
                checkUtf8(plan, offsets, buf);
            }
            out.add(buf);
        }
        return out;
    }

    /** The {@code count + 1} offsets of an OFFSETS buffer, whose size was checked, as a little-endian view. */
    private ByteBuffer offsets(BufferPlan plan, ArrowBuf buf) throws CorruptBlockException {
        if (plan.count() >= Integer.MAX_VALUE / 4) {
            throw corrupt("field " + plan.field() + " has " + plan.count() + " values, more than offsets can address");
        }
        return buf.nioBuffer(0, (int) (plan.count() + 1) * 4).order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Checks {@code count + 1} offsets in one pass of plain int reads: the first is not negative,
     * none is below the one before, and a list's last stays within its child node; a string's last
     * is checked against its values buffer next. Returns the last offset. This is what lets readers
     * take any value's bytes from its offsets without checking them again.
     */
    private int checkOffsets(BufferPlan plan, ByteBuffer offsets) throws CorruptBlockException {
        int count = (int) plan.count();
        int first = offsets.getInt(0);
        int previous = first;
        for (int i = 1; i <= count; i++) {
            int offset = offsets.getInt(i << 2);
            if (offset < previous) {
                throw corrupt("offset " + i + " of " + plan.field() + " is " + offset + ", below offset " + (i - 1)
                        + " (" + previous + ")");
            }
            previous = offset;
        }
        if (first < 0 || (plan.childLimit() >= 0 && previous > plan.childLimit())) {
            throw corrupt("has offsets " + first + ".." + previous + " beyond their values"
                    + (plan.childLimit() >= 0 ? " (" + plan.childLimit() + ")" : ""));
        }
        return previous;
    }

    /**
     * Checks that every value of a string column is well-formed UTF-8: when the values' bytes are
     * all ASCII, as they mostly are, eight bytes a read; else value by value.
     */
    private void checkUtf8(BufferPlan plan, ByteBuffer offsets, ArrowBuf buf) throws CorruptBlockException {
        int count = offsets.capacity() / 4 - 1;
        int start = offsets.getInt(0);
        int end = offsets.getInt(count * 4);
        ByteBuffer data = buf.nioBuffer(0, end).order(ByteOrder.LITTLE_ENDIAN);
        int i = start;
        while (i + Long.BYTES <= end && (data.getLong(i) & 0x8080808080808080L) == 0) {
            i += Long.BYTES;
        }
        while (i < end && data.get(i) >= 0) {
            i++;
        }
        if (i == end) {
            return;
        }
        for (int v = 0; v < count; v++) {
            if (!isUtf8(data, offsets.getInt(v * 4), offsets.getInt((v + 1) * 4))) {
                throw corrupt("value " + v + " of " + plan.field() + " is not UTF-8");
            }
        }
    }

    /**
     * Whether bytes {@code [start, end)} are well-formed UTF-8 as Unicode's table 3-7 defines it:
     * shortest forms only, no surrogates, nothing above U+10FFFF.
     */
    private static boolean isUtf8(ByteBuffer data, int start, int end) {
        int i = start;
        while (i < end) {
            int b = data.get(i++) & 0xFF;
            if (b < 0x80) {
                continue;
            }
            int more = b >= 0xC2 && b <= 0xDF ? 1 : b >= 0xE0 && b <= 0xEF ? 2 : b >= 0xF0 && b <= 0xF4 ? 3 : -1;
            if (more < 0 || i + more > end) {
                return false;
            }
            // The second byte's range narrows after E0, ED, F0 and F4; every other continuation is 80..BF.
            int low = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
            int high = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
            int second = data.get(i) & 0xFF;
            if (second < low || second > high) {
                return false;
            }
            for (int k = 1; k < more; k++) {
                int next = data.get(i + k) & 0xFF;
                if (next < 0x80 || next > 0xBF) {
                    return false;
                }
            }
            i += more;
        }
        return true;
    }

    /**
     * The uncompressed bytes of one compressed buffer: its 8-byte length prefix checked against
     * {@code needed} first, then the ZSTD frame decompressed into exactly that many bytes (owned).
     */
    private ArrowBuf uncompressed(BufferPlan plan, ArrowBuf stored, long needed, List<ArrowBuf> owned)
            throws CorruptBlockException {
        long size = stored.capacity();
        if (size == 0) {
            return stored;
        }
        long length = stored.getLong(0);
        if (ByteOrder.nativeOrder() != ByteOrder.LITTLE_ENDIAN) {
            length = Long.reverseBytes(length);
        }
        long prefix = CompressionUtil.SIZE_OF_UNCOMPRESSED_LENGTH;
        if (length == CompressionUtil.NO_COMPRESSION_LENGTH) {
            return stored.slice(prefix, size - prefix);
        }
        long allowed = (Math.max(needed, 1) + BUFFER_ROUNDING - 1) / BUFFER_ROUNDING * BUFFER_ROUNDING;
        if (length < 0 || length > allowed || (length < needed && !(length == 0 && plan.emptyOk()))) {
            throw corrupt("compressed buffer " + plan.index() + " of " + plan.field() + " says it holds "
                    + length + " bytes, its node needs " + needed
                    + (plan.kind().sizedByOffsets() ? " (the last offset)" : ""));
        }
        if (length == 0) {
            return stored.slice(0, 0);
        }
        // The codec closes the buffer it decompresses; this one is a slice of a run the reader owns.
        stored.getReferenceManager().retain();
        ArrowBuf out;
        try {
            out = ZSTD.decompress(allocator, stored);
        } catch (RuntimeException e) {
            stored.getReferenceManager().release();
            throw new CorruptBlockException(block, "batch " + batch + " compressed buffer " + plan.index() + " of "
                    + plan.field() + " does not decompress: " + e.getMessage(), e);
        }
        owned.add(out);
        return out;
    }

    private CorruptBlockException corrupt(String problem) {
        return CorruptBlockException.inBatch(block, batch, problem);
    }
}
