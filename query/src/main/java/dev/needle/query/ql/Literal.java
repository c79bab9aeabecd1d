package dev.needle.query.ql;

import dev.needle.blocks.model.AnyValue;
import dev.needle.sidecar.AttributeEncoding;
import dev.needle.sidecar.AttributeHash;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A typed literal, the right-hand side of a condition. The type is the query's, as docs/DESIGN.md
 * says: a quoted literal is a string, {@code 500} an int, {@code 1.5} or {@code 2e3} a double,
 * {@code true}/{@code false} a bool. Intrinsic keywords and durations become ints. The right-hand
 * side of {@code =~} and {@code !~} is a {@link Regex}.
 *
 * <p>{@link #matches} is the one definition of matching: the head tests decoded values with it,
 * and the column scan calls the same typed tests ({@link #matchesInt} and its siblings) on stored
 * scalars. {@link #hash} gives the ATTR_IDX key of exactly the values that {@code matches} calls
 * equal, so that the sidecar never rules out a block the scan would match.
 */
public sealed interface Literal {

    /**
     * Whether a value satisfies {@code value op this}. Values of other types never match, with any
     * operator, {@code !=} included; neither do NaN, bytes, arrays, maps and empty values. Each
     * scalar is judged by its typed test below, which column scans call on stored values directly.
     */
    default boolean matches(Op op, AnyValue value) {
        if (value instanceof AnyValue.Str s) {
            return matchesString(op, s.value());
        } else if (value instanceof AnyValue.Int i) {
            return matchesInt(op, i.value());
        } else if (value instanceof AnyValue.Dbl d) {
            return matchesDouble(op, d.value());
        } else if (value instanceof AnyValue.Bool b) {
            return matchesBool(op, b.value());
        }
        return false;
    }

    /** Whether a string value satisfies {@code value op this}; only a string literal matches strings. */
    default boolean matchesString(Op op, String value) {
        return false;
    }

    /** Whether an int value satisfies {@code value op this}; only numeric literals match ints. */
    default boolean matchesInt(Op op, long value) {
        return false;
    }

    /** Whether a double value satisfies {@code value op this}; only numeric literals match doubles, none NaN. */
    default boolean matchesDouble(Op op, double value) {
        return false;
    }

    /** Whether a bool value satisfies {@code value op this}; only bool literals match bools, with = and != only. */
    default boolean matchesBool(Op op, boolean value) {
        return false;
    }

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
        public boolean matchesString(Op op, String v) {
            return op.test(Ordering.compare(v, value));
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
        public boolean matchesInt(Op op, long v) {
            return op.test(Long.compare(v, value));
        }

        @Override
        public boolean matchesDouble(Op op, double v) {
            return !Double.isNaN(v) && op.test(-Ordering.compare(value, v));
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
        public boolean matchesInt(Op op, long v) {
            return op.test(Ordering.compare(v, value));
        }

        @Override
        public boolean matchesDouble(Op op, double v) {
            return !Double.isNaN(v) && op.test(Ordering.compare(v, value));
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

    /**
     * The quoted regular expression of {@code =~} and {@code !~}; matches strings only, and only
     * with those two operators. As Tempo's (Prometheus' {@code FastRegexMatcher}, {@code ^(?s:re)$})
     * the match is anchored at both ends and {@code .} matches a newline too; the syntax is
     * {@link java.util.regex.Pattern}'s, which agrees with Go's RE2 on the common subset.
     */
    final class Regex implements Literal {
        /** Unescaped, these characters mean more than themselves in a pattern. */
        private static final String META = "\\.+*?()|[]{}^$";

        private final String pattern;
        private final Pattern compiled;
        /** The strings an alternation of plain literals matches, such as {@code a|b\.c}; else null. */
        private final List<String> alternatives;

        /** Compiles {@code pattern}; a {@link java.util.regex.PatternSyntaxException} when it is no regex. */
        public Regex(String pattern) {
            this.pattern = Objects.requireNonNull(pattern, "pattern");
            this.compiled = Pattern.compile(pattern, Pattern.DOTALL);
            this.alternatives = alternatives(pattern);
        }

        /** The pattern as written (after the string's own escapes). */
        public String pattern() {
            return pattern;
        }

        /**
         * The finite set of strings this regex matches when it is an alternation of plain
         * literals ({@code a|b|c}, metacharacters escaped with a backslash as Grafana's
         * multi-value filter sends them); empty for any other regex, whose matches cannot be listed.
         */
        public Optional<List<String>> alternatives() {
            return Optional.ofNullable(alternatives);
        }

        /**
         * Splits on unescaped {@code |}; each part must be plain characters or a backslash before
         * punctuation (a literal in RE2 and in Java alike). Anything else gives null: a regex
         * that may match strings beyond a list, which the ATTR_IDX must not judge.
         */
        private static List<String> alternatives(String pattern) {
            List<String> out = new ArrayList<>();
            StringBuilder part = new StringBuilder();
            for (int i = 0; i < pattern.length(); i++) {
                char c = pattern.charAt(i);
                if (c == '|') {
                    out.add(part.toString());
                    part.setLength(0);
                } else if (c == '\\') {
                    // The pattern compiled, so a backslash is never its last character.
                    char next = pattern.charAt(++i);
                    if (next >= 0x80 || Character.isLetterOrDigit(next) || Character.isWhitespace(next)
                            || Character.isISOControl(next)) {
                        return null;
                    }
                    part.append(next);
                } else if (META.indexOf(c) >= 0) {
                    return null;
                } else {
                    part.append(c);
                }
            }
            out.add(part.toString());
            return List.copyOf(out);
        }

        @Override
        public boolean matchesString(Op op, String v) {
            return op.isRegex() && compiled.matcher(v).matches() == (op == Op.MATCH);
        }

        /** A regex has no one pair in ATTR_IDX: the index probes its {@link #alternatives()} as strings. */
        @Override
        public AttributeHash hash(String indexedKey) {
            throw new IllegalStateException("a regex is not one indexed value: probe its alternatives");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Regex r && r.pattern.equals(pattern);
        }

        @Override
        public int hashCode() {
            return pattern.hashCode();
        }

        @Override
        public String toString() {
            return Canonical.quote(pattern);
        }
    }

    /** {@code true} or {@code false}; matches bools with {@code =} and {@code !=} only. */
    record BoolLit(boolean value) implements Literal {
        @Override
        public boolean matchesBool(Op op, boolean v) {
            return !op.isOrdering() && op.test(v == value ? 0 : 1);
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
