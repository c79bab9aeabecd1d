package dev.needle.query.traceql;

import java.util.List;
import java.util.Objects;

/**
 * A span query, or one stage of one: what selects spansets from a trace. A filter selects spans;
 * an operation combines two spanset expressions; a pipeline passes spansets through stages.
 */
public sealed interface SpansetExpr extends Stage {

    /** {@code { condition }}: the spans for which the condition is true; {@code { }} is every span. */
    record Filter(FieldExpr condition) implements SpansetExpr {
        public Filter {
            Objects.requireNonNull(condition, "condition");
        }

        /** Whether this is {@code { }} or {@code { true }}. */
        public boolean matchesAll() {
            return condition.equals(new FieldExpr.Literal(Value.TRUE));
        }

        @Override
        public String toString() {
            return matchesAll() ? "{ }" : "{ " + condition + " }";
        }
    }

    /** {@code lhs op rhs}: both sides evaluated on the same input spanset. */
    record Operation(SpansetOp op, SpansetExpr lhs, SpansetExpr rhs) implements SpansetExpr {
        public Operation {
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(lhs, "lhs");
            Objects.requireNonNull(rhs, "rhs");
        }

        @Override
        public String toString() {
            boolean wrapAll = lhs instanceof Pipeline || rhs instanceof Pipeline;
            return side(lhs, op.precedence(), wrapAll) + " " + op.symbol() + " " + side(rhs, op.precedence() + 1, wrapAll);
        }

        /** Pipelines are always wrapped; beside a pipeline a filter is too, as Tempo's grammar wants. */
        private static String side(SpansetExpr e, int minPrecedence, boolean wrapAll) {
            boolean wrap = e instanceof Pipeline || e instanceof Operation o && o.op().precedence() < minPrecedence
                    || wrapAll && e instanceof Filter;
            return wrap ? "(" + e + ")" : e.toString();
        }
    }

    /**
     * {@code stage | stage | …}: each stage takes the spansets the one before gave. At least two
     * stages, or one that is not a spanset expression (a lone spanset expression is itself).
     */
    record Pipeline(List<Stage> stages) implements SpansetExpr {
        public Pipeline {
            stages = List.copyOf(stages);
            if (stages.isEmpty() || stages.size() == 1 && stages.get(0) instanceof SpansetExpr) {
                throw new IllegalArgumentException("a pipeline needs two stages or one that is no spanset expression");
            }
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder();
            for (Stage s : stages) {
                out.append(out.length() == 0 ? "" : " | ").append(s instanceof Pipeline ? "(" + s + ")" : s);
            }
            return out.toString();
        }
    }

    /** The operators between spanset expressions; the structural ones relate spans by parent and child. */
    enum SpansetOp {
        /** Both sides found spans: the spans of both. */
        AND("&&", 1),
        /** Either side found spans: the spans of both. */
        UNION("||", 1),
        /** Right-hand spans that are children of left-hand spans. */
        CHILD(">", 2),
        /** Right-hand spans that are parents of left-hand spans. */
        PARENT("<", 2),
        /** Right-hand spans that are descendants of left-hand spans. */
        DESCENDANT(">>", 2),
        /** Right-hand spans that are ancestors of left-hand spans. */
        ANCESTOR("<<", 2),
        /** Right-hand spans that are siblings of left-hand spans. */
        SIBLING("~", 2),
        NOT_CHILD("!>", 2),
        NOT_PARENT("!<", 2),
        NOT_DESCENDANT("!>>", 2),
        NOT_ANCESTOR("!<<", 2),
        NOT_SIBLING("!~", 2),
        /** Both the left-hand parents and the right-hand children that are so related. */
        UNION_CHILD("&>", 2),
        UNION_PARENT("&<", 2),
        UNION_DESCENDANT("&>>", 2),
        UNION_ANCESTOR("&<<", 2),
        UNION_SIBLING("&~", 2);

        private final String symbol;
        private final int precedence;

        SpansetOp(String symbol, int precedence) {
            this.symbol = symbol;
            this.precedence = precedence;
        }

        public String symbol() {
            return symbol;
        }

        int precedence() {
            return precedence;
        }

        /** Whether this is a negated structural operator ({@code !>} …), which keeps right-hand spans without the relation. */
        public boolean isNegated() {
            return symbol.startsWith("!");
        }

        /** Whether the spans found are of both sides ({@code &&}, {@code ||}, the {@code &} forms), not the right-hand side's only. */
        public boolean returnsBothSides() {
            return this == AND || this == UNION || symbol.startsWith("&");
        }

        /** The operator of a token's text, or null. */
        static SpansetOp ofSymbol(String symbol) {
            for (SpansetOp op : values()) {
                if (op.symbol.equals(symbol)) {
                    return op;
                }
            }
            return null;
        }
    }
}
