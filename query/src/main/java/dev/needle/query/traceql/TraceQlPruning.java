package dev.needle.query.traceql;

import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import dev.needle.query.traceql.FieldExpr.BinaryOp;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * What every trace a TraceQL query matches certainly holds, in the engine's index form
 * ({@link Expr}), so that a lookup may skip what holds none of it. A skip must be certain: every
 * rule below only ever drops knowledge, never guesses.
 *
 * <ul>
 *   <li>A filter {@code { c }} needs a span satisfying c; of c are kept the comparisons of an
 *       attribute or of name, status, kind, duration, statusMessage with a literal, joined by
 *       {@code &&} (a part that cannot be kept is dropped) and {@code ||} (only when both sides are kept).
 *       Dropped: {@code !=} against a number (a NaN attribute satisfies it in Tempo), nil tests,
 *       negations, arithmetic, event, link and trace fields.</li>
 *   <li>{@code &&}, the structural operators and their {@code &} forms need what both sides need;
 *       their {@code !} forms only what the right-hand side needs; {@code ||} needs, for each pair of
 *       the sides' needs, one or the other.</li>
 *   <li>A pipeline needs what each of its spanset stages needs; a metrics query what its spans need
 *       (math: what either side needs).</li>
 * </ul>
 */
public final class TraceQlPruning {

    /** Past this many pairs, an {@code ||} of two sides' needs is given up. */
    private static final int MAX_OR_PAIRS = 16;

    private TraceQlPruning() {
    }

    /**
     * Conditions each of which at least one span of every trace the query matches satisfies (the
     * trace's spans in any block); empty when nothing is certain. A trace holding no span for one
     * of them cannot match.
     */
    public static List<Expr> required(Query query) {
        if (query instanceof Query.Spans s) {
            return List.copyOf(required(s.expr()));
        }
        return List.copyOf(required(((Query.Metrics) query).expr()));
    }

    /**
     * Conditions that every span the query returns satisfies (each span of each spanset it finds), so
     * that a search of spans by them finds every trace that holds such a span where it looks: a filter's
     * condition; the right-hand side's for a structural operator and its {@code !} form, whose spans are
     * right-hand spans; for {@code &&}, {@code ||} and the {@code &} forms, which return spans of both
     * sides, one side's or the other's; every stage's for a pipeline, whose stages keep spans of their
     * input. Empty when nothing is certain.
     */
    public static List<Expr> returned(Query.Spans query) {
        return List.copyOf(returned(query.expr()));
    }

    private static Set<Expr> returned(Stage stage) {
        Set<Expr> out = new LinkedHashSet<>();
        if (stage instanceof SpansetExpr.Filter f) {
            out.addAll(filtered(f));
        } else if (stage instanceof SpansetExpr.Operation o) {
            if (o.op().returnsBothSides()) {
                return either(returned(o.lhs()), returned(o.rhs()));
            }
            out.addAll(returned(o.rhs()));
        } else if (stage instanceof SpansetExpr.Pipeline p) {
            p.stages().forEach(s -> out.addAll(returned(s)));
        }
        return out;
    }

    private static Set<Expr> required(MetricsExpr e) {
        if (e instanceof MetricsExpr.Pipeline p) {
            return required(p.spans());
        } else if (e instanceof MetricsExpr.Staged s) {
            return required(s.inner());
        } else if (e instanceof MetricsExpr.ScalarMath s) {
            return required(s.series());
        }
        MetricsExpr.Math m = (MetricsExpr.Math) e;
        return either(required(m.lhs()), required(m.rhs()));
    }

    private static Set<Expr> required(Stage stage) {
        Set<Expr> out = new LinkedHashSet<>();
        if (stage instanceof SpansetExpr.Filter f) {
            out.addAll(filtered(f));
        } else if (stage instanceof SpansetExpr.Operation o) {
            if (o.op() == SpansetExpr.SpansetOp.UNION) {
                return either(required(o.lhs()), required(o.rhs()));
            }
            if (!o.op().isNegated()) {
                out.addAll(required(o.lhs()));
            }
            out.addAll(required(o.rhs()));
        } else if (stage instanceof SpansetExpr.Pipeline p) {
            p.stages().forEach(s -> out.addAll(required(s)));
        }
        return out;
    }

    /** What every span a filter keeps satisfies: its condition, when the index form can state it. */
    private static Set<Expr> filtered(SpansetExpr.Filter f) {
        Expr e = implied(f.condition());
        return e == null ? Set.of() : Set.of(e);
    }

    /** For each pair of needs, one or the other; nothing when a side needs nothing. */
    private static Set<Expr> either(Set<Expr> l, Set<Expr> r) {
        Set<Expr> out = new LinkedHashSet<>();
        if (l.isEmpty() || r.isEmpty() || l.size() * r.size() > MAX_OR_PAIRS) {
            return out;
        }
        for (Expr a : l) {
            for (Expr b : r) {
                out.add(a.equals(b) ? a : new Expr.Or(List.of(a, b)));
            }
        }
        return out;
    }

