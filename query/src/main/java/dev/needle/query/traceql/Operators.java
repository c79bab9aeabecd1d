package dev.needle.query.traceql;

import dev.needle.query.traceql.FieldExpr.BinaryOp;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * What the operators do to values, as Tempo's engine does: operands of types that do not meet
 * (a string and an int, anything but {@code = !=} with nil) give false; two ints compute as ints
 * (division truncates), other numbers as doubles; {@code =~} is anchored at both ends and its
 * {@code .} matches newlines. A missing attribute (nil) satisfies no comparison, {@code !=} included.
 * Division or remainder by an int zero gives nil.
 */
final class Operators {

    /** Compiled regexes by pattern, emptied when it holds {@link #MAX_REGEXES}, so that it stays small. */
    private static final Map<String, Pattern> REGEXES = new HashMap<>();
    private static final int MAX_REGEXES = 1024;

    private Operators() {
    }

    /** {@code -v} for a number; nil for the rest. */
    static Value negate(Value v) {
        if (v instanceof Value.Int i) {
            return new Value.Int(-i.value());
        } else if (v instanceof Value.Float f) {
            return new Value.Float(-f.value());
        } else if (v instanceof Value.Duration d) {
            return new Value.Duration(-d.nanos());
        }
        return Value.NIL;
    }

    /** {@code l op r}. */
    static Value binary(BinaryOp op, Value l, Value r) {
        Types.Type lt = Types.of(l);
        Types.Type rt = Types.of(r);
        if (!Types.matching(lt, rt) || !Types.valid(op, lt) || !Types.valid(op, rt)) {
            return Value.FALSE;
        }
        if (l instanceof Value.Str a && r instanceof Value.Str b) {
            switch (op) {
                case GT: return bool(codePointCompare(a.value(), b.value()) > 0);
                case GE: return bool(codePointCompare(a.value(), b.value()) >= 0);
                case LT: return bool(codePointCompare(a.value(), b.value()) < 0);
                case LE: return bool(codePointCompare(a.value(), b.value()) <= 0);
                case MATCH, NOT_MATCH: {
                    Pattern p = regex(b.value());
                    return p == null ? Value.NIL : bool(p.matcher(a.value()).matches() == (op == BinaryOp.MATCH));
                }
                default: return bool(a.value().equals(b.value()) == (op == BinaryOp.EQ));
            }
        }
        if (l instanceof Value.Int a && r instanceof Value.Int b) {
            long x = a.value();
            long y = b.value();
            switch (op) {
                case ADD: return new Value.Int(x + y);
                case SUB: return new Value.Int(x - y);
                case MUL: return new Value.Int(x * y);
                case DIV: return y == 0 ? Value.NIL : new Value.Int(x / y);
                case MOD: return y == 0 ? Value.NIL : new Value.Int(x % y);
                case POW: return new Value.Int((long) Math.pow(x, y));
                case GT: return bool(x > y);
                case GE: return bool(x >= y);
                case LT: return bool(x < y);
                case LE: return bool(x <= y);
                default: break;
            }
        }
        if (l instanceof Value.Bool a && r instanceof Value.Bool b) {
            if (op == BinaryOp.AND) {
                return bool(a.value() && b.value());
            } else if (op == BinaryOp.OR) {
                return bool(a.value() || b.value());
            }
        }
        double x = l.asDouble();
        double y = r.asDouble();
        return switch (op) {
            case ADD -> new Value.Float(x + y);
            case SUB -> new Value.Float(x - y);
            case MUL -> new Value.Float(x * y);
            case DIV -> new Value.Float(x / y);
            case MOD -> new Value.Float(x % y);
            case POW -> new Value.Float(Math.pow(x, y));
            case GT -> bool(x > y);
            case GE -> bool(x >= y);
            case LT -> bool(x < y);
            case LE -> bool(x <= y);
            case EQ -> bool(l.equalsValue(r));
            case NE -> bool(!(l instanceof Value.Nil) && !(r instanceof Value.Nil) && !l.equalsValue(r));
            default -> Value.FALSE;
        };
    }

    /** Whether {@code v} is the bool true: what makes a span pass a filter. */
    static boolean isTrue(Value v) {
        return v instanceof Value.Bool b && b.value();
    }

    private static Value bool(boolean b) {
        return b ? Value.TRUE : Value.FALSE;
    }

    /** Go compares strings by their UTF-8 bytes, which is the order of code points. */
    private static int codePointCompare(String a, String b) {
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i);
            int cb = b.codePointAt(j);
            if (ca != cb) {
                return Integer.compare(ca, cb);
            }
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Boolean.compare(i < a.length(), j < b.length());
    }

    private static Pattern regex(String pattern) {
        synchronized (REGEXES) {
            if (REGEXES.size() >= MAX_REGEXES) {
                REGEXES.clear();
            }
            return REGEXES.computeIfAbsent(pattern, p -> {
                try {
                    return Pattern.compile(p, Pattern.DOTALL);
                } catch (PatternSyntaxException e) {
                    return null;
                }
            });
        }
    }
}
