package dev.needle.query.traceql;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.traceql.FieldExpr.BinaryOp;
import dev.needle.query.traceql.SpansetExpr.SpansetOp;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs a span query on the spans of one trace, as Tempo's engine does.
 *
 * <ul>
 *   <li>The input is one spanset of every span. A filter keeps the spans for which its condition is
 *       the bool true; a condition that reads {@code event.}/{@code event:} (or {@code link.}/{@code link:})
 *       fields holds when it holds for one of the span's events (links).</li>
 *   <li>{@code &&} keeps the spans of both sides when both found some; {@code ||} when either did.</li>
 *   <li>A structural operator returns right-hand spans so related to a left-hand span ({@code >}
 *       child, {@code <} parent, {@code >>} descendant, {@code <<} ancestor, {@code ~} sibling); its
 *       {@code !} form those without the relation (all right-hand spans when the left found none); its
 *       {@code &} form the spans of both sides that are in the relation.</li>
 *   <li>A scalar filter keeps the spansets whose aggregate compares so; {@code by()} splits spansets by
 *       a field's value, {@code coalesce()} joins them; {@code select()} returns fields with the spans.</li>
 * </ul>
 */
public final class TraceEvaluator {

    /** An internal spanset: span indexes in trace order, and recorded attributes. */
    private record Found(List<Integer> spans, Map<String, Value> attributes) {
    }

    private final TraceView trace;
    private final Set<FieldExpr> selected = new LinkedHashSet<>();

    private TraceEvaluator(TraceView trace) {
        this.trace = trace;
    }

    /**
     * The spansets {@code expr} finds among {@code spans}, the spans of one trace; none when the
     * trace does not match.
     *
     * @throws EvaluationException when the query cannot be run on this trace, as Tempo refuses it
     */
    public static List<Spanset> evaluate(SpansetExpr expr, List<SpanRecord> spans) {
        TraceEvaluator e = new TraceEvaluator(new TraceView(spans));
        List<Spanset> out = new ArrayList<>();
        for (Found s : e.run(expr)) {
            List<Spanset.Member> members = new ArrayList<>();
            for (int i : s.spans()) {
                members.add(new Spanset.Member(e.trace.spans.get(i), e.selection(i)));
            }
            out.add(new Spanset(members, s.attributes()));
        }
        return out;
    }

    /** The indexes of the spans of {@code trace} in any spanset {@code expr} finds. */
    static BitSet spansFound(SpansetExpr expr, TraceView trace) {
        BitSet out = new BitSet();
        new TraceEvaluator(trace).run(expr).forEach(s -> s.spans().forEach(out::set));
        return out;
    }

