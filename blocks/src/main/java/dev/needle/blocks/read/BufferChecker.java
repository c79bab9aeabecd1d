package dev.needle.blocks.read;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.store.BlockRef;
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
 * body and, uncompressed, is large enough for its field node's length. Then, from the bytes read
 * ({@link #checkContents}): a list's offsets stay within its child node, a string's last offset is
 * what its values buffer holds, and a ZSTD buffer's 8-byte little-endian uncompressed length (−1
 * for "stored as is") is what its node needs, up to {@value #BUFFER_ROUNDING}-byte rounding,
 * before anything is allocated for it: a corrupt length costs at most what the node needs.
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
        /** A string's or binary's values: the last offset before them decides. */
        VALUES
    }

    /**
     * One buffer of a chosen column as the batch's metadata places it.
     *
     * @param index      the buffer's position among all the batch's buffers, for messages
     * @param offset     where it starts in the batch body
     * @param size       its bytes in the body (compressed, when the batch is)
     * @param needed     the bytes its node needs (FIXED, OFFSETS); 0 for VALUES, which the offsets decide
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
                case DATA -> fixedWidth ? Kind.FIXED : Kind.VALUES;
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
        for (int i = 0; i < plans.size(); i++) {
            BufferPlan plan = plans.get(i);
            long needed = plan.kind() == Kind.VALUES ? lastOffset : plan.needed();
            ArrowBuf buf = compressed ? uncompressed(plan, stored.get(i), needed, owned) : stored.get(i);
            long bytes = buf.capacity();
            if (bytes < needed && !(bytes == 0 && plan.emptyOk())) {
                throw plan.kind() == Kind.VALUES
                        ? corrupt("has offsets up to " + needed + " beyond the " + bytes + " bytes of values of "
                                + plan.field())
                        : corrupt("buffer " + plan.index() + " of " + plan.field() + " has " + bytes
                                + " bytes, its " + plan.count() + " values need " + needed);
            }
            if (plan.kind() == Kind.OFFSETS) {
                lastOffset = 0;
                if (plan.count() > 0) {
                    int first = buf.getInt(0);
                    int last = buf.getInt(plan.count() * 4);
                    if (first < 0 || last < first || (plan.childLimit() >= 0 && last > plan.childLimit())) {
                        throw corrupt("has offsets " + first + ".." + last + " beyond their values"
                                + (plan.childLimit() >= 0 ? " (" + plan.childLimit() + ")" : ""));
                    }
                    lastOffset = last;
                }
            }
            out.add(buf);
        }
        return out;
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
                    + (plan.kind() == Kind.VALUES ? " (the last offset)" : ""));
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
