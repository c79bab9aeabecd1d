package dev.needle.query.ql;

import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.AnyValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A parsed selector {@code { … }}: conditions combined with AND and OR, or everything.
 *
 * <p>Trees are canonical by construction: an {@link And} never holds an And (nor an {@link Or} an
 * Or; nested ones are flattened), each holds at least two terms, and {@link MatchAll} stands only
 * alone. So {@code a && (b && c)} and {@code (a && b) && c} are equal, and {@link #toString()}
 * prints a text that parses back to an equal tree.
 */
public sealed interface Expr {

    /** All terms hold. */
    record And(List<Expr> terms) implements Expr {
        /** Flattens nested Ands; at least two terms, none of them MatchAll. */
        public And {
            terms = flatten(terms, And.class, "And");
        }

        @Override
        public String toString() {
            return Canonical.selector(this);
        }
    }

    /** At least one term holds. */
    record Or(List<Expr> terms) implements Expr {
        /** Flattens nested Ors; at least two terms, none of them MatchAll. */
        public Or {
            terms = flatten(terms, Or.class, "Or");
        }

        @Override
        public String toString() {
            return Canonical.selector(this);
        }
    }

    /** {@code attribute op literal}. */
    record Condition(Attribute attribute, Op op, Literal literal) implements Expr {
        /** Checks that the literal has the intrinsic's type and that bools are not ordered. */
        public Condition {
            Objects.requireNonNull(attribute, "attribute");
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(literal, "literal");
            if (op.isOrdering() && literal instanceof Literal.BoolLit) {
                throw new IllegalArgumentException("true and false are not ordered: compare them with = or !=");
            }
            if (op.isRegex() != literal instanceof Literal.Regex) {
                throw new IllegalArgumentException(op.isRegex() ? op.symbol() + " takes a regex, got " + literal
                        : "a regex goes with =~ or !~, not " + op.symbol());
            }
            if (attribute.isField()) {
                boolean isString = attribute.isStringField();
                if (isString ? literal instanceof Literal.IntLit : !(literal instanceof Literal.IntLit)) {
                    throw new IllegalArgumentException(attribute.key() + " takes " + (isString ? "a string" : "an int")
                            + " literal, got " + literal);
                }
            }
        }

        /**
         * The literals one of which every matching value equals, which ATTR_IDX may therefore
         * look up: the literal of {@code =}, the strings of a {@code =~} alternation of plain
         * literals. Empty for every other condition, which no index of values can rule out.
         */
        public List<Literal> equalities() {
            if (op == Op.EQ) {
                return List.of(literal);
            }
            if (op == Op.MATCH && literal instanceof Literal.Regex r) {
                return r.alternatives().stream().flatMap(List::stream)
                        .<Literal>map(Literal.StringLit::new).toList();
            }
            return List.of();
        }

        /**
         * Whether a record whose attribute has this value satisfies the condition; {@code null}
         * means the attribute is missing, which satisfies no condition, {@code !=} included.
         * Intrinsics and trace fields are passed as values too: the name, status message, root
         * service and root name as strings, status, kind, severity and durations (in nanoseconds) as ints.
         */
        public boolean matches(AnyValue value) {
            return value != null && literal.matches(op, value);
        }

        @Override
        public String toString() {
            return Canonical.selector(this);
        }
    }

    /** The empty selector {@code { }}: every record (a listing by time range). */
    record MatchAll() implements Expr {
        @Override
        public String toString() {
            return Canonical.selector(this);
        }
    }

    private static List<Expr> flatten(List<Expr> terms, Class<? extends Expr> type, String name) {
        List<Expr> flat = new ArrayList<>(terms.size());
        for (Expr t : terms) {
            Objects.requireNonNull(t, "term");
            if (t instanceof MatchAll) {
                throw new IllegalArgumentException("MatchAll cannot be a term of " + name);
            }
            flat.addAll(type.isInstance(t) ? children(t) : List.of(t));
        }
        if (flat.size() < 2) {
            throw new IllegalArgumentException(name + " needs at least two terms, got " + flat.size());
        }
        return List.copyOf(flat);
    }

    private static List<Expr> children(Expr e) {
        return e instanceof And a ? a.terms() : ((Or) e).terms();
    }
}
