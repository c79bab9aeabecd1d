package dev.needle.blocks.index;

import dev.needle.blocks.model.AnyValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * The {@code TAGS} file of a block: its distinct indexed keys (as {@link IndexedPairs} names them,
 * {@code resource.service.name}, {@code span.http.route}, {@code intrinsic.name} …) and, from version 2,
 * the keys only TAGS holds ({@link TagsOnlyPairs}: {@code event.k}, {@code link.k},
 * {@code intrinsic.event:name}, {@code intrinsic.statusMessage}, {@code intrinsic.rootName},
 * {@code intrinsic.rootServiceName}); per key, its distinct scalar values,
 * so that the tag endpoints answer from a few kilobytes per block instead of a scan. Derived data: a
 * reader that finds it missing or damaged scans the block instead, and so does a reader that asks a
 * version 1 file for keys of TagsOnlyPairs, which it does not hold (their absence there says nothing).
 *
 * <p>Little-endian. One file = 16-byte header + body.
 *
 * <table>
 * <caption>Layout</caption>
 * <tr><th>offset</th><th>size</th><th>field</th></tr>
 * <tr><td>0</td><td>4</td><td>magic, ASCII {@code NTAG}</td></tr>
 * <tr><td>4</td><td>1</td><td>version: {@link #VERSION_1}, or {@link #VERSION_2}, whose body holds
 *     TagsOnlyPairs' keys too; the layout is the same</td></tr>
 * <tr><td>5</td><td>3</td><td>pad (0)</td></tr>
 * <tr><td>8</td><td>4</td><td>body length n, at most {@link #MAX_BODY_BYTES}</td></tr>
 * <tr><td>12</td><td>4</td><td>CRC-32C of the body</td></tr>
 * <tr><td>16</td><td>n</td><td>body: u32 key count, then per key in ascending order of its UTF-8 bytes:
 *     u32 length + the key's UTF-8; u8 flags (bit 0 = TRUNCATED: the block holds values not listed;
 *     other bits 0); u32 value count; each value, ascending by type byte then value: a type byte as
 *     {@code AttributeEncoding}'s, {@code s} (0x73) + u32 length + UTF-8, {@code n} (0x6E) + int64,
 *     {@code d} (0x64) + IEEE-754 bits as int64, {@code b} (0x62) + one byte 0 or 1</td></tr>
 * </table>
 *
 * <p>Bounds (the writer's, not the contract's, except that a reader refuses a body past
 * {@link #MAX_BODY_BYTES}): a key keeps at most {@link #MAX_VALUES_PER_KEY} values, and strings of at
 * most {@link #MAX_VALUE_BYTES} bytes; past either it is TRUNCATED. A block with more than
 * {@link #MAX_KEYS} keys gets no file.
 */
public final class BlockTags {

    /** The file's name in a block. */
    public static final String FILE = "TAGS";
    /** The first version: IndexedPairs' keys only. */
    public static final int VERSION_1 = 1;
    /** IndexedPairs' keys and TagsOnlyPairs': a key of either that the file does not list, the block does not hold. */
    public static final int VERSION_2 = 2;
    /** The version the writer writes. */
    public static final int VERSION_CURRENT = VERSION_2;
    /** Past this many distinct keys a block gets no file, and readers scan it. */
    public static final int MAX_KEYS = 10_000;
    /** Values kept per key; past it the key is TRUNCATED. */
    public static final int MAX_VALUES_PER_KEY = 1_000;
    /** The longest string value kept (UTF-8 bytes); a longer one makes its key TRUNCATED. */
    public static final int MAX_VALUE_BYTES = 1_024;
    /** The largest body a reader accepts. */
    public static final int MAX_BODY_BYTES = 64 << 20;
    /** Header bytes before the body. */
    public static final int HEADER_BYTES = 16;

    private static final byte[] MAGIC = {'N', 'T', 'A', 'G'};
    private static final int TRUNCATED = 1;
    private static final byte STRING = 's';
    private static final byte INT = 'n';
    private static final byte DOUBLE = 'd';
    private static final byte BOOL = 'b';
    /** Order of values in a file: by type byte, then value. */
    private static final Comparator<AnyValue> VALUE_ORDER = Comparator.comparingInt(BlockTags::typeByte)
            .thenComparing(BlockTags::compareSameType);

    private final int version;
    private final Map<String, Values> keys;

    /**
     * One key's values in a block.
     *
     * @param values    distinct scalar values (Str, Int, Dbl, Bool), ascending by type, then value
     * @param truncated whether the block holds values of the key that are not listed
     */
    public record Values(List<AnyValue> values, boolean truncated) {
        public Values {
            values = List.copyOf(values);
        }
    }

    private BlockTags(int version, Map<String, Values> keys) {
        this.version = version;
        this.keys = Collections.unmodifiableMap(keys);
    }

    /** The file's version ({@link #VERSION_CURRENT} for what a builder collected). */
    public int version() {
        return version;
    }

    /** Whether the keys of {@link TagsOnlyPairs} are here (version 2 on); in a version 1 file they are unknown. */
    public boolean holdsTagsOnlyPairs() {
        return version >= VERSION_2;
    }

    /** The keys, in ascending order, with their values. */
    public Map<String, Values> keys() {
        return keys;
    }

    /** Collects the pairs of a block's records, as {@link IndexedPairs} passes them on. */
    public static final class Builder implements IndexedPairs.Sink {
        private final Map<String, Set<AnyValue>> values = new TreeMap<>(BlockTags::compareUtf8);
        /** The same sets by key: a pair finds its key's set by one hash, not by UTF-8 compares down the tree. */
        private final Map<String, Set<AnyValue>> byKey = new HashMap<>();
        private final Set<String> truncated = new HashSet<>();

        @Override
        public void string(String key, String value) {
            // A char takes at most three UTF-8 bytes: a short string needs no encoding to be known short.
            if (value.length() > MAX_VALUE_BYTES / 3 && value.getBytes(StandardCharsets.UTF_8).length > MAX_VALUE_BYTES) {
                truncate(key);
            } else {
                add(key, new AnyValue.Str(value));
            }
        }

        @Override
        public void integer(String key, long value) {
            add(key, new AnyValue.Int(value));
        }

        @Override
        public void dbl(String key, double value) {
            // NaN equals nothing, so no query can ask for it: the key is listed, the value not.
            // -0.0 is 0, as ATTR_IDX's canonical form has it.
            if (Double.isNaN(value)) {
                setOf(key);
            } else {
                add(key, new AnyValue.Dbl(value == 0 ? 0.0 : value));
            }
        }

        @Override
        public void bool(String key, boolean value) {
            add(key, new AnyValue.Bool(value));
        }

        /**
         * Adds another block's keys and values, within this builder's bounds; its TRUNCATED keys stay so.
         * The caller knows what a version 1 file lacks (TagsOnlyPairs' keys) and asks no such key of the result.
         */
        public void merge(BlockTags other) {
            other.keys.forEach((key, v) -> {
                setOf(key);
                v.values().forEach(value -> add(key, value));
                if (v.truncated()) {
                    truncated.add(key);
                }
            });
        }

        private void truncate(String key) {
            setOf(key);
            truncated.add(key);
        }

        private void add(String key, AnyValue value) {
            Set<AnyValue> set = setOf(key);
            if (set.size() < MAX_VALUES_PER_KEY) {
                set.add(value);
            } else if (!set.contains(value)) {
                truncated.add(key);
            }
        }

        private Set<AnyValue> setOf(String key) {
            Set<AnyValue> set = byKey.get(key);
            if (set == null) {
                set = values.computeIfAbsent(key, k -> new HashSet<>());
                byKey.put(key, set);
            }
            return set;
        }

        /** What was collected. */
        public BlockTags build() {
            Map<String, Values> keys = new TreeMap<>(BlockTags::compareUtf8);
            values.forEach((key, set) -> {
                List<AnyValue> sorted = new ArrayList<>(set);
                sorted.sort(VALUE_ORDER);
                keys.put(key, new Values(sorted, truncated.contains(key)));
            });
            return new BlockTags(VERSION_CURRENT, keys);
        }

        /** The file's bytes, or empty when the block has too many keys (or none) for one. */
        public Optional<byte[]> file() {
            if (values.isEmpty() || values.size() > MAX_KEYS) {
                return Optional.empty();
            }
            byte[] bytes = build().encode();
            return bytes.length - HEADER_BYTES > MAX_BODY_BYTES ? Optional.empty() : Optional.of(bytes);
        }
    }

    /** This file's bytes, in its version. */
    public byte[] encode() {
        Body body = new Body();
        body.u32(keys.size());
        keys.forEach((key, v) -> {
            body.string(key);
            body.out.write(v.truncated() ? TRUNCATED : 0);
            body.u32(v.values().size());
            for (AnyValue value : v.values()) {
                body.out.write(typeByte(value));
                if (value instanceof AnyValue.Str s) {
                    body.string(s.value());
                } else if (value instanceof AnyValue.Int i) {
                    body.i64(i.value());
                } else if (value instanceof AnyValue.Dbl d) {
                    body.i64(Double.doubleToLongBits(d.value()));
                } else {
                    body.out.write(((AnyValue.Bool) value).value() ? 1 : 0);
                }
            }
        });
        byte[] bytes = body.out.toByteArray();
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        ByteBuffer file = ByteBuffer.allocate(HEADER_BYTES + bytes.length).order(ByteOrder.LITTLE_ENDIAN);
        file.put(MAGIC).put((byte) version).put(new byte[3]).putInt(bytes.length).putInt((int) crc.getValue())
                .put(bytes);
        return file.array();
    }

    /**
     * Reads a file; every problem is a {@link CorruptTagsException} whose message names {@code what}
     * and says what was expected, and nothing is allocated from a length before it is checked.
     */
    public static BlockTags decode(byte[] file, String what) throws CorruptTagsException {
        if (file.length < HEADER_BYTES) {
            throw new CorruptTagsException(what + ": " + file.length + " bytes, shorter than the " + HEADER_BYTES
                    + "-byte header");
        }
        ByteBuffer in = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        byte[] magic = new byte[4];
        in.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new CorruptTagsException(what + ": magic is not NTAG");
        }
        int version = in.get() & 0xff;
        if (version != VERSION_1 && version != VERSION_2) {
            throw new CorruptTagsException(what + ": unknown version " + version + ", expected " + VERSION_1 + " or "
                    + VERSION_2);
        }
        if (in.get() != 0 || in.get() != 0 || in.get() != 0) {
            throw new CorruptTagsException(what + ": the pad bytes 5..7 are not 0");
        }
        long length = Integer.toUnsignedLong(in.getInt());
        if (length > MAX_BODY_BYTES || length != file.length - HEADER_BYTES) {
            throw new CorruptTagsException(what + ": the header says a body of " + length + " bytes, the file holds "
                    + (file.length - HEADER_BYTES));
        }
        int expected = in.getInt();
        CRC32C crc = new CRC32C();
        crc.update(file, HEADER_BYTES, file.length - HEADER_BYTES);
        if ((int) crc.getValue() != expected) {
            throw new CorruptTagsException(String.format("%s: checksum failed: expected crc32c 0x%08x, actual 0x%08x",
                    what, expected, (int) crc.getValue()));
        }
        try {
            return new BlockTags(version, body(in));
        } catch (RuntimeException e) {
            // An underflow or a bad count inside a body whose CRC holds: written wrong, not damaged.
            throw new CorruptTagsException(what + ": malformed body at byte " + in.position() + ": " + e.getMessage());
        }
    }

    private static Map<String, Values> body(ByteBuffer in) throws CorruptTagsException {
        int keyCount = count(in, 4 + 1 + 4);
        Map<String, Values> keys = new TreeMap<>(BlockTags::compareUtf8);
        for (int k = 0; k < keyCount; k++) {
            String key = string(in);
            int flags = in.get() & 0xff;
            if ((flags & ~TRUNCATED) != 0) {
                throw new IllegalArgumentException("unknown flags 0x" + Integer.toHexString(flags));
            }
            int valueCount = count(in, 2);
            List<AnyValue> values = new ArrayList<>(valueCount);
            for (int v = 0; v < valueCount; v++) {
                byte type = in.get();
                values.add(switch (type) {
                    case STRING -> new AnyValue.Str(string(in));
                    case INT -> new AnyValue.Int(in.getLong());
                    case DOUBLE -> new AnyValue.Dbl(Double.longBitsToDouble(in.getLong()));
                    case BOOL -> new AnyValue.Bool(bool(in.get()));
                    default -> throw new IllegalArgumentException("unknown value type 0x" + Integer.toHexString(type & 0xff));
                });
            }
            if (keys.put(key, new Values(values, (flags & TRUNCATED) != 0)) != null) {
                throw new IllegalArgumentException("key " + key + " twice");
            }
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException(in.remaining() + " bytes after the last key");
        }
        return keys;
    }

    /** A u32 count whose items, at {@code minBytes} each, fit in what is left: checked before any allocation. */
    private static int count(ByteBuffer in, int minBytes) {
        long n = Integer.toUnsignedLong(in.getInt());
        if (n * minBytes > in.remaining()) {
            throw new IllegalArgumentException("a count of " + n + " does not fit in the " + in.remaining()
                    + " bytes left");
        }
        return (int) n;
    }

    private static String string(ByteBuffer in) {
        long n = Integer.toUnsignedLong(in.getInt());
        if (n > in.remaining()) {
            throw new IllegalArgumentException("a string of " + n + " bytes does not fit in the " + in.remaining()
                    + " bytes left");
        }
        ByteBuffer bytes = in.slice();
        bytes.limit((int) n);
        in.position(in.position() + (int) n);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(bytes).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("a string is not UTF-8");
        }
    }

    private static boolean bool(byte b) {
        if (b != 0 && b != 1) {
            throw new IllegalArgumentException("a bool is " + b + ", not 0 or 1");
        }
        return b == 1;
    }

    private static int typeByte(AnyValue v) {
        if (v instanceof AnyValue.Str) {
            return STRING;
        } else if (v instanceof AnyValue.Int) {
            return INT;
        } else if (v instanceof AnyValue.Dbl) {
            return DOUBLE;
        } else if (v instanceof AnyValue.Bool) {
            return BOOL;
        }
        throw new IllegalArgumentException("not a scalar value: " + v);
    }

    private static int compareSameType(AnyValue a, AnyValue b) {
        if (a instanceof AnyValue.Str x) {
            return compareUtf8(x.value(), ((AnyValue.Str) b).value());
        } else if (a instanceof AnyValue.Int x) {
            return Long.compare(x.value(), ((AnyValue.Int) b).value());
        } else if (a instanceof AnyValue.Dbl x) {
            return Double.compare(x.value(), ((AnyValue.Dbl) b).value());
        }
        return Boolean.compare(((AnyValue.Bool) a).value(), ((AnyValue.Bool) b).value());
    }

    /** Strings in the order of their UTF-8 bytes (unsigned), which Java's UTF-16 order is not. */
    private static int compareUtf8(String a, String b) {
        return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    /** The body as it is written. */
    private static final class Body {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void u32(int v) {
            out.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
        }

        void i64(long v) {
            out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
        }

        void string(String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            u32(bytes.length);
            out.writeBytes(bytes);
        }
    }

    /** A TAGS file that cannot be trusted: its reader scans the block instead. */
    public static final class CorruptTagsException extends IOException {
        CorruptTagsException(String message) {
            super(message);
        }
    }
}