    private List<Found> run(SpansetExpr expr) {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < trace.size(); i++) {
            all.add(i);
        }
        return eval(expr, List.of(new Found(all, Map.of())));
    }

    /** Whether span {@code i} of the trace satisfies a filter's condition. */
    static boolean matches(FieldExpr condition, TraceView trace, int i) {
        boolean events = reads(condition, FieldExpr.AttributeScope.EVENT);
        boolean links = reads(condition, FieldExpr.AttributeScope.LINK);
        int ne = events ? trace.spans.get(i).events().size() : 0;
        int nl = links ? trace.spans.get(i).links().size() : 0;
        for (int e = ne == 0 ? -1 : 0; e < ne; e++) {
            for (int l = nl == 0 ? -1 : 0; l < nl; l++) {
                if (Operators.isTrue(value(condition, trace, i, e, l))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The value of {@code e} on span {@code i}, reading event {@code ev} and link {@code link}. */
    static Value value(FieldExpr e, TraceView trace, int i, int ev, int link) {
        if (e instanceof FieldExpr.Literal l) {
            return l.value();
        } else if (e instanceof FieldExpr.Unary u) {
            Value v = value(u.operand(), trace, i, ev, link);
            return switch (u.op()) {
                case NEGATE -> Operators.negate(v);
                case NOT -> v instanceof Value.Bool b ? new Value.Bool(!b.value()) : Value.NIL;
                case EXISTS -> new Value.Bool(!(v instanceof Value.Nil));
                case NOT_EXISTS -> new Value.Bool(v instanceof Value.Nil);
            };
        } else if (e instanceof FieldExpr.Binary b) {
            Value l = value(b.lhs(), trace, i, ev, link);
            if (l instanceof Value.Bool lb && (b.op() == BinaryOp.AND && !lb.value() || b.op() == BinaryOp.OR && lb.value())) {
                return l;
            }
            return Operators.binary(b.op(), l, value(b.rhs(), trace, i, ev, link));
        }
        return trace.value(e, i, ev, link);
    }

    /** Whether {@code e} reads fields of events ({@code EVENT}) or links ({@code LINK}). */
    private static boolean reads(FieldExpr e, FieldExpr.AttributeScope scope) {
        if (e instanceof FieldExpr.Attribute a) {
            return a.scope() == scope;
        } else if (e instanceof FieldExpr.IntrinsicField f) {
            return f.intrinsic().text().startsWith(scope == FieldExpr.AttributeScope.EVENT ? "event:" : "link:");
        } else if (e instanceof FieldExpr.Unary u) {
            return reads(u.operand(), scope);
        } else if (e instanceof FieldExpr.Binary b) {
            return reads(b.lhs(), scope) || reads(b.rhs(), scope);
        }
        return false;
    }

    private List<Found> eval(Stage stage, List<Found> input) {
        if (stage instanceof SpansetExpr.Filter f) {
            List<Found> out = new ArrayList<>();
            for (Found s : input) {
                List<Integer> kept = new ArrayList<>();
                for (int i : s.spans()) {
                    if (matches(f.condition(), trace, i)) {
                        kept.add(i);
                    }
                }
                if (!kept.isEmpty()) {
                    out.add(new Found(kept, s.attributes()));
                }
            }
            return out;
        } else if (stage instanceof SpansetExpr.Operation o) {
            return operation(o, input);
        } else if (stage instanceof SpansetExpr.Pipeline p) {
            List<Found> sets = input;
            for (Stage s : p.stages()) {
                sets = eval(s, sets);
            }
            return sets;
        } else if (stage instanceof Stage.ScalarFilter f) {
            return scalarFilter(f, input);
        } else if (stage instanceof Stage.GroupBy g) {
            return groupBy(g, input);
        } else if (stage instanceof Stage.Coalesce) {
            List<Integer> all = new ArrayList<>();
            input.forEach(s -> all.addAll(s.spans()));
            return input.isEmpty() ? List.of() : List.of(new Found(inTraceOrder(all), Map.of()));
        }
        selected.addAll(((Stage.Select) stage).fields());
        return input;
    }

    private List<Found> operation(SpansetExpr.Operation o, List<Found> input) {
        List<Found> out = new ArrayList<>();
        for (Found s : input) {
            List<Found> lhs = eval(o.lhs(), List.of(s));
            List<Found> rhs = eval(o.rhs(), List.of(s));
            List<Integer> matching;
            if (o.op() == SpansetOp.AND || o.op() == SpansetOp.UNION) {
                boolean keep = o.op() == SpansetOp.AND ? !lhs.isEmpty() && !rhs.isEmpty() : !lhs.isEmpty() || !rhs.isEmpty();
                List<Integer> both = new ArrayList<>();
                lhs.forEach(x -> both.addAll(x.spans()));
                rhs.forEach(x -> both.addAll(x.spans()));
                matching = keep ? inTraceOrder(both) : List.of();
            } else {
                if (rhs.isEmpty()) {
                    continue;
                }
                if (lhs.size() > 1 || rhs.size() > 1) {
                    throw new EvaluationException("spanset operators are not supported for multiple spansets per trace;"
                            + " consider using coalesce()");
                }
                matching = structural(o.op(), lhs.isEmpty() ? List.of() : lhs.get(0).spans(), rhs.get(0).spans());
            }
            if (!matching.isEmpty()) {
                out.add(new Found(matching, s.attributes()));
            }
        }
        return out;
    }

    /**
     * Tempo's structural operators over the left- and right-hand spans: a negation keeps the
     * right-hand spans without the relation, a union both sides' related spans.
     */
    private List<Integer> structural(SpansetOp op, List<Integer> l, List<Integer> r) {
        BitSet out = switch (op) {
            case UNION_CHILD -> union(related(SpansetOp.CHILD, l, r), related(SpansetOp.PARENT, r, l));
            case UNION_PARENT -> union(related(SpansetOp.PARENT, l, r), related(SpansetOp.CHILD, r, l));
            case UNION_DESCENDANT -> union(related(SpansetOp.DESCENDANT, l, r), related(SpansetOp.ANCESTOR, r, l));
            case UNION_ANCESTOR -> union(related(SpansetOp.ANCESTOR, l, r), related(SpansetOp.DESCENDANT, r, l));
            case UNION_SIBLING -> union(related(SpansetOp.SIBLING, l, r), related(SpansetOp.SIBLING, r, l));
            case NOT_CHILD -> without(r, related(SpansetOp.CHILD, l, r));
            case NOT_PARENT -> without(r, related(SpansetOp.PARENT, l, r));
            case NOT_DESCENDANT -> without(r, related(SpansetOp.DESCENDANT, l, r));
            case NOT_ANCESTOR -> without(r, related(SpansetOp.ANCESTOR, l, r));
            case NOT_SIBLING -> without(r, related(SpansetOp.SIBLING, l, r));
            default -> related(op, l, r);
        };
        return out.stream().boxed().toList();
    }

    /**
     * The right-hand spans that are children, parents, descendants, ancestors or siblings of a
     * left-hand span; each found by marks and parent walks, never by comparing every pair.
     */
    private BitSet related(SpansetOp op, List<Integer> l, List<Integer> r) {
        BitSet left = new BitSet();
        l.forEach(left::set);
        BitSet marks = new BitSet();
        BitSet out = new BitSet();
        switch (op) {
            case CHILD -> r.stream().filter(b -> trace.parent[b] >= 0 && left.get(trace.parent[b])).forEach(out::set);
            case PARENT -> {
                l.stream().filter(a -> trace.parent[a] >= 0).forEach(a -> marks.set(trace.parent[a]));
                r.stream().filter(marks::get).forEach(out::set);
            }
            case DESCENDANT -> r.stream().filter(b -> hasAncestorIn(b, left)).forEach(out::set);
            case ANCESTOR -> {
                for (int a : l) {
                    for (int p = trace.parent[a]; p >= 0 && !marks.get(p); p = trace.parent[p]) {
                        marks.set(p);
                    }
                }
                r.stream().filter(marks::get).forEach(out::set);
            }
            case SIBLING -> {
                Map<Bytes, Integer> leftByParent = new HashMap<>();
                l.forEach(a -> leftByParent.merge(trace.spans.get(a).parentSpanId(), 1, Integer::sum));
                for (int b : r) {
                    int others = leftByParent.getOrDefault(trace.spans.get(b).parentSpanId(), 0) - (left.get(b) ? 1 : 0);
                    if (others > 0) {
                        out.set(b);
                    }
                }
            }
            default -> throw new IllegalArgumentException(op + " is no plain structural relation");
        }
        return out;
    }

    /** Whether an ancestor of span {@code d} is in {@code set}; a walk of at most the trace's size, so a cycle of ids ends. */
    private boolean hasAncestorIn(int d, BitSet set) {
        int steps = 0;
        for (int p = trace.parent[d]; p >= 0 && steps < trace.size(); p = trace.parent[p], steps++) {
            if (set.get(p)) {
                return true;
            }
        }
        return false;
    }

    private static BitSet union(BitSet a, BitSet b) {
        a.or(b);
        return a;
    }

    private static BitSet without(List<Integer> spans, BitSet related) {
        BitSet out = new BitSet();
        spans.stream().filter(i -> !related.get(i)).forEach(out::set);
        return out;
    }

    private List<Found> scalarFilter(Stage.ScalarFilter f, List<Found> input) {
        List<Found> out = new ArrayList<>();
        for (Found s : input) {
            Value v = aggregate(f.aggregate(), s.spans());
            if (v != null && Operators.isTrue(Operators.binary(f.op(), v, f.value()))) {
                Map<String, Value> attributes = new LinkedHashMap<>(s.attributes());
                attributes.put(f.aggregate().toString(), v);
                out.add(new Found(s.spans(), attributes));
            }
        }
        return out;
    }

    /**
     * An aggregate over a spanset; null when no span has a number for it. Sums and averages of
     * durations are durations, of ints a sum is an int and an average a float; others are floats.
     */
    private Value aggregate(Stage.Aggregate a, List<Integer> spans) {
        if (a.op() == Stage.AggregateOp.COUNT) {
            return new Value.Int(spans.size());
        }
        Value acc = null;
        int n = 0;
        for (int i : spans) {
            Value v = value(a.field(), trace, i, -1, -1);
            if (!v.isNumeric()) {
                continue;
            }
            n++;
            if (acc == null) {
                acc = v;
                continue;
            }
            acc = switch (a.op()) {
                case MAX -> v.asDouble() > acc.asDouble() ? v : acc;
                case MIN -> v.asDouble() < acc.asDouble() ? v : acc;
                default -> sum(acc, v);
            };
        }
        if (acc == null || a.op() != Stage.AggregateOp.AVG) {
            return acc;
        }
        return acc instanceof Value.Duration d ? new Value.Duration(d.nanos() / n) : new Value.Float(acc.asDouble() / n);
    }

    private static Value sum(Value a, Value b) {
        if (a instanceof Value.Int x && b instanceof Value.Int y) {
            return new Value.Int(x.value() + y.value());
        }
        if (a instanceof Value.Duration x && b instanceof Value.Duration y) {
            return new Value.Duration(x.nanos() + y.nanos());
        }
        return new Value.Float(a.asDouble() + b.asDouble());
    }

    private List<Found> groupBy(Stage.GroupBy g, List<Found> input) {
        List<Found> out = new ArrayList<>();
        for (Found s : input) {
            Map<Value, List<Integer>> groups = new LinkedHashMap<>();
            for (int i : s.spans()) {
                groups.computeIfAbsent(value(g.field(), trace, i, -1, -1), k -> new ArrayList<>()).add(i);
            }
            groups.forEach((v, spans) -> {
                Map<String, Value> attributes = new LinkedHashMap<>(s.attributes());
                attributes.put(g.toString(), v);
                out.add(new Found(spans, attributes));
            });
        }
        return out;
    }

    private Map<String, Value> selection(int i) {
        Map<String, Value> out = new LinkedHashMap<>();
        for (FieldExpr f : selected) {
            Value v = value(f, trace, i, -1, -1);
            if (!(v instanceof Value.Nil)) {
                out.put(f.toString(), v);
            }
        }
        return out;
    }

    private static List<Integer> inTraceOrder(List<Integer> spans) {
        BitSet set = new BitSet();
        spans.forEach(set::set);
        return set.stream().boxed().toList();
    }
}
