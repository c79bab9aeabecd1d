package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * An attributes column: {@code list<struct<key_ref, key, type, num, bytes>>}, one list per row, one
 * struct (entry) per attribute in the order sent.
 *
 * <table>
 *   <caption>Entry fields</caption>
 *   <tr><th>child</th><th>Arrow type</th><th>holds</th></tr>
 *   <tr><td>key_ref</td><td>int32, not null</td><td>the entry index, in this batch's column, whose
 *       {@code key} holds this entry's key: its own index for the first entry of the batch with that key</td></tr>
 *   <tr><td>key</td><td>utf8</td><td>the key, only where {@code key_ref} is the entry's own index</td></tr>
 *   <tr><td>type</td><td>int8, not null</td><td>{@code s} string, {@code b} bool, {@code n} int,
 *       {@code d} double, {@code y} bytes, {@code a} array, {@code m} key-value list, {@code e} empty</td></tr>
 *   <tr><td>num</td><td>int64</td><td>n: the int; d: the double's IEEE-754 bits (NaN and -0.0 kept); b: 0 or 1</td></tr>
 *   <tr><td>bytes</td><td>binary</td><td>s: the string's UTF-8; y: the bytes; a, m: the value in {@link ValueCodec}</td></tr>
 * </table>
 *
 * A batch holds each distinct key once, so that a key costs four bytes an entry, and an equality
 * scan finds the entries of a key by comparing ints. Scalars are readable from {@code num} and
 * {@code bytes} without decoding; nested values are kept whole, if less conveniently.
 */
public final class AttributeColumn {

    /** Type tag of a string value. */
    public static final byte STRING = 's';
    /** Type tag of a bool value. */
    public static final byte BOOL = 'b';
    /** Type tag of an int value. */
    public static final byte INT = 'n';
    /** Type tag of a double value. */
    public static final byte DOUBLE = 'd';
    /** Type tag of a bytes value. */
    public static final byte BYTES = 'y';
    /** Type tag of an array value. */
    public static final byte ARRAY = 'a';
    /** Type tag of a key-value list value. */
    public static final byte KVLIST = 'm';
    /** Type tag of an empty value. */
    public static final byte EMPTY = 'e';

    private final ListVector list;
    private final StructVector entries;
    private final IntVector keyRef;
    private final VarCharVector key;
    private final TinyIntVector type;
    private final BigIntVector num;
    private final VarBinaryVector bytes;
    /** Writing: the entry holding each key of the current batch. */
    private final Map<String, Integer> keyEntries = new HashMap<>();

    /** Wraps an attributes vector of a loaded batch, or of one being filled. */
    public AttributeColumn(FieldVector vector) {
        this.list = (ListVector) vector;
        this.entries = (StructVector) list.getDataVector();
        this.keyRef = entries.getChild("key_ref", IntVector.class);
        this.key = entries.getChild("key", VarCharVector.class);
        this.type = entries.getChild("type", TinyIntVector.class);
        this.num = entries.getChild("num", BigIntVector.class);
        this.bytes = entries.getChild("bytes", VarBinaryVector.class);
    }

    /** The Arrow field of an attributes column named {@code name}. */
    public static Field field(String name) {
        Field entry = new Field("entry", FieldType.notNullable(ArrowType.Struct.INSTANCE), List.of(
                new Field("key_ref", FieldType.notNullable(new ArrowType.Int(32, true)), null),
                new Field("key", FieldType.nullable(ArrowType.Utf8.INSTANCE), null),
                new Field("type", FieldType.notNullable(new ArrowType.Int(8, true)), null),
                new Field("num", FieldType.nullable(new ArrowType.Int(64, true)), null),
                new Field("bytes", FieldType.nullable(ArrowType.Binary.INSTANCE), null)));
        return new Field(name, FieldType.notNullable(ArrowType.List.INSTANCE), List.of(entry));
    }

    /**
     * Appends row {@code row}'s attributes; rows are written in order, into vectors fresh from
     * allocateNew or reset, where every entry is null until set.
     */
    public void write(int row, List<KeyValue> attributes) {
        int at = list.startNewValue(row);
        int count = attributes.size();
        for (int a = 0; a < count; a++) {
            KeyValue kv = attributes.get(a);
            entries.setIndexDefined(at);
            // get before put: a key already held (the common case) boxes nothing.
            Integer holder = keyEntries.get(kv.key());
            if (holder == null) {
                keyEntries.put(kv.key(), at);
            }
            int ref = holder == null ? at : holder;
            keyRef.setSafe(at, ref);
            // key, num and bytes stay null where they are not set: the vectors are fresh or reset.
            if (ref == at) {
                key.setSafe(at, kv.key().getBytes(StandardCharsets.UTF_8));
            }
            AnyValue v = kv.value();
            if (v instanceof AnyValue.Str s) {
                type.setSafe(at, STRING);
                bytes.setSafe(at, s.value().getBytes(StandardCharsets.UTF_8));
            } else if (v instanceof AnyValue.Int i) {
                type.setSafe(at, INT);
                num.setSafe(at, i.value());
            } else if (v instanceof AnyValue.Dbl d) {
                type.setSafe(at, DOUBLE);
                num.setSafe(at, Double.doubleToRawLongBits(d.value()));
            } else if (v instanceof AnyValue.Bool b) {
                type.setSafe(at, BOOL);
                num.setSafe(at, b.value() ? 1 : 0);
            } else if (v instanceof AnyValue.Blob y) {
                type.setSafe(at, BYTES);
                bytes.setSafe(at, y.value().unsafeArray());
            } else if (v instanceof AnyValue.Empty) {
                type.setSafe(at, EMPTY);
            } else {
                type.setSafe(at, v instanceof AnyValue.Array ? ARRAY : KVLIST);
                bytes.setSafe(at, ValueCodec.encodeValue(v));
            }
            at++;
        }
        list.endValue(row, count);
    }

