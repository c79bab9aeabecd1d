package dev.needle.blocks.model;

import java.util.Arrays;
import java.util.HexFormat;

/** An immutable byte string with value equality: ids and bytes values. */
public final class Bytes implements Comparable<Bytes> {

    /** The empty byte string. */
    public static final Bytes EMPTY = new Bytes(new byte[0]);

    private final byte[] bytes;

    private Bytes(byte[] bytes) {
        this.bytes = bytes;
    }

    /** Copies {@code bytes}. */
    public static Bytes copyOf(byte[] bytes) {
        return bytes.length == 0 ? EMPTY : new Bytes(bytes.clone());
    }

    /** Takes ownership of {@code bytes}: the caller must not change them afterwards. */
    public static Bytes wrap(byte[] bytes) {
        return bytes.length == 0 ? EMPTY : new Bytes(bytes);
    }

    /** Parses hex digits of either case. */
    public static Bytes fromHex(String hex) {
        return wrap(HexFormat.of().parseHex(hex.toLowerCase()));
    }

    /** A copy of the bytes. */
    public byte[] toByteArray() {
        return bytes.clone();
    }

    /** The bytes themselves, for readers that promise not to change them. */
    public byte[] unsafeArray() {
        return bytes;
    }

    /** The number of bytes. */
    public int length() {
        return bytes.length;
    }

    /** Whether there are no bytes. */
    public boolean isEmpty() {
        return bytes.length == 0;
    }

    /** Lower-case hex. */
    public String hex() {
        return HexFormat.of().formatHex(bytes);
    }

    /** Unsigned lexicographic order, the order of trace ids in a block. */
    @Override
    public int compareTo(Bytes other) {
        return Arrays.compareUnsigned(bytes, other.bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes b && Arrays.equals(bytes, b.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return hex();
    }
}
