package dev.needle.blocks.model;

import java.util.List;

/** An OTLP AnyValue: a scalar, bytes, an array or a key-value list, or nothing at all. */
public sealed interface AnyValue {

    /** An AnyValue with no value set. */
    record Empty() implements AnyValue {
        /** The one empty value. */
        public static final Empty INSTANCE = new Empty();
    }

    /** A string value. */
    record Str(String value) implements AnyValue {
    }

    /** A boolean value. */
    record Bool(boolean value) implements AnyValue {
    }

    /** An int64 value. */
    record Int(long value) implements AnyValue {
    }

    /** A double value; equality compares bits, so that NaN equals NaN and -0.0 differs from 0.0 in round trips. */
    record Dbl(double value) implements AnyValue {
        @Override
        public boolean equals(Object o) {
            return o instanceof Dbl d && Double.doubleToRawLongBits(d.value) == Double.doubleToRawLongBits(value);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(Double.doubleToRawLongBits(value));
        }
    }

    /** A bytes value. */
    record Blob(Bytes value) implements AnyValue {
    }

    /** An array of values. */
    record Array(List<AnyValue> values) implements AnyValue {
        public Array {
            values = List.copyOf(values);
        }
    }

    /** A list of key-value pairs (OTLP's KeyValueList), order and duplicates kept. */
    record KvList(List<KeyValue> values) implements AnyValue {
        public KvList {
            values = List.copyOf(values);
        }
    }

    /** Shorthand for a string value. */
    static AnyValue of(String value) {
        return new Str(value);
    }

    /** Shorthand for an int value. */
    static AnyValue of(long value) {
        return new Int(value);
    }

    /** Shorthand for a double value. */
    static AnyValue of(double value) {
        return new Dbl(value);
    }

    /** Shorthand for a boolean value. */
    static AnyValue of(boolean value) {
        return new Bool(value);
    }

    /** A string as it is, an int, double or bool as Java prints it; null for bytes, arrays, lists and nothing. */
    default String scalarText() {
        // Java 17 has no pattern matching in switch, hence the chain.
        if (this instanceof Str s) {
            return s.value();
        } else if (this instanceof Int i) {
            return Long.toString(i.value());
        } else if (this instanceof Dbl d) {
            return Double.toString(d.value());
        } else if (this instanceof Bool b) {
            return Boolean.toString(b.value());
        }
        return null;
    }
}
