package dev.needle.blocks.otlp;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Protobuf wire bytes by hand, for requests no builder would make. */
final class WireBytes {

    private WireBytes() {
    }

    /** A length-delimited field. */
    static byte[] field(int number, byte[] payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        varint(out, number << 3 | 2);
        varint(out, payload.length);
        out.writeBytes(payload);
        return out.toByteArray();
    }

    /** A base-128 varint. */
    static void varint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.write((int) (v & 0x7F | 0x80));
            v >>>= 7;
        }
        out.write((int) v);
    }

    /** A string's UTF-8. */
    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The parts one after another. */
    static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] part : parts) {
            out.writeBytes(part);
        }
        return out.toByteArray();
    }

    /** A request of one span with valid ids and {@code fields}. */
    static byte[] spanRequest(byte[] fields) {
        byte[] ids = cat(field(1, new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}),
                field(2, new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
        return field(1, field(2, field(2, cat(ids, fields))));
    }
}
