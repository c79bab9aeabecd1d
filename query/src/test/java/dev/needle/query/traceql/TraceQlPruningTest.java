package dev.needle.query.traceql;

import static dev.needle.query.traceql.Traces.span;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TraceQlPruningTest {

    @Test
    void namesWhatEveryMatchingTraceHolds() throws QueryParseException {
        assertEquals("[{ span.a = 1 }, { name = \"b\" }]", required("{ span.a = 1 } >> { name = \"b\" }"));
        assertEquals("[{ name = \"b\" }]", required("{ span.a = 1 } !>> { name = \"b\" }"));
        assertEquals("[{ span.a = 1 || name = \"b\" }]", required("{ span.a = 1 } || { name = \"b\" }"));
        assertEquals("[{ resource.s = \"api\" && status = error }]", required("{ resource.s = \"api\" && status = error && .x + 1 = 2 }"));
        assertEquals("[]", required("{ resource.s = \"api\" || .x + 1 = 2 }"));
        assertEquals("[{ duration > 1s }]", required("{ 1s < duration }"));
        assertEquals("[]", required("{ span.a != 1 }"));
        assertEquals("[{ span.a != \"x\" }]", required("{ span.a != \"x\" }"));
        assertEquals("[{ span.a = 1 }, { kind = server }]", required("{ span.a = 1 } | by(name) | count() > 1 | { kind = server }"));
        assertEquals("[{ name = \"a\" || name = \"b\" }]",
                required("({ name = \"a\" } | rate()) + ({ name = \"b\" } | rate())"));
        assertEquals("[]", required("{ } | rate()"));
        assertEquals("[]", required("{ !(span.a = 1) }"));
    }

    @Test
    void namesWhatEveryReturnedSpanSatisfies() throws QueryParseException {
        assertEquals("[{ name = \"b\" }]", returned("{ span.a = 1 } >> { name = \"b\" }"));
        assertEquals("[{ name = \"b\" }]", returned("{ span.a = 1 } !~ { name = \"b\" }"));
        assertEquals("[{ span.a = 1 || name = \"b\" }]", returned("{ span.a = 1 } &> { name = \"b\" }"));
        assertEquals("[{ span.a = 1 || name = \"b\" }]", returned("{ span.a = 1 } && { name = \"b\" }"));
        assertEquals("[]", returned("{ span.a = 1 } || { }"));
        assertEquals("[{ name = \"b\" }, { kind = server }]",
                returned("({ span.a = 1 } > { name = \"b\" }) | count() > 1 | { kind = server }"));
        assertEquals("[{ resource.s = \"api\" && status = error }]",
                returned("{ resource.s = \"api\" && status = error } | select(span.a)"));
    }

    /** Random traces and span queries: every span of every spanset the evaluator finds satisfies every returned condition. */
    @Test
    void everyReturnedSpanSatisfiesWhatIsNamed() throws QueryParseException {
        Random random = new Random(20261204);
        int spans = 0;
        for (int round = 0; round < 3000; round++) {
            String query = query(random);
            if (!(TraceQlParser.parse(query) instanceof Query.Spans q)) {
                continue;
            }
            List<Expr> returned = TraceQlPruning.returned(q);
            List<SpanRecord> trace = trace(random);
            List<Spanset> found;
            try {
                found = TraceEvaluator.evaluate(q.expr(), trace);
            } catch (EvaluationException e) {
                continue;
            }
            for (Spanset set : found) {
                for (Spanset.Member m : set.spans()) {
                    spans++;
                    assertTrue(returned.stream().allMatch(e -> holds(e, m.span())),
                            () -> query + " returns " + m.span() + " but names " + returned);
                }
            }
        }
        assertTrue(spans > 1000, "spans returned " + spans);
    }

    /** Random traces and queries: a trace the evaluator matches holds a span for every required condition. */
    @Test
    void neverRulesOutATraceTheEvaluatorMatches() throws QueryParseException {
        Random random = new Random(20261203);
        int matched = 0;
        int pruned = 0;
        for (int round = 0; round < 3000; round++) {
            String query = query(random);
            Query q = TraceQlParser.parse(query);
            List<Expr> required = TraceQlPruning.required(q);
            List<SpanRecord> trace = trace(random);
            boolean matches;
            try {
                SpansetExpr spans = q instanceof Query.Spans s ? s.expr() : ((MetricsExpr.Pipeline) ((Query.Metrics) q).expr()).spans();
                matches = !TraceEvaluator.evaluate(spans, trace).isEmpty();
            } catch (EvaluationException e) {
                continue;
            }
            boolean held = required.stream().allMatch(e -> trace.stream().anyMatch(s -> holds(e, s)));
            if (matches) {
                matched++;
                assertTrue(held, () -> query + " matches " + trace + " but requires " + required);
            } else if (!held) {
                pruned++;
            }
        }
        // the test says something only when both cases happen often
        assertTrue(matched > 300, "matched " + matched);
        assertTrue(pruned > 300, "pruned " + pruned);
    }

    private static final String[] ATOMS = {"span.a = 1", "span.a > 1", "span.a >= 1.5", "span.a != 2", "span.a < 2",
        ".a = \"x\"", ".a =~ \"x|y\"", ".a !~ \"x\"", "span.a != \"y\"", "resource.s = \"api\"", ".s = \"db\"",
        "name = \"n1\"", "name > \"n1\"", "status = error", "status != ok", "kind = server", "duration > 2ns",
        "duration <= 2ns", "span.b = true", "span.b != false", "span.a = nil", "span.a != nil", "!(span.a = 1)",
        "span.a + 1 = 2", "1 < span.a", "2ns >= duration", "instrumentation.i = 1", "span.a = 1.0", "true"};
    private static final String[] OPS = {"&&", "||", ">", "<", ">>", "<<", "~", "!>", "!<", "!>>", "!<<", "!~",
        "&>", "&<", "&>>", "&<<", "&~"};

    private static String condition(Random r) {
        String a = ATOMS[r.nextInt(ATOMS.length)];
        return switch (r.nextInt(4)) {
            case 0 -> a + " && " + ATOMS[r.nextInt(ATOMS.length)];
            case 1 -> a + " || " + ATOMS[r.nextInt(ATOMS.length)];
            default -> a;
        };
    }

    private static String filter(Random r) {
        return "{ " + condition(r) + " }";
    }

    private static String query(Random r) {
        String f = filter(r);
        return switch (r.nextInt(8)) {
            case 0, 1 -> f;
            case 2, 3 -> f + " " + OPS[r.nextInt(OPS.length)] + " " + filter(r);
            case 4 -> "(" + f + " " + OPS[r.nextInt(OPS.length)] + " " + filter(r) + ") " + OPS[r.nextInt(OPS.length)]
                    + " " + filter(r);
            case 5 -> f + " | " + filter(r);
            case 6 -> f + " | count() > 1";
            default -> f + " | rate() by (name)";
        };
    }

    private static final Object[] A_VALUES = {1, 2, 1.5, Double.NaN, "x", "y", true, null};

    private static List<SpanRecord> trace(Random r) {
        int n = 1 + r.nextInt(5);
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            Traces.Span s = span(i).parent(i == 1 ? 0 : r.nextInt(i)).name("n" + r.nextInt(3))
                    .service(r.nextBoolean() ? "api" : "db").kind(r.nextInt(6)).status(r.nextInt(3))
                    .time(10, 10 + 1 + r.nextInt(4));
            Object a = A_VALUES[r.nextInt(A_VALUES.length)];
            if (a != null) {
                s.attr("a", a);
            }
            if (r.nextBoolean()) {
                s.attr("b", r.nextBoolean());
            }
            spans.add(s.build());
        }
        return spans;
    }

    /** Whether a span satisfies an Expr as the engine judges records: a condition on any of its values. */
    private static boolean holds(Expr e, SpanRecord s) {
        if (e instanceof Expr.And a) {
            return a.terms().stream().allMatch(t -> holds(t, s));
        } else if (e instanceof Expr.Or o) {
            return o.terms().stream().anyMatch(t -> holds(t, s));
        } else if (e instanceof Expr.MatchAll) {
            return true;
        }
        Expr.Condition c = (Expr.Condition) e;
        Attribute at = c.attribute();
        List<AnyValue> values = new ArrayList<>();
        switch (at.scope()) {
            case RECORD -> values.add(first(s.attributes(), at.key()));
            case RESOURCE -> values.add(first(s.resource().attributes(), at.key()));
            case SCOPE -> values.add(first(s.scope().attributes(), at.key()));
            case UNSCOPED -> {
                values.add(first(s.attributes(), at.key()));
                values.add(first(s.resource().attributes(), at.key()));
                values.add(first(s.scope().attributes(), at.key()));
            }
            case INTRINSIC -> values.add(at.intrinsic().value(s));
            default -> throw new AssertionError("pruning names no " + at.scope());
        }
        return values.stream().anyMatch(c::matches);
    }

    private static AnyValue first(List<KeyValue> attributes, String key) {
        return attributes.stream().filter(kv -> kv.key().equals(key)).map(KeyValue::value).findFirst().orElse(null);
    }

    private static String returned(String query) throws QueryParseException {
        return TraceQlPruning.returned((Query.Spans) TraceQlParser.parse(query)).toString();
    }

    private static String required(String query) throws QueryParseException {
        return TraceQlPruning.required(TraceQlParser.parse(query)).toString();
    }
}
