package dev.needle.query.ql;

import dev.needle.blocks.model.AnyValue;
import dev.needle.sidecar.AttributeEncoding;
import dev.needle.sidecar.AttributeHash;
import java.util.Objects;

/**
 * A typed literal, the right-hand side of a condition. The type is the query's, as DESIGN.md
 * says: a quoted literal is a string, {@code 500} an int, {@code 1.5} or {@code 2e3} a double,
 * {@code true}/{@code false} a bool. Intrinsic keywords and durations become ints.
 *
 * <p>{@link #matches} is the one definition of matching that the scan uses, and {@link #hash}
 * gives the ATTR_IDX key of exactly the values that {@code matches} calls equal, so that the
 * sidecar never rules out a block the scan would match.
 */
public sealed interface Literal {

    /**
     * Whether a value satisfies {@code value op this}. Values of other types never match, with any
     * operator, {@code !=} included; neither do NaN, bytes, arrays, maps and empty values.
     */
    boolean matches(Op op, AnyValue value);

    /**
     * The ATTR_IDX key of the pair (indexedKey, this), the one that any value {@code matches}
     * calls equal was indexed under: the canonical sidecar encoding makes equal values hash alike.
     */
    AttributeHash hash(String indexedKey);

    /**
     * Whether only double values can equal this literal (a fractional decimal, or one beyond the
     * int64 range), so that a block without doubles (HAS_DOUBLE clear) cannot match {@code =}.
     */
    default boolean matchesOnlyDoubles() {
        return false;
    }

    /** A quoted string; matches strings only, ordered by code point (= UTF-8 byte order). */
    record StringLit(String value) implements Literal {
        public StringLit {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public boolean matches(Op op, AnyValue v) {
            return v instanceof AnyValue.Str s && op.test(Ordering.compare(s.value(), value));
        }

        @Override
        public AttributeHash hash(String indexedKey) {
            return AttributeHash.ofString(indexedKey, value);
        }

        @Override
        public String toString() {
            return Canonical.quote(value);
        }
    }

    /** An integer; matches ints, and doubles by exact value (so 200 matches 200.0). */
    record IntLit(long value) implements Literal {
        @Override
        public boolean matches(Op op, AnyValue v) {
            if (v instanceof AnyValue.Int i) {
                return op.test(Long.compare(i.value(), value));
            }
            return v instanceof AnyValue.Dbl d && !Double.isNaN(d.value())
                    && op.test(-Ordering.compare(value, d.value()));
        }

        @Override
        public AttributeHash hash(String indexedKey) {
            return AttributeHash.ofLong(indexedKey, value);
        }

        @Override
        public String toString() {
            return Long.toString(value);
        }
    }

    /** A decimal (finite); matches doubles by value, -0.0 equal to 0.0, and ints by exact value. */
    record DoubleLit(double value) implements Literal {
        public DoubleLit {
            if (!Double.isFinite(value)) {
                throw new IllegalArgumentException("a decimal literal must be finite, got " + value);
            }
        }

        @Override
        public boolean matches(Op op, AnyValue v) {
            if (v instanceof AnyValue.Int i) {
                return op.test(Ordering.compare(i.value(), value));
            }
            return v instanceof AnyValue.Dbl d && !Double.isNaN(d.value())
                    && op.test(Ordering.compare(d.value(), value));
        }

        @Override
        public AttributeHash hash(String indexedKey) {
            return AttributeHash.ofDouble(indexedKey, value);
        }

        @Override
        public boolean matchesOnlyDoubles() {
            return !AttributeEncoding.isIntegralInt64(value);
        }

        /** Always has a '.', so it reads back as a decimal, not an int; exact for every double. */
        @Override
        public String toString() {
            return Double.toString(value);
        }
    }

    /** {@code true} or {@code false}; matches bools with {@code =} and {@code !=} only. */
    record BoolLit(boolean value) implements Literal {
        @Override
        public boolean matches(Op op, AnyValue v) {
            return v instanceof AnyValue.Bool b && !op.isOrdering() && op.test(b.value() == value ? 0 : 1);
        }

        @Override
        public AttributeHash hash(String indexedKey) {
            return AttributeHash.ofBool(indexedKey, value);
        }

        @Override
        public String toString() {
            return Boolean.toString(value);
        }
    }
}
