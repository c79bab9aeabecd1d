package dev.needle.blocks.arrow;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.BaseVariableWidthVector;

/**
 * A loaded utf8 or binary vector read through {@link BufferViews}: value {@code i} is bytes
 * {@code offsets[i]..offsets[i + 1]} of the data buffer. The block reader has checked that the
 * offsets never decrease and stay within the data, so a value is compared where it lies.
 */
public final class VarWidthView {

    private final ByteBuffer validity;
    private final ByteBuffer offsets;
    private final ByteBuffer data;

    /** Views the buffers of {@code vector}. */
    public VarWidthView(BaseVariableWidthVector vector) {
        validity = BufferViews.of(vector.getValidityBuffer());
        offsets = BufferViews.of(vector.getOffsetBuffer());
        data = BufferViews.of(vector.getDataBuffer());
    }

    /** Whether value {@code i} is set (not null). */
    public boolean isSet(int i) {
        return BufferViews.isSet(validity, i);
    }

    /** The validity bits of values {@code [0, count)}, as {@link BufferViews#bits} gives them. */
    public long[] setBits(int count) {
        return BufferViews.bits(validity, count);
    }

    /** Whether value {@code i} is exactly these bytes. */
    public boolean equalTo(int i, byte[] expected) {
        int start = offsets.getInt(i << 2);
        if (offsets.getInt((i + 1) << 2) - start != expected.length) {
            return false;
        }
        for (int j = 0; j < expected.length; j++) {
            if (data.get(start + j) != expected[j]) {
                return false;
            }
        }
        return true;
    }

    /** Value {@code i} decoded as UTF-8 (malformed input replaced, as {@link String#String(byte[], java.nio.charset.Charset)} does). */
    public String string(int i) {
        int start = offsets.getInt(i << 2);
        byte[] bytes = new byte[offsets.getInt((i + 1) << 2) - start];
        data.get(start, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
