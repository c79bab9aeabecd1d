package dev.needle.query.traceql;

import java.util.Objects;

/**
 * An expression over one span's fields, the inside of a spanset filter {@code { … }} and the
 * argument of {@code by()}, the aggregates and the metrics functions: values, attributes,
 * intrinsics, arithmetic, comparisons and boolean logic.
 *
 * <p>{@link #toString()} writes the expression with the parentheses its precedence needs, as
 * text that parses back to an equal tree.
 */
public sealed interface FieldExpr {

    /** A literal value. */
    record Literal(Value value) implements FieldExpr {
        public Literal {
            Objects.requireNonNull(value, "value");
        }

        @Override
        public String toString() {
            return value.toString();
        }
    }

    /** An attribute by scope and name: {@code span.http.url}, {@code .foo}, {@code resource."a b"}. */
    record Attribute(AttributeScope scope, String name) implements FieldExpr {
        public Attribute {
            Objects.requireNonNull(scope, "scope");
            Objects.requireNonNull(name, "name");
        }

        @Override
        public String toString() {
            return scope.prefix() + Text.attributeName(name);
        }
    }

    /** An intrinsic field of the span, its trace, its events, links or instrumentation scope. */
    record IntrinsicField(Intrinsic intrinsic) implements FieldExpr {
        public IntrinsicField {
            Objects.requireNonNull(intrinsic, "intrinsic");
        }

        @Override
        public String toString() {
            return intrinsic.text();
        }
    }

    /** {@code lhs op rhs}. */
    record Binary(BinaryOp op, FieldExpr lhs, FieldExpr rhs) implements FieldExpr {
        public Binary {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(lhs, "lhs");
            Objects.requireNonNull(rhs, "rhs");
        }

        @Override
        public String toString() {
            boolean rightAssoc = op == BinaryOp.POW;
            return wrapped(lhs, op.precedence() + (rightAssoc ? 1 : 0)) + " " + op.symbol() + " "
                    + wrapped(rhs, op.precedence() + (rightAssoc ? 0 : 1));
        }
    }

    /** {@code -x}, {@code !x}, {@code x != nil} (exists) or {@code x = nil} (missing). */
    record Unary(UnaryOp op, FieldExpr operand) implements FieldExpr {
        public Unary {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(operand, "operand");
        }

        @Override
        public String toString() {
            return switch (op) {
                case NEGATE -> "-" + wrapped(operand, UNARY_PRECEDENCE);
                case NOT -> "!" + wrapped(operand, UNARY_PRECEDENCE);
                case EXISTS -> wrapped(operand, COMPARISON_PRECEDENCE + 1) + " != nil";
                case NOT_EXISTS -> wrapped(operand, COMPARISON_PRECEDENCE + 1) + " = nil";
            };
        }
    }

    /** Where a named attribute lives. */
    enum AttributeScope {
        /** {@code .name}: the span's attribute, else the resource's. */
        NONE("."),
        SPAN("span."),
        RESOURCE("resource."),
        EVENT("event."),
        LINK("link."),
        INSTRUMENTATION("instrumentation.");

        private final String prefix;

        AttributeScope(String prefix) {
            this.prefix = prefix;
        }

        /** How the scope is written before the name. */
        public String prefix() {
            return prefix;
        }
    }

    /** The intrinsic fields, each with the text the printer writes. */
    enum Intrinsic {
        DURATION("duration"),
        NAME("name"),
        STATUS("status"),
        STATUS_MESSAGE("statusMessage"),
        KIND("kind"),
        SPAN_ID("span:id"),
        PARENT_ID("span:parentID"),
        CHILD_COUNT("span:childCount"),
        TRACE_ID("trace:id"),
        TRACE_ROOT_NAME("trace:rootName"),
        TRACE_ROOT_SERVICE("trace:rootService"),
        TRACE_DURATION("trace:duration"),
        EVENT_NAME("event:name"),
        EVENT_TIME_SINCE_START("event:timeSinceStart"),
        LINK_TRACE_ID("link:traceID"),
        LINK_SPAN_ID("link:spanID"),
        INSTRUMENTATION_NAME("instrumentation:name"),
        INSTRUMENTATION_VERSION("instrumentation:version"),
        NESTED_SET_LEFT("nestedSetLeft"),
        NESTED_SET_RIGHT("nestedSetRight"),
        NESTED_SET_PARENT("nestedSetParent");

        private final String text;

        Intrinsic(String text) {
            this.text = text;
        }

        /** How a query writes it. */
        public String text() {
            return text;
        }
    }

    /** Binary operators with Tempo's precedence (higher binds tighter). */
    enum BinaryOp {
        OR("||", 1), AND("&&", 1),
        EQ("=", 2), NE("!=", 2), LT("<", 2), LE("<=", 2), GT(">", 2), GE(">=", 2), MATCH("=~", 2), NOT_MATCH("!~", 2),
        ADD("+", 3), SUB("-", 3),
        MUL("*", 5), DIV("/", 5), MOD("%", 5),
        POW("^", 6);

        private final String symbol;
        private final int precedence;

        BinaryOp(String symbol, int precedence) {
            this.symbol = symbol;
            this.precedence = precedence;
        }

        public String symbol() {
            return symbol;
        }

        int precedence() {
            return precedence;
        }

        /** Whether the result is a bool: a comparison, a regex match or a logical operator. */
        public boolean isBoolean() {
            return precedence <= COMPARISON_PRECEDENCE;
        }
    }

    /** Unary operators. */
    enum UnaryOp {
        NEGATE, NOT, EXISTS, NOT_EXISTS
    }

    /** The precedence of comparisons. */
    int COMPARISON_PRECEDENCE = 2;
    /** {@code -} and {@code !} bind tighter than {@code + -} and looser than {@code * / %} (Tempo's grammar). */
    int UNARY_PRECEDENCE = 4;

    /** The text of a sub-expression, in parentheses when it binds looser than {@code minPrecedence}. */
    private static String wrapped(FieldExpr e, int minPrecedence) {
        return precedence(e) < minPrecedence ? "(" + e + ")" : e.toString();
    }

    private static int precedence(FieldExpr e) {
        if (e instanceof Binary b) {
            return b.op().precedence();
        }
        if (e instanceof Unary u) {
            return u.op() == UnaryOp.NEGATE || u.op() == UnaryOp.NOT ? UNARY_PRECEDENCE : COMPARISON_PRECEDENCE;
        }
        if (e instanceof Literal l && l.value().isNumeric() && l.value().asDouble() < 0) {
            return UNARY_PRECEDENCE;
        }
        return Integer.MAX_VALUE;
    }
}
