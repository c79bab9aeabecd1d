package dev.needle.query.engine;

import dev.needle.blocks.arrow.VarWidthView;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import java.nio.charset.StandardCharsets;

/**
 * One condition's test of stored scalars — a string's UTF-8 where it lies, an int, a double, a
 * bool — judged as {@link Expr.Condition#matches} judges the decoded value. {@code =} and
 * {@code !=} between a value and a literal of its own type are decided here directly (the same
 * bytes, the same int, {@code ==} on doubles, the same bool); everything else goes to the
 * literal's own typed tests ({@link Literal#matchesInt} and its siblings).
 */
final class ValueTest {

    private final Literal literal;
    private final Op op;
    /** For {@code =} and {@code !=}: whether a match means equal. */
    private final boolean equal;
    /** Only a string literal or a regex matches strings ({@link Literal#matchesString}). */
    private final boolean strings;
    /** The string literal's UTF-8 when {@code =}/{@code !=} may compare stored bytes with it; else null. */
    private final byte[] utf8;
    /** Whether {@code =}/{@code !=} compares ints, doubles or bools with the literal's own value here. */
    private final boolean intEquality;
    private final boolean doubleEquality;
    private final boolean boolEquality;
    private final long intValue;
    private final double doubleValue;
    private final boolean boolValue;

    ValueTest(Expr.Condition c) {
        literal = c.literal();
        op = c.op();
        boolean equality = op == Op.EQ || op == Op.NE;
        equal = op == Op.EQ;
        strings = literal instanceof Literal.StringLit || literal instanceof Literal.Regex;
        utf8 = equality && literal instanceof Literal.StringLit s ? exactUtf8(s.value()) : null;
        intEquality = equality && literal instanceof Literal.IntLit;
        doubleEquality = equality && literal instanceof Literal.DoubleLit;
        boolEquality = equality && literal instanceof Literal.BoolLit;
        intValue = literal instanceof Literal.IntLit i ? i.value() : 0;
        doubleValue = literal instanceof Literal.DoubleLit d ? d.value() : 0;
        boolValue = literal instanceof Literal.BoolLit b && b.value();
    }

    /**
     * The UTF-8 of {@code s} when bytes decode to {@code s} exactly if they are these bytes, else
     * null. A well-formed encoding decodes back to the one string it encodes; malformed bytes decode
     * with U+FFFD, which such an {@code s} lacks. A string with a lone surrogate encodes it as
     * {@code ?}, so its bytes would also match a real {@code ?}: it is compared decoded.
     */
    static byte[] exactUtf8(String s) {
        if (s.indexOf('\uFFFD') >= 0) {
            return null;
        }
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        return new String(bytes, StandardCharsets.UTF_8).equals(s) ? bytes : null;
    }

    /** Whether the string value {@code i} of {@code values} satisfies the condition. */
    boolean string(VarWidthView values, int i) {
        if (!strings) {
            return false;
        }
        return utf8 != null ? values.equalTo(i, utf8) == equal : literal.matchesString(op, values.string(i));
    }

    /** Whether the int {@code v} satisfies the condition. */
    boolean integer(long v) {
        return intEquality ? (v == intValue) == equal : literal.matchesInt(op, v);
    }

    /** Whether the double {@code v} satisfies the condition; NaN satisfies none, -0.0 equals 0.0. */
    boolean dbl(double v) {
        if (doubleEquality) {
            // == is false for NaN and true for -0.0 == 0.0: exactly Literal's equality.
            return equal ? v == doubleValue : !Double.isNaN(v) && v != doubleValue;
        }
        return literal.matchesDouble(op, v);
    }

    /** Whether the bool {@code v} satisfies the condition. */
    boolean bool(boolean v) {
        return boolEquality ? (v == boolValue) == equal : literal.matchesBool(op, v);
    }
}
