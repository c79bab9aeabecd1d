package dev.needle.blocks.codec;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The binary format of the values that the Arrow schemas keep as opaque bytes because they nest:
 * one {@link AnyValue}, a list of attributes, a span's events, a span's links.
 *
 * <h2>Layout, version 1</h2>
 * <pre>
 * item          bytes
 * ------------  ----------------------------------------------------------------------------
 * varint        unsigned LEB128: 7 bits a byte, least significant group first, high bit set
 *               on every byte but the last; minimal (a multi-byte varint never ends in 0x00);
 *               at most 5 bytes. Lengths and counts are at most 2^31-1, u32 fields 2^32-1.
 * fixed64       8 bytes, little-endian
 * fixed32       4 bytes, little-endian
 * string        varint n, then n bytes of well-formed UTF-8
 * bytes         varint n, then n bytes
 * value         1 tag byte, then by tag:
 *                 0x00 Empty    nothing
 *                 0x01 Str      string
 *                 0x02 Bool     1 byte, 0x00 (false) or 0x01 (true)
 *                 0x03 Int      fixed64, two's complement
 *                 0x04 Dbl      fixed64, the IEEE-754 bits as they are (NaN payloads, -0.0 kept)
 *                 0x05 Blob     bytes
 *                 0x06 Array    varint count, then count values
 *                 0x07 KvList   varint count, then count (string key, value) pairs
 * attributes    varint count, then count (string key, value) pairs
 * events        varint count, then per event: fixed64 timeUnixNano, string name,
 *               attributes, varint droppedAttributesCount (u32)
 * links         varint count, then per link: bytes traceId, bytes spanId, string traceState,
 *               attributes, varint droppedAttributesCount (u32), fixed32 flags
 * </pre>
 * {@link #encodeValue}, {@link #encodeAttributes}, {@link #encodeEvents} and {@link #encodeLinks}
 * write one {@code value}, {@code attributes}, {@code events} or {@code links} item and nothing
 * else. A chain of arrays and kvlists inside one another is at most {@link #MAX_DEPTH} long
 * (a scalar inside 128 arrays is fine, inside 129 it is not). Example: the attributes
 * {@code [k = true]} are {@code 01 01 6b 02 01}.
 *
 * <p>Every value has exactly one encoding (minimal varints, bool bytes 0 or 1, strict UTF-8), so
 * equal values have equal bytes and decoding then re-encoding any accepted input gives it back.
 * Decoding checks every length against the bytes that remain before allocating, refuses deeper
 * nesting than {@link #MAX_DEPTH} (a hostile input cannot overflow the stack) and trailing bytes,
 * and reports anything else wrong as a {@link CorruptValueException} with its offset.
 *
 * <h2>Versions</h2>
 * The encodings carry no version byte of their own, because there is one per cell of an Arrow
 * column: a block's writer version ({@code writerVersion} in its meta.json) says which layout its
 * cells use, and writer version 1 means {@link #VERSION_1}, the layout above. A later version gets
 * a new constant and new tags; a tag never changes meaning.
 */
public final class ValueCodec {

    /** The layout described above. */
    public static final int VERSION_1 = 1;
    /** The version this class writes. */
    public static final int VERSION_CURRENT = VERSION_1;
    /**
     * How many arrays and kvlists may enclose one another. Encoding a deeper value is refused too,
     * so that the writer never writes what the reader rejects; ingest should reject such values.
     */
    public static final int MAX_DEPTH = 128;

    private static final int TAG_EMPTY = 0x00;
    private static final int TAG_STR = 0x01;
    private static final int TAG_BOOL = 0x02;
    private static final int TAG_INT = 0x03;
    private static final int TAG_DBL = 0x04;
    private static final int TAG_BLOB = 0x05;
    private static final int TAG_ARRAY = 0x06;
    private static final int TAG_KVLIST = 0x07;

    private static final long MAX_LENGTH = Integer.MAX_VALUE;
    private static final long MAX_U32 = 0xFFFF_FFFFL;

    private ValueCodec() {
    }

    /** Encodes one value; nulls inside it and nesting deeper than {@link #MAX_DEPTH} are refused. */
    public static byte[] encodeValue(AnyValue value) {
        Sink out = new Sink();
        writeValue(out, value, 0);
        return out.toByteArray();
    }

    /** Decodes what {@link #encodeValue} wrote. */
    public static AnyValue decodeValue(byte[] bytes) throws CorruptValueException {
        Source in = new Source(bytes, "value");
        AnyValue value = readValue(in, 0);
        in.expectEnd();
        return value;
    }

    /** Encodes a list of attributes, order and duplicates kept. */
    public static byte[] encodeAttributes(List<KeyValue> attributes) {
        Sink out = new Sink();
        writeAttributes(out, attributes);
        return out.toByteArray();
    }

    /** Decodes what {@link #encodeAttributes} wrote. */
    public static List<KeyValue> decodeAttributes(byte[] bytes) throws CorruptValueException {
        Source in = new Source(bytes, "attributes");
        List<KeyValue> attributes = readKeyValues(in, 0);
        in.expectEnd();
        return attributes;
    }

    /** Encodes a span's events. */
    public static byte[] encodeEvents(List<SpanEvent> events) {
        Sink out = new Sink();
        out.putVarint(events.size());
        for (SpanEvent event : events) {
            out.putFixed64(event.timeUnixNano());
            out.putString(event.name(), "event name");
            writeAttributes(out, event.attributes());
            out.putVarint(Integer.toUnsignedLong(event.droppedAttributesCount()));
        }
        return out.toByteArray();
    }

    /** Decodes what {@link #encodeEvents} wrote. */
    public static List<SpanEvent> decodeEvents(byte[] bytes) throws CorruptValueException {
        Source in = new Source(bytes, "span events");
        int count = in.readCount();
        List<SpanEvent> events = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long time = in.readFixed64();
            String name = in.readString();
            List<KeyValue> attributes = readKeyValues(in, 0);
            int dropped = in.readU32();
            events.add(new SpanEvent(time, name, attributes, dropped));
        }
        in.expectEnd();
        return events;
    }

    /** Encodes a span's links. */
    public static byte[] encodeLinks(List<SpanLink> links) {
        Sink out = new Sink();
        out.putVarint(links.size());
        for (SpanLink link : links) {
            out.putBytes(link.traceId(), "link trace id");
            out.putBytes(link.spanId(), "link span id");
            out.putString(link.traceState(), "link trace state");
            writeAttributes(out, link.attributes());
            out.putVarint(Integer.toUnsignedLong(link.droppedAttributesCount()));
            out.putFixed32(link.flags());
        }
        return out.toByteArray();
    }

    /** Decodes what {@link #encodeLinks} wrote. */
    public static List<SpanLink> decodeLinks(byte[] bytes) throws CorruptValueException {
        Source in = new Source(bytes, "span links");
        int count = in.readCount();
        List<SpanLink> links = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            Bytes traceId = Bytes.wrap(in.readBytes());
            Bytes spanId = Bytes.wrap(in.readBytes());
            String traceState = in.readString();
            List<KeyValue> attributes = readKeyValues(in, 0);
            int dropped = in.readU32();
            int flags = in.readFixed32();
            links.add(new SpanLink(traceId, spanId, traceState, attributes, dropped, flags));
        }
        in.expectEnd();
        return links;
    }

    private static void writeAttributes(Sink out, List<KeyValue> attributes) {
        writeKeyValues(out, attributes, 0);
    }

    /** {@code enclosing} counts the arrays and kvlists around the pairs' values. */
    private static void writeKeyValues(Sink out, List<KeyValue> pairs, int enclosing) {
        out.putVarint(pairs.size());
        for (KeyValue pair : pairs) {
            Objects.requireNonNull(pair, "attribute");
            out.putString(pair.key(), "attribute key");
            writeValue(out, pair.value(), enclosing);
        }
    }

    private static void writeValue(Sink out, AnyValue value, int enclosing) {
        Objects.requireNonNull(value, "value");
        if (value instanceof AnyValue.Empty) {
            out.put(TAG_EMPTY);
        } else if (value instanceof AnyValue.Str s) {
            out.put(TAG_STR);
            out.putString(s.value(), "string value");
        } else if (value instanceof AnyValue.Bool b) {
            out.put(TAG_BOOL);
            out.put(b.value() ? 1 : 0);
        } else if (value instanceof AnyValue.Int i) {
            out.put(TAG_INT);
            out.putFixed64(i.value());
        } else if (value instanceof AnyValue.Dbl d) {
            out.put(TAG_DBL);
            out.putFixed64(Double.doubleToRawLongBits(d.value()));
        } else if (value instanceof AnyValue.Blob b) {
            out.put(TAG_BLOB);
            out.putBytes(b.value(), "bytes value");
        } else if (value instanceof AnyValue.Array a) {
            checkEncodeDepth(enclosing);
            out.put(TAG_ARRAY);
            out.putVarint(a.values().size());
            for (AnyValue element : a.values()) {
                writeValue(out, element, enclosing + 1);
            }
        } else if (value instanceof AnyValue.KvList kv) {
            checkEncodeDepth(enclosing);
            out.put(TAG_KVLIST);
            writeKeyValues(out, kv.values(), enclosing + 1);
        } else {
            // AnyValue is sealed; this guards a kind added later without a tag here.
            throw new IllegalArgumentException("no tag for AnyValue kind " + value.getClass().getName());
        }
    }

    private static void checkEncodeDepth(int enclosing) {
        if (enclosing >= MAX_DEPTH) {
            throw new IllegalArgumentException("value nests arrays and kvlists deeper than MAX_DEPTH (" + MAX_DEPTH + ")");
        }
    }

    private static List<KeyValue> readKeyValues(Source in, int enclosing) throws CorruptValueException {
        int count = in.readCount();
        List<KeyValue> pairs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String key = in.readString();
            pairs.add(new KeyValue(key, readValue(in, enclosing)));
        }
        return pairs;
    }

    private static AnyValue readValue(Source in, int enclosing) throws CorruptValueException {
        int at = in.position();
        int tag = in.readByte();
        switch (tag) {
            case TAG_EMPTY:
                return AnyValue.Empty.INSTANCE;
            case TAG_STR:
                return new AnyValue.Str(in.readString());
            case TAG_BOOL: {
                int b = in.readByte();
                if (b > 1) {
                    throw in.corrupt(String.format("bool byte 0x%02x is neither 0x00 nor 0x01", b), at + 1);
                }
                return new AnyValue.Bool(b == 1);
            }
            case TAG_INT:
                return new AnyValue.Int(in.readFixed64());
            case TAG_DBL:
                return new AnyValue.Dbl(Double.longBitsToDouble(in.readFixed64()));
            case TAG_BLOB:
                return new AnyValue.Blob(Bytes.wrap(in.readBytes()));
            case TAG_ARRAY: {
                checkDecodeDepth(in, enclosing, at);
                int count = in.readCount();
                List<AnyValue> values = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    values.add(readValue(in, enclosing + 1));
                }
                return new AnyValue.Array(values);
            }
            case TAG_KVLIST:
                checkDecodeDepth(in, enclosing, at);
                return new AnyValue.KvList(readKeyValues(in, enclosing + 1));
            default:
                throw in.corrupt(String.format("unknown value tag 0x%02x", tag), at);
        }
    }

    private static void checkDecodeDepth(Source in, int enclosing, int at) throws CorruptValueException {
        if (enclosing >= MAX_DEPTH) {
            throw in.corrupt("arrays and kvlists nested deeper than " + MAX_DEPTH, at);
        }
    }

    /** A growable output buffer; the format's primitive writes. */
    private static final class Sink {
        private byte[] buf = new byte[64];
        private int size;

        void put(int b) {
            ensure(1);
            buf[size++] = (byte) b;
        }

        void putVarint(long v) {
            ensure(5);
            while (v >= 0x80) {
                buf[size++] = (byte) (v | 0x80);
                v >>>= 7;
            }
            buf[size++] = (byte) v;
        }

        void putFixed64(long v) {
            ensure(8);
            for (int i = 0; i < 8; i++) {
                buf[size++] = (byte) (v >>> (8 * i));
            }
        }

        void putFixed32(int v) {
            ensure(4);
            for (int i = 0; i < 4; i++) {
                buf[size++] = (byte) (v >>> (8 * i));
            }
        }

        void putString(String s, String what) {
            // Unpaired surrogates have no UTF-8 form; the JDK writes '?' for them.
            putRaw(Objects.requireNonNull(s, what).getBytes(StandardCharsets.UTF_8));
        }

        void putBytes(Bytes b, String what) {
            putRaw(Objects.requireNonNull(b, what).unsafeArray());
        }

        private void putRaw(byte[] b) {
            putVarint(b.length);
            ensure(b.length);
            System.arraycopy(b, 0, buf, size, b.length);
            size += b.length;
        }

        private void ensure(int more) {
            if (more > buf.length - size) {
                long wanted = Math.max((long) buf.length * 2, (long) size + more);
                if (wanted > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("encoding exceeds 2 GiB");
                }
                buf = Arrays.copyOf(buf, (int) wanted);
            }
        }

        byte[] toByteArray() {
            return Arrays.copyOf(buf, size);
        }
    }

    /** A cursor over an encoding that checks every read against the bytes that remain. */
    private static final class Source {
        private final byte[] buf;
        private final String what;
        private int pos;

        Source(byte[] buf, String what) {
            this.buf = Objects.requireNonNull(buf, "bytes");
            this.what = what;
        }

        int position() {
            return pos;
        }

        CorruptValueException corrupt(String problem, int offset) {
            return new CorruptValueException(what + ": " + problem, offset);
        }

        private void need(int n, String item) throws CorruptValueException {
            if (n > buf.length - pos) {
                throw corrupt("truncated " + item + ": needs " + n + " bytes, " + (buf.length - pos) + " remain", pos);
            }
        }

        int readByte() throws CorruptValueException {
            need(1, "value");
            return buf[pos++] & 0xFF;
        }

        long readFixed64() throws CorruptValueException {
            need(8, "fixed64");
            long v = 0;
            for (int i = 0; i < 8; i++) {
                v |= (buf[pos++] & 0xFFL) << (8 * i);
            }
            return v;
        }

        int readFixed32() throws CorruptValueException {
            need(4, "fixed32");
            int v = 0;
            for (int i = 0; i < 4; i++) {
                v |= (buf[pos++] & 0xFF) << (8 * i);
            }
            return v;
        }

        private long readVarint(long max) throws CorruptValueException {
            int start = pos;
            long v = 0;
            for (int i = 0; i < 5; i++) {
                if (pos == buf.length) {
                    throw corrupt("truncated varint", start);
                }
                int b = buf[pos++] & 0xFF;
                v |= (long) (b & 0x7F) << (7 * i);
                if ((b & 0x80) == 0) {
                    if (b == 0 && i > 0) {
                        throw corrupt("varint is not minimal", start);
                    }
                    if (v > max) {
                        throw corrupt("varint " + v + " exceeds " + max, start);
                    }
                    return v;
                }
            }
            throw corrupt("varint longer than 5 bytes", start);
        }

        int readU32() throws CorruptValueException {
            return (int) readVarint(MAX_U32);
        }

        /** A count of items that take at least one byte each, so more than remain cannot be right. */
        int readCount() throws CorruptValueException {
            int at = pos;
            int count = (int) readVarint(MAX_LENGTH);
            if (count > buf.length - pos) {
                throw corrupt("count " + count + " exceeds the " + (buf.length - pos) + " bytes that remain", at);
            }
            return count;
        }

        private int readLength() throws CorruptValueException {
            int at = pos;
            int length = (int) readVarint(MAX_LENGTH);
            if (length > buf.length - pos) {
                throw corrupt("length " + length + " exceeds the " + (buf.length - pos) + " bytes that remain", at);
            }
            return length;
        }

        byte[] readBytes() throws CorruptValueException {
            int length = readLength();
            byte[] b = Arrays.copyOfRange(buf, pos, pos + length);
            pos += length;
            return b;
        }

        String readString() throws CorruptValueException {
            int length = readLength();
            String s = new String(buf, pos, length, StandardCharsets.UTF_8);
            // The JDK replaces malformed UTF-8 by U+FFFD; only a string holding one needs the strict check.
            if (s.indexOf('\uFFFD') >= 0) {
                checkUtf8(length);
            }
            pos += length;
            return s;
        }

        private void checkUtf8(int length) throws CorruptValueException {
            CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // reports malformed input
            ByteBuffer in = ByteBuffer.wrap(buf, pos, length);
            CoderResult result = decoder.decode(in, CharBuffer.allocate(length), true);
            if (result.isError()) {
                throw corrupt("malformed UTF-8 in a string", in.position());
            }
        }

        void expectEnd() throws CorruptValueException {
            if (pos != buf.length) {
                throw corrupt((buf.length - pos) + " trailing bytes", pos);
            }
        }
    }
}
