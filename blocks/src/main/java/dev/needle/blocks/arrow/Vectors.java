package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Field constructors and null-aware get/set for the scalar columns of the block schemas. */
final class Vectors {

    private Vectors() {
    }

    static Field utf8(String name) {
        return new Field(name, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
    }

    static Field nullableUtf8(String name) {
        return new Field(name, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);
    }

    static Field int32(String name) {
        return new Field(name, FieldType.notNullable(new ArrowType.Int(32, true)), null);
    }

    static Field int64(String name) {
        return new Field(name, FieldType.notNullable(new ArrowType.Int(64, true)), null);
    }

    static Field fixedBinary(String name, int width, boolean nullable) {
        ArrowType type = new ArrowType.FixedSizeBinary(width);
        return new Field(name, nullable ? FieldType.nullable(type) : FieldType.notNullable(type), null);
    }

    static Field binary(String name) {
        return new Field(name, FieldType.nullable(ArrowType.Binary.INSTANCE), null);
    }

    /** The vector of column {@code name}, or null when the batch was read without it. */
    @SuppressWarnings("unchecked")
    static <V> V vector(VectorSchemaRoot root, String name) {
        return (V) root.getVector(name);
    }

    static void setString(VarCharVector v, int row, String s) {
        v.setSafe(row, s.getBytes(StandardCharsets.UTF_8));
    }

    static String getString(VarCharVector v, int row) {
        return v.isNull(row) ? "" : new String(v.get(row), StandardCharsets.UTF_8);
    }

    /** Sets a row to {@code s}; an empty string leaves it null, as a vector fresh from allocateNew or reset holds every row. */
    static void setNullableString(VarCharVector v, int row, String s) {
        if (!s.isEmpty()) {
            setString(v, row, s);
        }
    }

    /**
     * Sets a row to {@code bytes}; none leave it null, as a vector fresh from allocateNew or reset holds every
     * row. The vector holds the row already: its width is fixed, and it was allocated for the batch's rows.
     */
    static void setBytesOrNull(FixedSizeBinaryVector v, int row, byte[] bytes) {
        if (bytes.length != 0) {
            v.set(row, bytes);
        }
    }

    /** Sets a row to {@code bytes}; none leave it null, as a vector fresh from allocateNew or reset holds every row. */
    static void setBytesOrNull(VarBinaryVector v, int row, byte[] bytes) {
        if (bytes.length != 0) {
            v.setSafe(row, bytes);
        }
    }

    static byte[] getBytes(FixedSizeBinaryVector v, int row) {
        return v.isNull(row) ? new byte[0] : v.get(row);
    }

    static byte[] getBytes(VarBinaryVector v, int row) {
        return v.isNull(row) ? new byte[0] : v.get(row);
    }

    /** Decodes one row of a batch. */
    interface RowDecoder<R> {
        R decode(int row) throws CorruptValueException;
    }

    /**
     * Decodes row {@code row}, turning what a damaged batch's vectors throw (a null in a NOT NULL
     * column, an offset past its data) into a {@link CorruptValueException}.
     */
    static <R> R decodeRow(int row, RowDecoder<R> decoder) throws CorruptValueException {
        try {
            return decoder.decode(row);
        } catch (RuntimeException e) {
            throw new CorruptValueException("row " + row + " cannot be decoded: " + e, 0);
        }
    }
}