    /** An Expr every span satisfying {@code e} satisfies, or null when none can be given. */
    private static Expr implied(FieldExpr e) {
        if (e instanceof FieldExpr.Binary b) {
            if (b.op() == BinaryOp.AND || b.op() == BinaryOp.OR) {
                Expr l = implied(b.lhs());
                Expr r = implied(b.rhs());
                if (b.op() == BinaryOp.OR) {
                    return l == null || r == null ? null : new Expr.Or(List.of(l, r));
                }
                return l == null ? r : r == null ? l : new Expr.And(List.of(l, r));
            }
            if (b.lhs() instanceof FieldExpr.Literal lit) {
                BinaryOp flipped = flip(b.op());
                return flipped == null ? null : condition(b.rhs(), flipped, lit.value());
            }
            if (b.rhs() instanceof FieldExpr.Literal lit) {
                return condition(b.lhs(), b.op(), lit.value());
            }
        }
        return null;
    }

    private static BinaryOp flip(BinaryOp op) {
        return switch (op) {
            case EQ, NE -> op;
            case LT -> BinaryOp.GT;
            case LE -> BinaryOp.GE;
            case GT -> BinaryOp.LT;
            case GE -> BinaryOp.LE;
            default -> null;
        };
    }

    /** {@code field op value} as a condition on the same values, or null. */
    private static Expr condition(FieldExpr field, BinaryOp op, Value value) {
        Op qlOp = op(op);
        if (qlOp == null) {
            return null;
        }
        try {
            if (field instanceof FieldExpr.Attribute a) {
                Attribute.Scope scope = switch (a.scope()) {
                    case NONE -> Attribute.Scope.UNSCOPED;
                    case SPAN -> Attribute.Scope.RECORD;
                    case RESOURCE -> Attribute.Scope.RESOURCE;
                    case INSTRUMENTATION -> Attribute.Scope.SCOPE;
                    case EVENT, LINK -> null;
                };
                Literal literal = attributeLiteral(qlOp, value);
                return scope == null || literal == null ? null
                        : new Expr.Condition(new Attribute(Signal.SPANS, scope, a.name()), qlOp, literal);
            }
            if (field instanceof FieldExpr.IntrinsicField i) {
                Literal literal = intrinsicLiteral(i.intrinsic(), qlOp, value);
                return literal == null ? null : new Expr.Condition(
                        new Attribute(Signal.SPANS, Attribute.Scope.INTRINSIC, i.intrinsic().text()), qlOp, literal);
            }
        } catch (IllegalArgumentException e) {
            // a comparison the index form cannot state (such as an invalid regex): no knowledge
        }
        return null;
    }

    private static Op op(BinaryOp op) {
        return switch (op) {
            case EQ -> Op.EQ;
            case NE -> Op.NE;
            case LT -> Op.LT;
            case LE -> Op.LE;
            case GT -> Op.GT;
            case GE -> Op.GE;
            case MATCH -> Op.MATCH;
            case NOT_MATCH -> Op.NOT_MATCH;
            default -> null;
        };
    }

    /** The literal an attribute is compared with, where needle's matching agrees with Tempo's. */
    private static Literal attributeLiteral(Op op, Value v) {
        if (v instanceof Value.Str s) {
            return op.isRegex() ? new Literal.Regex(s.value()) : new Literal.StringLit(s.value());
        }
        if (op.isRegex() || op == Op.NE) {
            return null;
        }
        if (v instanceof Value.Int i) {
            return new Literal.IntLit(i.value());
        } else if (v instanceof Value.Duration d) {
            return new Literal.IntLit(d.nanos());
        } else if (v instanceof Value.Float f && Double.isFinite(f.value())) {
            return new Literal.DoubleLit(f.value());
        } else if (v instanceof Value.Bool b && !op.isOrdering()) {
            return new Literal.BoolLit(b.value());
        }
        return null;
    }

    /** The literal an indexed intrinsic is compared with: names as strings, status and kind by code, durations in nanoseconds. */
    private static Literal intrinsicLiteral(FieldExpr.Intrinsic f, Op op, Value v) {
        return switch (f) {
            case NAME, STATUS_MESSAGE -> v instanceof Value.Str s
                    ? op.isRegex() ? new Literal.Regex(s.value()) : new Literal.StringLit(s.value()) : null;
            case STATUS -> v instanceof Value.Status s && (op == Op.EQ || op == Op.NE)
                    ? new Literal.IntLit(s.code().ordinal()) : null;
            case KIND -> v instanceof Value.Kind k && (op == Op.EQ || op == Op.NE)
                    ? new Literal.IntLit(k.kind().ordinal()) : null;
            case DURATION -> op.isRegex() ? null : v instanceof Value.Duration d ? new Literal.IntLit(d.nanos())
                    : v instanceof Value.Int i ? new Literal.IntLit(i.value()) : null;
            default -> null;
        };
    }
}
