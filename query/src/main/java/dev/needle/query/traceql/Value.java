package dev.needle.query.traceql;

import java.util.Objects;

/**
 * A TraceQL value: a literal of a query, or what a field holds on one span. Types are Tempo's:
 * ints, floats and durations are numbers and compare with each other; a status, a kind, a string
 * and a bool compare only with their own type; {@link Nil} is a missing attribute and equals nothing.
 * {@link #toString()} is the literal's text, which the parser reads back to an equal value.
 */
public sealed interface Value {

    /** No value: a missing attribute, or a field the span does not have. */
    record Nil() implements Value {
        @Override
        public String toString() {
            return "nil";
        }
    }

    /** A 64-bit integer. */
    record Int(long value) implements Value {
        @Override
        public String toString() {
            return value == Long.MIN_VALUE ? "minInt" : value == Long.MAX_VALUE ? "maxInt" : Long.toString(value);
        }
    }

    /** A double. */
    record Float(double value) implements Value {
        @Override
        public String toString() {
            return Double.toString(value);
        }
    }

    /** A string. */
    record Str(String value) implements Value {
        public Str {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return Text.quote(value);
        }
    }

    /** {@code true} or {@code false}. */
    record Bool(boolean value) implements Value {
        @Override
        public String toString() {
            return Boolean.toString(value);
        }
    }

    /** A duration in nanoseconds, such as {@code 1.5ms}. */
    record Duration(long nanos) implements Value {
        @Override
        public String toString() {
            return Text.duration(nanos);
        }
    }

    /** A span status: {@code unset}, {@code ok}, {@code error}; the ordinal is OTLP's code. */
    record Status(StatusCode code) implements Value {
        @Override
        public String toString() {
            return code.word();
        }
    }

    /** A span kind, {@code unspecified} to {@code consumer}; the ordinal is OTLP's SpanKind. */
    record Kind(SpanKind kind) implements Value {
        @Override
        public String toString() {
            return kind.word();
        }
    }

    /** OTLP status codes by their TraceQL words. */
    enum StatusCode {
        UNSET, OK, ERROR;

        /** The word a query writes. */
        public String word() {
            return name().toLowerCase();
        }
    }

    /** OTLP span kinds by their TraceQL words. */
    enum SpanKind {
        UNSPECIFIED, INTERNAL, SERVER, CLIENT, PRODUCER, CONSUMER;

        /** The word a query writes. */
        public String word() {
            return name().toLowerCase();
        }
    }

    /** The one nil. */
    Nil NIL = new Nil();
    Bool TRUE = new Bool(true);
    Bool FALSE = new Bool(false);

    /** The value of a status or kind word, or null. */
    static Value ofWord(String word) {
        for (StatusCode c : StatusCode.values()) {
            if (c.word().equals(word)) {
                return new Status(c);
            }
        }
        for (SpanKind k : SpanKind.values()) {
            if (k.word().equals(word)) {
                return new Kind(k);
            }
        }
        return null;
    }

    /** Whether this is an int, a float or a duration. */
    default boolean isNumeric() {
        return this instanceof Int || this instanceof Float || this instanceof Duration;
    }

    /** The number as a double (a duration in nanoseconds, a status by its code); NaN for the rest. */
    default double asDouble() {
        if (this instanceof Int i) {
            return i.value();
        } else if (this instanceof Float f) {
            return f.value();
        } else if (this instanceof Duration d) {
            return d.nanos();
        } else if (this instanceof Status s) {
            return s.code().ordinal();
        }
        return Double.NaN;
    }

    /**
     * Tempo's equality: nil equals nothing (not even nil), numbers equal by value, a status equals
     * the int of its code, the rest equal their own type's same value.
     */
    default boolean equalsValue(Value o) {
        if (this instanceof Nil || o instanceof Nil) {
            return false;
        }
        if (this instanceof Int || this instanceof Duration) {
            if (o instanceof Int || o instanceof Duration) {
                return asLong(this) == asLong(o);
            }
            if (o instanceof Status s) {
                return this instanceof Int i && i.value() == s.code().ordinal();
            }
            return o instanceof Float && asDouble() == o.asDouble();
        }
        if (this instanceof Status s) {
            return (o instanceof Status || o instanceof Int) && s.code().ordinal() == (long) o.asDouble();
        }
        if (this instanceof Float) {
            return o.isNumeric() && asDouble() == o.asDouble();
        }
        return equals(o);
    }

    private static long asLong(Value v) {
        return v instanceof Int i ? i.value() : ((Duration) v).nanos();
    }
}
