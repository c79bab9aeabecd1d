package dev.needle.blocks.arrow;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.apache.arrow.memory.ArrowBuf;

/**
 * Little-endian views of a loaded vector's buffers, for scans that read every value of a batch.
 * A view's reads are plain bounds-checked loads; Arrow's own accessors also check the buffer's
 * reference count (a volatile read) and, for vectors, the value's null bit on every call. A view
 * is valid while its vector is open.
 */
public final class BufferViews {

    private BufferViews() {
    }

    /** The whole of {@code buf}; batch buffers are far below 2 GiB, so an int indexes them. */
    public static ByteBuffer of(ArrowBuf buf) {
        long capacity = buf.capacity();
        if (capacity > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("a buffer of " + capacity + " bytes is too large for a view");
        }
        return buf.nioBuffer(0, (int) capacity).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** Whether value {@code i} of the vector whose validity bits are {@code validity} is set (not null). */
    public static boolean isSet(ByteBuffer validity, int i) {
        return (validity.get(i >>> 3) >> (i & 7) & 1) != 0;
    }

    /**
     * The validity bits of values {@code [0, count)} as words, value {@code i} at bit
     * {@code i & 63} of word {@code i >>> 6}: a scan that tests the bit of any value at random
     * reads an array instead of the buffer.
     */
    public static long[] bits(ByteBuffer validity, int count) {
        long[] words = new long[(count + 63) >>> 6];
        int bytes = (count + 7) >>> 3;
        int w = 0;
        for (; (w + 1) * Long.BYTES <= bytes; w++) {
            words[w] = validity.getLong(w * Long.BYTES);
        }
        for (int b = w * Long.BYTES; b < bytes; b++) {
            words[w] |= (validity.get(b) & 0xFFL) << ((b - w * Long.BYTES) * 8);
        }
        if ((count & 63) != 0) {
            words[words.length - 1] &= (1L << count) - 1;
        }
        return words;
    }
}
