package dev.needle.query.traceql;

import dev.needle.query.traceql.FieldExpr.BinaryOp;
import java.util.EnumSet;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The static types of field expressions, checked once a query is parsed as Tempo's validation
 * does: operands must fit their operator ({@code status > ok} and {@code 1 = "a"} are refused), a
 * filter must be a condition, an aggregate and a group must read the span.
 */
final class Types {

    /** A static type; ATTRIBUTE is an attribute's, known only on the span. */
    enum Type {
        NIL, INT, FLOAT, DURATION, STRING, BOOL, STATUS, KIND, ATTRIBUTE;

        boolean isNumeric() {
            return this == INT || this == FLOAT || this == DURATION;
        }
    }

    /** Intrinsics every span has, which therefore are never compared with nil. */
    private static final Set<FieldExpr.Intrinsic> NEVER_NIL = EnumSet.of(
            FieldExpr.Intrinsic.STATUS, FieldExpr.Intrinsic.KIND, FieldExpr.Intrinsic.DURATION);

    private Types() {
    }

    /** The type of a value. */
    static Type of(Value v) {
        if (v instanceof Value.Int) {
            return Type.INT;
        } else if (v instanceof Value.Float) {
            return Type.FLOAT;
        } else if (v instanceof Value.Duration) {
            return Type.DURATION;
        } else if (v instanceof Value.Str) {
            return Type.STRING;
        } else if (v instanceof Value.Bool) {
            return Type.BOOL;
        } else if (v instanceof Value.Status) {
            return Type.STATUS;
        } else if (v instanceof Value.Kind) {
            return Type.KIND;
        }
        return Type.NIL;
    }

    /** The type of an intrinsic's values. */
    static Type of(FieldExpr.Intrinsic i) {
        return switch (i) {
            case DURATION, TRACE_DURATION, EVENT_TIME_SINCE_START -> Type.DURATION;
            case STATUS -> Type.STATUS;
            case KIND -> Type.KIND;
            case CHILD_COUNT, NESTED_SET_LEFT, NESTED_SET_RIGHT, NESTED_SET_PARENT -> Type.INT;
            default -> Type.STRING;
        };
    }

    /** The type of {@code e}; an IllegalArgumentException names the part whose types do not fit. */
    static Type check(FieldExpr e) {
        if (e instanceof FieldExpr.Literal l) {
            return of(l.value());
        } else if (e instanceof FieldExpr.IntrinsicField i) {
            return of(i.intrinsic());
        } else if (e instanceof FieldExpr.Unary u) {
            return unary(u);
        } else if (e instanceof FieldExpr.Binary b) {
            return binary(b);
        }
        return Type.ATTRIBUTE;
    }

    private static Type unary(FieldExpr.Unary u) {
        Type t = check(u.operand());
        return switch (u.op()) {
            case NEGATE -> {
                if (t != Type.ATTRIBUTE && !t.isNumeric()) {
                    throw new IllegalArgumentException("'" + u + "': - takes a number, not " + describe(t));
                }
                yield t;
            }
            case NOT -> {
                if (t != Type.ATTRIBUTE && t != Type.BOOL) {
                    throw new IllegalArgumentException("'" + u + "': ! takes a condition, not " + describe(t));
                }
                yield Type.BOOL;
            }
            case EXISTS, NOT_EXISTS -> {
                if (u.operand() instanceof FieldExpr.IntrinsicField i && NEVER_NIL.contains(i.intrinsic())
                        || u.operand() instanceof FieldExpr.Attribute a && a.scope() == FieldExpr.AttributeScope.RESOURCE
                        && a.name().equals("service.name")) {
                    throw new IllegalArgumentException("'" + u + "': " + u.operand() + " is never nil");
                }
                yield Type.BOOL;
            }
        };
    }

    private static Type binary(FieldExpr.Binary b) {
        Type l = check(b.lhs());
        Type r = check(b.rhs());
        if (!matching(l, r) || !valid(b.op(), l) || !valid(b.op(), r)) {
            throw new IllegalArgumentException("'" + b + "': " + b.op().symbol() + " does not apply to "
                    + describe(l) + " and " + describe(r));
        }
        if ((b.op() == BinaryOp.MATCH || b.op() == BinaryOp.NOT_MATCH) && b.rhs() instanceof FieldExpr.Literal lit
                && lit.value() instanceof Value.Str s) {
            try {
                Pattern.compile(s.value());
            } catch (PatternSyntaxException ex) {
                throw new IllegalArgumentException("'" + b + "': " + s + " is no regular expression: " + ex.getDescription());
            }
        }
        if (b.op().isBoolean()) {
            return Type.BOOL;
        }
        if (l == Type.ATTRIBUTE || r == Type.ATTRIBUTE) {
            return Type.ATTRIBUTE;
        }
        return l == Type.INT && r == Type.INT ? Type.INT : Type.FLOAT;
    }

    /** Whether two types may meet in one operation (Tempo's isMatchingOperand). */
    static boolean matching(Type l, Type r) {
        return l == Type.ATTRIBUTE || r == Type.ATTRIBUTE || l == r || l.isNumeric() && r.isNumeric()
                || l == Type.NIL || r == Type.NIL;
    }

    /** Whether an operator applies to a type (Tempo's binaryTypeValid). */
    static boolean valid(BinaryOp op, Type t) {
        return switch (t) {
            case ATTRIBUTE -> true;
            case BOOL -> op == BinaryOp.AND || op == BinaryOp.OR || op == BinaryOp.EQ || op == BinaryOp.NE;
            case INT, FLOAT, DURATION -> !op.isBoolean() || op != BinaryOp.AND && op != BinaryOp.OR
                    && op != BinaryOp.MATCH && op != BinaryOp.NOT_MATCH;
            case STRING -> op.isBoolean() && op != BinaryOp.AND && op != BinaryOp.OR;
            case NIL, STATUS, KIND -> op == BinaryOp.EQ || op == BinaryOp.NE;
        };
    }

    /** Whether the expression reads the span (an attribute or intrinsic), not only literals. */
    static boolean readsSpan(FieldExpr e) {
        if (e instanceof FieldExpr.Unary u) {
            return readsSpan(u.operand());
        } else if (e instanceof FieldExpr.Binary b) {
            return readsSpan(b.lhs()) || readsSpan(b.rhs());
        }
        return !(e instanceof FieldExpr.Literal);
    }

    private static String describe(Type t) {
        return t == Type.ATTRIBUTE ? "an attribute" : t.name().toLowerCase();
    }
}
