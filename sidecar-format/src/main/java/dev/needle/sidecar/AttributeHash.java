package dev.needle.sidecar;

import org.apache.commons.codec.digest.MurmurHash3;

/**
 * The 128-bit key of one attribute pair: (lo, hi) = the two halves of MurmurHash3_x64_128 (seed 0)
 * of its {@link AttributeEncoding}.
 *
 * @param lo the first 64-bit half (the reference implementation's h1)
 * @param hi the second 64-bit half (the reference implementation's h2)
 */
public record AttributeHash(long lo, long hi) {

    /** The hash of an encoded pair. */
    public static AttributeHash ofEncoding(byte[] encoding) {
        long[] h = MurmurHash3.hash128x64(encoding, 0, encoding.length, 0);
        return new AttributeHash(h[0], h[1]);
    }

    /** The hash of (key, string value). */
    public static AttributeHash ofString(String key, String value) {
        return ofEncoding(AttributeEncoding.ofString(key, value));
    }

    /** The hash of (key, int64 value). */
    public static AttributeHash ofLong(String key, long value) {
        return ofEncoding(AttributeEncoding.ofLong(key, value));
    }

    /** The hash of (key, double value), or null for NaN, which is never indexed. */
    public static AttributeHash ofDouble(String key, double value) {
        byte[] encoding = AttributeEncoding.ofDouble(key, value);
        return encoding == null ? null : ofEncoding(encoding);
    }

    /** The hash of (key, boolean value). */
    public static AttributeHash ofBool(String key, boolean value) {
        return ofEncoding(AttributeEncoding.ofBool(key, value));
    }

    /** The first probe hash. */
    public long h1() {
        return KeyMix.h1(lo, hi);
    }

    /** The probe step. */
    public long h2() {
        return KeyMix.h2(lo, hi);
    }
}
