package dev.needle.sidecar;

import java.nio.charset.StandardCharsets;

/**
 * The canonical bytes of one attribute pair (key, typed scalar value), the input that ATTR_IDX hashes.
 *
 * <table>
 *   <caption>Encoding of one pair (little-endian)</caption>
 *   <tr><th>size</th><th>field</th></tr>
 *   <tr><td>4</td><td>u32 length L of the key's UTF-8</td></tr>
 *   <tr><td>L</td><td>the key's UTF-8</td></tr>
 *   <tr><td>1</td><td>type: {@code s} 0x73, {@code n} 0x6E, {@code d} 0x64, {@code b} 0x62</td></tr>
 *   <tr><td>rest</td><td>{@code s}: the string's UTF-8 (no length: it runs to the end);
 *       {@code n}: 8-byte int64; {@code d}: 8-byte IEEE-754 bits; {@code b}: one byte 0 or 1</td></tr>
 * </table>
 *
 * <p>Equal values encode equally: a double that is integral and fits in an int64 is encoded as
 * that int ({@code n}), so 200 and 200.0 collide on purpose, and -0.0 becomes 0. NaN has no
 * encoding; it is never inserted and never matches.
 */
public final class AttributeEncoding {

    /** Type byte of a string value. */
    public static final byte TYPE_STRING = 's';
    /** Type byte of an int64 value, and of a double that is integral and fits in an int64. */
    public static final byte TYPE_INT = 'n';
    /** Type byte of every other (non-NaN) double. */
    public static final byte TYPE_DOUBLE = 'd';
    /** Type byte of a boolean value. */
    public static final byte TYPE_BOOL = 'b';

    private static final double TWO_TO_63 = 0x1p63;

    private AttributeEncoding() {
    }

    /** The encoding of (key, string value). */
    public static byte[] ofString(String key, String value) {
        byte[] v = value.getBytes(StandardCharsets.UTF_8);
        byte[] out = header(key, TYPE_STRING, v.length);
        System.arraycopy(v, 0, out, out.length - v.length, v.length);
        return out;
    }

    /** The encoding of (key, int64 value). */
    public static byte[] ofLong(String key, long value) {
        byte[] out = header(key, TYPE_INT, 8);
        putLongLE(out, out.length - 8, value);
        return out;
    }

    /** The encoding of (key, double value), or null for NaN, which is never indexed. */
    public static byte[] ofDouble(String key, double value) {
        if (Double.isNaN(value)) {
            return null;
        }
        if (isIntegralInt64(value)) {
            return ofLong(key, (long) value);
        }
        byte[] out = header(key, TYPE_DOUBLE, 8);
        putLongLE(out, out.length - 8, Double.doubleToRawLongBits(value));
        return out;
    }

    /** The encoding of (key, boolean value). */
    public static byte[] ofBool(String key, boolean value) {
        byte[] out = header(key, TYPE_BOOL, 1);
        out[out.length - 1] = (byte) (value ? 1 : 0);
        return out;
    }

    /**
     * Whether a double is encoded as an int64: integral and within [-2^63, 2^63).
     * True for -0.0, which is encoded as 0.
     */
    public static boolean isIntegralInt64(double value) {
        return value >= -TWO_TO_63 && value < TWO_TO_63 && value == Math.rint(value);
    }

    private static byte[] header(String key, byte type, int valueBytes) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[4 + k.length + 1 + valueBytes];
        out[0] = (byte) k.length;
        out[1] = (byte) (k.length >>> 8);
        out[2] = (byte) (k.length >>> 16);
        out[3] = (byte) (k.length >>> 24);
        System.arraycopy(k, 0, out, 4, k.length);
        out[4 + k.length] = type;
        return out;
    }

    private static void putLongLE(byte[] out, int at, long v) {
        for (int i = 0; i < 8; i++) {
            out[at + i] = (byte) (v >>> (8 * i));
        }
    }
}
