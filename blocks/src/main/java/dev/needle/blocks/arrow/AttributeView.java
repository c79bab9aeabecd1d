package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.model.AnyValue;
import java.nio.ByteBuffer;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;

/**
 * An attributes column ({@link AttributeColumn}) of a loaded batch read through {@link BufferViews}:
 * each row's entries, their key references, type tags and scalars where they lie, nothing decoded
 * but what {@link #value} is asked for. For scans that test one key's entries over a whole batch.
 */
public final class AttributeView {

    private final AttributeColumn column;
    private final ByteBuffer listOffsets;
    private final ByteBuffer keyRef;
    private final VarWidthView keys;
    private final ByteBuffer type;
    private final ByteBuffer numValidity;
    private final ByteBuffer num;
    private final VarWidthView bytes;

    /**
     * Views the attributes vector of a loaded batch. Key references and type tags are NOT NULL in
     * the schema, so a null among them makes the batch corrupt; the other checks are the scan's.
     */
    public AttributeView(FieldVector vector) throws CorruptValueException {
        column = new AttributeColumn(vector);
        ListVector list = (ListVector) vector;
        StructVector entries = (StructVector) list.getDataVector();
        IntVector keyRefs = entries.getChild("key_ref", IntVector.class);
        TinyIntVector types = entries.getChild("type", TinyIntVector.class);
        BigIntVector nums = entries.getChild("num", BigIntVector.class);
        if (keyRefs.getNullCount() > 0 || types.getNullCount() > 0) {
            throw new CorruptValueException(vector.getName() + " has " + keyRefs.getNullCount() + " null key references and "
                    + types.getNullCount() + " null type tags, which its schema does not allow", 0);
        }
        listOffsets = BufferViews.of(list.getOffsetBuffer());
        keyRef = BufferViews.of(keyRefs.getDataBuffer());
        keys = new VarWidthView(entries.getChild("key", VarCharVector.class));
        type = BufferViews.of(types.getDataBuffer());
        numValidity = BufferViews.of(nums.getValidityBuffer());
        num = BufferViews.of(nums.getDataBuffer());
        bytes = new VarWidthView(entries.getChild("bytes", VarBinaryVector.class));
    }

    /** Index of row {@code row}'s first entry. */
    public int start(int row) {
        return listOffsets.getInt(row << 2);
    }

    /** Index past row {@code row}'s last entry. */
    public int end(int row) {
        return listOffsets.getInt((row + 1) << 2);
    }

    /**
     * The key references of entries {@code [0, count)} as stored — each the entry holding its key
     * text, if the batch is sound — copied into an array for a scan over all of them.
     */
    public int[] keyRefs(int count) {
        int[] refs = new int[count];
        keyRef.asIntBuffer().get(0, refs);
        return refs;
    }

    /** The key texts, set only at the entries that hold a key ({@link #keyRef} points at them). */
    public VarWidthView keys() {
        return keys;
    }

    /** Entry {@code i}'s type tag ({@link AttributeColumn#STRING} and its siblings). */
    public byte type(int i) {
        return type.get(i);
    }

    /** Whether entry {@code i} has a {@code num}: every int, double and bool does. */
    public boolean hasNum(int i) {
        return BufferViews.isSet(numValidity, i);
    }

    /** Entry {@code i}'s {@code num}: the int, the double's IEEE-754 bits, or the bool as 0 or 1. */
    public long num(int i) {
        return num.getLong(i << 3);
    }

    /** The {@code bytes} of the entries: a string's UTF-8, a bytes value, a nested value's encoding. */
    public VarWidthView bytes() {
        return bytes;
    }

    /** Entry {@code i}'s value, decoded as {@link AttributeColumn#value} decodes it. */
    public AnyValue value(int i) throws CorruptValueException {
        return column.value(i);
    }
}