    /** Sets the entry count of every child after the last row of a batch; the next batch starts afresh. */
    public void finish(int rows) {
        int total = rows == 0 ? 0 : list.getElementEndIndex(rows - 1);
        for (FieldVector child : List.<FieldVector>of(keyRef, key, type, num, bytes)) {
            child.setValueCount(total);
        }
        entries.setValueCount(total);
        list.setValueCount(rows);
        keyEntries.clear();
    }

    /** Row {@code row}'s attributes, decoded. */
    public List<KeyValue> read(int row) throws CorruptValueException {
        int start = start(row);
        int end = end(row);
        List<KeyValue> out = new ArrayList<>(end - start);
        for (int i = start; i < end; i++) {
            out.add(new KeyValue(key(i), value(i)));
        }
        return out;
    }

    /** Index of row {@code row}'s first entry. */
    public int start(int row) {
        return list.getElementStartIndex(row);
    }

    /** Index past row {@code row}'s last entry. */
    public int end(int row) {
        return list.getElementEndIndex(row);
    }

    /** The entry that holds entry {@code i}'s key text; equal keys in a batch have equal references. */
    public int keyRef(int i) throws CorruptValueException {
        int ref = keyRef.get(i);
        if (ref < 0 || ref > i || key.isNull(ref)) {
            throw new CorruptValueException("attribute entry " + i + " refers to entry " + ref + " for its key", 0);
        }
        return ref;
    }

    /** Entry {@code i}'s key. */
    public String key(int i) throws CorruptValueException {
        return new String(key.get(keyRef(i)), StandardCharsets.UTF_8);
    }

    /** Whether the key text held at entry {@code ref} (a {@link #keyRef}) has exactly these UTF-8 bytes. */
    public boolean keyTextEquals(int ref, byte[] utf8) {
        return !key.isNull(ref) && equalBytes(key.getDataBuffer(), key.getStartOffset(ref), key.getEndOffset(ref), utf8);
    }

    /** Entry {@code i}'s type tag. */
    public byte type(int i) {
        return type.get(i);
    }

    /** Whether entry {@code i}, a string, has exactly these UTF-8 bytes, compared without decoding. */
    public boolean stringEquals(int i, byte[] utf8) {
        return equalBytes(bytes.getDataBuffer(), bytes.getStartOffset(i), bytes.getEndOffset(i), utf8);
    }

    /** Entry {@code i}'s string; type s only. */
    public String stringValue(int i) {
        return new String(bytes.get(i), StandardCharsets.UTF_8);
    }

    /** Entry {@code i}'s int; type n only. */
    public long intValue(int i) {
        return num.get(i);
    }

    /** Entry {@code i}'s double; type d only. */
    public double doubleValue(int i) {
        return Double.longBitsToDouble(num.get(i));
    }

    /** Entry {@code i}'s bool; type b only. */
    public boolean boolValue(int i) {
        return num.get(i) != 0;
    }

    /** Entry {@code i}'s value, decoded. */
    public AnyValue value(int i) throws CorruptValueException {
        byte t = type.get(i);
        return switch (t) {
            case STRING -> new AnyValue.Str(stringValue(i));
            case INT -> new AnyValue.Int(intValue(i));
            case DOUBLE -> new AnyValue.Dbl(doubleValue(i));
            case BOOL -> new AnyValue.Bool(boolValue(i));
            case BYTES -> new AnyValue.Blob(Bytes.wrap(bytes.get(i)));
            case EMPTY -> AnyValue.Empty.INSTANCE;
            case ARRAY, KVLIST -> ValueCodec.decodeValue(bytes.get(i));
            default -> throw new CorruptValueException("unknown attribute type tag " + t + " in attribute entry " + i, 0);
        };
    }

    private static boolean equalBytes(ArrowBuf data, long start, long end, byte[] expected) {
        if (end - start != expected.length) {
            return false;
        }
        for (int j = 0; j < expected.length; j++) {
            if (data.getByte(start + j) != expected[j]) {
                return false;
            }
        }
        return true;
    }
}
