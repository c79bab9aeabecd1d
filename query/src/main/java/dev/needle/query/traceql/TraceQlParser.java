package dev.needle.query.traceql;

import dev.needle.query.ql.QueryParseException;
import dev.needle.query.traceql.FieldExpr.BinaryOp;
import dev.needle.query.traceql.Lexer.Kind;
import dev.needle.query.traceql.Lexer.Token;
import dev.needle.query.traceql.MetricsExpr.SecondStage;
import dev.needle.query.traceql.SpansetExpr.SpansetOp;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses TraceQL as Tempo's grammar ({@code pkg/traceql/expr.y}) defines it, into a {@link Query}.
 *
 * <p>Outside braces, operators bind from loosest to tightest: {@code |}; {@code && ||}; comparisons
 * and structural operators; {@code + -}; {@code * / %}; {@code ^}. What an operator means depends on
 * its operands: {@code >} between spanset expressions is "child of", between an aggregate and a
 * number a scalar filter, after a metrics function a metrics filter. Inside braces the same
 * precedence holds for field expressions, with unary {@code -} and {@code !} binding tighter than
 * {@code + -} and looser than {@code * /}.
 *
 * <p>Beyond Tempo, a number may stand left of an aggregate ({@code 1 < count()}, read as
 * {@code count() > 1}) and a wrapped scalar pipeline may be filtered ({@code (by(.a) | count()) > 2},
 * read as {@code by(.a) | count() > 2}). Arithmetic on aggregates and {@code parent.} attributes,
 * which Tempo parses but does not run, are refused here.
 */
public final class TraceQlParser {

    /** What a part of the query is, before it is known where it stands. */
    private sealed interface Term {
    }

    /** A spanset expression or pipeline. */
    private record Spans(SpansetExpr expr) implements Term {
    }

    /**
     * A number or duration, folded; {@code bare} when written as one literal, not computed;
     * {@code ofDuration} when a duration went into it.
     */
    private record Const(Value value, boolean bare, boolean ofDuration) implements Term {
    }

    /** An aggregate such as {@code count()}, awaiting its comparison. */
    private record Agg(Stage.Aggregate aggregate) implements Term {
    }

    /** {@code pipeline | aggregate}, awaiting its comparison. */
    private record PipeAgg(List<Stage> stages, Stage.Aggregate aggregate) implements Term {
    }

    /** A stage that is no spanset expression: a scalar filter, by(), coalesce(), select(). */
    private record StageTerm(Stage stage) implements Term {
    }

    /** A metrics function with its by() and second stages, awaiting the pipeline before it. */
    private record Fn(MetricsExpr.Function function, List<FieldExpr> by, List<SecondStage> stages) implements Term {
    }

    /** {@code topk(n)}/{@code bottomk(n)} with any filters after it, awaiting a metrics expression. */
    private record Second(List<SecondStage> stages) implements Term {
    }

    /** A whole metrics expression. */
    private record Metrics(MetricsExpr expr) implements Term {
    }

    /**
     * The most tokens a query may have: room for some 1,500 alternatives in one filter, and a
     * bound on the depth of the trees that printing, checking and evaluating walk recursively.
     */
    static final int MAX_TOKENS = 8192;
    /** The deepest nesting of parentheses, braces and unary operators. */
    static final int MAX_NESTING = 200;

    private final List<Token> tokens;
    private int at;
    private int nesting;

    private TraceQlParser(List<Token> tokens) {
        this.tokens = tokens;
    }

    /**
     * Parses a query; the exception names the position and what was wrong there.
     *
     * @throws QueryParseException when the text is no TraceQL query this package can run
     */
    public static Query parse(String text) throws QueryParseException {
        List<Token> tokens = Lexer.tokens(text);
        if (tokens.size() > MAX_TOKENS) {
            throw new QueryParseException(tokens.get(MAX_TOKENS).position(),
                    "the query has more than " + MAX_TOKENS + " tokens");
        }
        return new TraceQlParser(tokens).root();
    }

    private Query root() throws QueryParseException {
        int start = peek().position();
        Term t = chain();
        Map<String, Value> hints = Map.of();
        if (peek().is("with")) {
            hints = hints();
        }
        if (peek().kind() != Kind.EOF) {
            throw error(peek(), "unexpected " + peek() + (peek().kind() == Kind.INT || peek().kind() == Kind.FLOAT
                    ? ": a number needs an operator before it" : ""));
        }
        if (t instanceof Spans s) {
            return new Query.Spans(s.expr(), hints);
        } else if (t instanceof StageTerm st) {
            return new Query.Spans(pipeline(List.of(), st, start), hints);
        } else if (t instanceof Metrics m) {
            return new Query.Metrics(m.expr(), hints);
        }
        throw new QueryParseException(start, incomplete(t));
    }

    /** Why a term cannot be a whole query. */
    private static String incomplete(Term t) {
        if (t instanceof Agg || t instanceof PipeAgg) {
            return "an aggregate must be compared, as in count() > 1";
        } else if (t instanceof Fn) {
            return "a metrics function follows a span query, as in { } | rate()";
        } else if (t instanceof Second) {
            return "topk() and bottomk() follow a metrics function, as in { } | rate() | topk(5)";
        }
        return "a query starts with a spanset filter such as { status = error }, not a number";
    }

    /** {@code term (| term)*}. */
    private Term chain() throws QueryParseException {
        Term left = binary(1);
        while (peek().is("|")) {
            Token pipe = next();
            Term right = binary(1);
            left = pipe(left, right, pipe);
        }
        return left;
    }

    private Term pipe(Term left, Term right, Token at) throws QueryParseException {
        if (left instanceof Metrics m && right instanceof Second s) {
            return new Metrics(withStages(m.expr(), s.stages(), at));
        }
        if (right instanceof Second) {
            throw error(at, "topk() and bottomk() follow a metrics function, as in { } | rate() | topk(5)");
        }
        List<Stage> stages = stagesOf(left, at);
        if (right instanceof Fn f) {
            SpansetExpr source = stages.size() == 1 && stages.get(0) instanceof SpansetExpr e ? e
                    : new SpansetExpr.Pipeline(stages);
            return new Metrics(new MetricsExpr.Pipeline(source, f.function(), f.by(), f.stages()));
        }
        if (right instanceof Agg a) {
            return new PipeAgg(stages, a.aggregate());
        }
        if (right instanceof Spans s) {
            List<Stage> all = new ArrayList<>(stages);
            all.addAll(s.expr() instanceof SpansetExpr.Pipeline p ? p.stages() : List.of(s.expr()));
            return new Spans(new SpansetExpr.Pipeline(all));
        }
        if (right instanceof StageTerm st) {
            return new Spans(pipeline(stages, st, at.position()));
        }
        throw error(at, "a pipeline stage is a spanset filter, a scalar filter, by(), coalesce(), select() or a metrics function");
    }

    /** The stages a term gives as the start of a pipeline. */
    private List<Stage> stagesOf(Term t, Token at) throws QueryParseException {
        if (t instanceof Spans s) {
            return s.expr() instanceof SpansetExpr.Pipeline p ? p.stages() : List.of(s.expr());
        }
        if (t instanceof StageTerm st) {
            if (st.stage() instanceof Stage.Coalesce) {
                throw error(at, "a pipeline cannot start with coalesce()");
            }
            return List.of(st.stage());
        }
        if (t instanceof Metrics) {
            throw error(at, "after a metrics function only topk(), bottomk() and comparisons may follow");
        }
        throw error(at, incomplete(t));
    }

    private static SpansetExpr.Pipeline pipeline(List<Stage> before, StageTerm st, int position) throws QueryParseException {
        if (before.isEmpty() && st.stage() instanceof Stage.Coalesce) {
            throw new QueryParseException(position, "a pipeline cannot start with coalesce()");
        }
        List<Stage> all = new ArrayList<>(before);
        all.add(st.stage());
        return new SpansetExpr.Pipeline(all);
    }

    /** The binding strength of the operator at the cursor outside braces, or 0 when there is none. */
    private int precedence(Token t) {
        if (t.kind() != Kind.SYMBOL) {
            return 0;
        }
        return switch (t.text()) {
            case "&&", "||" -> 1;
            case "=", "!=", "<", "<=", ">", ">=", "=~", "!~", ">>", "<<", "~", "!>", "!<", "!>>", "!<<",
                    "&>", "&<", "&>>", "&<<", "&~" -> 2;
            case "+", "-" -> 3;
            case "*", "/", "%" -> 5;
            case "^" -> 6;
            default -> 0;
        };
    }

    private Term binary(int min) throws QueryParseException {
        Term left = unary();
        while (true) {
            Token op = peek();
            int prec = precedence(op);
            if (prec == 0 || prec < min) {
                return left;
            }
            next();
            Term right = binary(op.is("^") ? prec : prec + 1);
            left = combine(op, left, right);
        }
    }

    private Term combine(Token op, Term l, Term r) throws QueryParseException {
        String s = op.text();
        if (l instanceof Spans a && r instanceof Spans b) {
            SpansetOp sop = s.equals("&&") ? SpansetOp.AND : s.equals("||") ? SpansetOp.UNION : SpansetOp.ofSymbol(s);
            if (sop == null) {
                throw error(op, s + " does not join spanset expressions; they are joined by && || > < >> << ~ and their !, & forms");
            }
            return new Spans(new SpansetExpr.Operation(sop, a.expr(), b.expr()));
        }
        int prec = precedence(op);
        if (prec == 1) {
            throw error(op, s + " joins spanset expressions, as in { .a = 1 } " + s + " { .b = 2 }");
        }
        if (prec == 2) {
            return compare(op, l, r);
        }
        return arithmetic(op, l, r);
    }

    private Term compare(Token op, Term l, Term r) throws QueryParseException {
        BinaryOp cmp = comparison(op);
        if (cmp == null) {
            throw error(op, op.text() + " applies inside { } or between spanset expressions; results compare with = != < <= > >=");
        }
        if (l instanceof Const c && (r instanceof Agg || r instanceof PipeAgg)) {
            return compare(op, flip(cmp), r, c);
        }
        return compare(op, cmp, l, r);
    }

    private Term compare(Token op, BinaryOp cmp, Term l, Term r) throws QueryParseException {
        if (!(r instanceof Const c)) {
            throw error(op, op.text() + " compares an aggregate or a metrics result with a number");
        }
        if (l instanceof Agg a) {
            return new StageTerm(scalarFilter(op, a.aggregate(), cmp, c.value()));
        }
        if (l instanceof PipeAgg p) {
            List<Stage> all = new ArrayList<>(p.stages());
            all.add(scalarFilter(op, p.aggregate(), cmp, c.value()));
            return new Spans(new SpansetExpr.Pipeline(all));
        }
        SecondStage filter = new SecondStage.Filter(cmp, metricsNumber(op, c, true));
        if (l instanceof Fn f) {
            requireNoCompare(op, f.function());
            return new Fn(f.function(), f.by(), append(f.stages(), filter));
        }
        if (l instanceof Second s) {
            return new Second(append(s.stages(), filter));
        }
        if (l instanceof Metrics m) {
            return new Metrics(withStages(m.expr(), List.of(filter), op));
        }
        throw error(op, op.text() + " compares an aggregate or a metrics result with a number");
    }

    private Stage.ScalarFilter scalarFilter(Token op, Stage.Aggregate a, BinaryOp cmp, Value v) throws QueryParseException {
        if (!v.isNumeric()) {
            throw error(op, a + " is compared with a number or a duration");
        }
        return new Stage.ScalarFilter(a, cmp, v);
    }

    private static BinaryOp comparison(Token op) {
        return switch (op.text()) {
            case "=" -> BinaryOp.EQ;
            case "!=" -> BinaryOp.NE;
            case "<" -> BinaryOp.LT;
            case "<=" -> BinaryOp.LE;
            case ">" -> BinaryOp.GT;
            case ">=" -> BinaryOp.GE;
            default -> null;
        };
    }

    private static BinaryOp flip(BinaryOp op) {
        return switch (op) {
            case LT -> BinaryOp.GT;
            case LE -> BinaryOp.GE;
            case GT -> BinaryOp.LT;
            case GE -> BinaryOp.LE;
            default -> op;
        };
    }

    private Term arithmetic(Token op, Term l, Term r) throws QueryParseException {
        BinaryOp arith = switch (op.text()) {
            case "+" -> BinaryOp.ADD;
            case "-" -> BinaryOp.SUB;
            case "*" -> BinaryOp.MUL;
            case "/" -> BinaryOp.DIV;
            case "%" -> BinaryOp.MOD;
            default -> BinaryOp.POW;
        };
        if (l instanceof Const a && r instanceof Const b) {
            Value v = Operators.binary(arith, a.value(), b.value());
            if (v instanceof Value.Nil || !Double.isFinite(v.asDouble())) {
                throw error(op, "cannot compute " + a.value() + " " + op.text() + " " + b.value());
            }
            return new Const(v, false, a.ofDuration() || b.ofDuration());
        }
        boolean lm = l instanceof Metrics;
        boolean rm = r instanceof Metrics;
        if ((lm || rm) && (arith == BinaryOp.MOD || arith == BinaryOp.POW)) {
            throw error(op, "metrics math uses + - * /, not " + op.text());
        }
        if (lm && rm) {
            requireNoCompare(op, ((Metrics) l).expr());
            requireNoCompare(op, ((Metrics) r).expr());
            return new Metrics(new MetricsExpr.Math(arith, ((Metrics) l).expr(), ((Metrics) r).expr()));
        }
        if (lm && r instanceof Const c) {
            requireNoCompare(op, ((Metrics) l).expr());
            return new Metrics(new MetricsExpr.ScalarMath(arith, ((Metrics) l).expr(), metricsNumber(op, c, false), false));
        }
        if (rm && l instanceof Const c) {
            requireNoCompare(op, ((Metrics) r).expr());
            return new Metrics(new MetricsExpr.ScalarMath(arith, ((Metrics) r).expr(), metricsNumber(op, c, false), true));
        }
        if (l instanceof Fn || r instanceof Fn) {
            throw error(op, "wrap the metrics pipeline in parentheses for math, as in ({ } | rate()) " + op.text() + " 2");
        }
        if (l instanceof Agg || r instanceof Agg || l instanceof PipeAgg || r instanceof PipeAgg) {
            throw error(op, "arithmetic on aggregates is not supported: compare one aggregate with a number");
        }
        throw error(op, op.text() + " does not apply here: arithmetic joins numbers and wrapped metrics queries");
    }

    /** A number in metrics math or a metrics filter: durations only alone in a filter, as seconds. */
    private double metricsNumber(Token op, Const c, boolean filter) throws QueryParseException {
        if (c.ofDuration()) {
            if (!filter || !c.bare()) {
                throw error(op, "metrics math takes numbers, not durations");
            }
            return ((Value.Duration) c.value()).nanos() / 1e9;
        }
        return c.value().asDouble();
    }

    private void requireNoCompare(Token op, MetricsExpr.Function fn) throws QueryParseException {
        if (fn instanceof MetricsExpr.Function.Compare) {
            throw error(op, "compare() stands alone: no math, second stage or filter after it");
        }
    }

    private void requireNoCompare(Token op, MetricsExpr expr) throws QueryParseException {
        if (expr instanceof MetricsExpr.Pipeline p) {
            requireNoCompare(op, p.function());
        }
    }

    private MetricsExpr withStages(MetricsExpr e, List<SecondStage> stages, Token at) throws QueryParseException {
        requireNoCompare(at, e);
        if (e instanceof MetricsExpr.Pipeline p) {
            List<SecondStage> all = new ArrayList<>(p.stages());
            all.addAll(stages);
            return new MetricsExpr.Pipeline(p.spans(), p.function(), p.by(), all);
        }
        if (e instanceof MetricsExpr.Staged s) {
            List<SecondStage> all = new ArrayList<>(s.stages());
            all.addAll(stages);
            return new MetricsExpr.Staged(s.inner(), all);
        }
        return new MetricsExpr.Staged(e, stages);
    }

    private static <T> List<T> append(List<T> list, T item) {
        List<T> out = new ArrayList<>(list);
        out.add(item);
        return out;
    }

    private Term unary() throws QueryParseException {
        Token t = next();
        enter(t);
        try {
            return unaryTerm(t);
        } finally {
            nesting--;
        }
    }

    private void enter(Token t) throws QueryParseException {
        if (++nesting > MAX_NESTING) {
            throw error(t, "the query nests deeper than " + MAX_NESTING + " levels");
        }
    }

    private Term unaryTerm(Token t) throws QueryParseException {
        if (t.is("-")) {
            Term operand = unary();
            if (operand instanceof Const c && c.value().isNumeric()) {
                return new Const(Operators.negate(c.value()), c.bare(), c.ofDuration());
            }
            throw error(t, "unary - applies to a number here");
        }
        if (t.is("{")) {
            if (peek().is("}")) {
                next();
                return new Spans(new SpansetExpr.Filter(new FieldExpr.Literal(Value.TRUE)));
            }
            FieldExpr condition = field(1);
            expect("}", "to close the spanset filter");
            return new Spans(new SpansetExpr.Filter(checkCondition(t, condition)));
        }
        if (t.is("(")) {
            Term inner = chain();
            expect(")", "to close the parenthesis");
            return inner;
        }
        switch (t.kind()) {
            case INT:
                return new Const(new Value.Int((Long) t.value()), true, false);
            case FLOAT:
                return new Const(new Value.Float((Double) t.value()), true, false);
            case DURATION:
                return new Const(new Value.Duration((Long) t.value()), true, true);
            case WORD:
                return word(t);
            default:
                throw error(t, "unexpected " + t + "; a query starts with a spanset filter such as { status = error }");
        }
    }

    private Term word(Token t) throws QueryParseException {
        switch (t.text()) {
            case "count", "avg", "max", "min", "sum": {
                Stage.AggregateOp op = Stage.AggregateOp.valueOf(t.text().toUpperCase());
                expect("(", "after " + t.text());
                FieldExpr f = null;
                if (op != Stage.AggregateOp.COUNT) {
                    f = readingField(t, t.text() + "()", true);
                }
                expect(")", "to close " + t.text() + "(");
                return new Agg(new Stage.Aggregate(op, f));
            }
            case "by": {
                expect("(", "after by");
                FieldExpr f = readingField(t, "by()", false);
                expect(")", "to close by(");
                return new StageTerm(new Stage.GroupBy(f));
            }
            case "coalesce":
                expect("(", "after coalesce");
                expect(")", "coalesce() takes nothing");
                return new StageTerm(new Stage.Coalesce());
            case "select": {
                expect("(", "after select");
                List<FieldExpr> fields = attributeList();
                expect(")", "to close select(");
                return new StageTerm(new Stage.Select(fields));
            }
            case "topk", "bottomk": {
                expect("(", "after " + t.text());
                Token k = next();
                if (k.kind() != Kind.INT) {
                    throw error(k, t.text() + "() takes a positive integer");
                }
                if ((Long) k.value() < 1 || (Long) k.value() > Integer.MAX_VALUE) {
                    throw error(k, t.text() + "() takes a positive integer, not " + k.value());
                }
                expect(")", "to close " + t.text() + "(");
                return new Second(List.of(new SecondStage.TopK(((Long) k.value()).intValue(), t.text().equals("bottomk"))));
            }
            default:
                return metricsFunction(t);
        }
    }

    private Term metricsFunction(Token t) throws QueryParseException {
        MetricsExpr.Function fn;
        String w = t.text();
        switch (w) {
            case "rate", "count_over_time" -> {
                expect("(", "after " + w);
                expect(")", w + "() takes nothing");
                fn = w.equals("rate") ? new MetricsExpr.Function.Rate() : new MetricsExpr.Function.CountOverTime();
            }
            case "min_over_time", "max_over_time", "sum_over_time", "avg_over_time", "histogram_over_time" -> {
                expect("(", "after " + w);
                FieldExpr f = attribute();
                expect(")", "to close " + w + "(");
                fn = w.startsWith("histogram") ? new MetricsExpr.Function.HistogramOverTime(f)
                        : new MetricsExpr.Function.OverTime(
                                MetricsExpr.OverTimeOp.valueOf(w.substring(0, 3).toUpperCase()), f);
            }
            case "quantile_over_time" -> {
                expect("(", "after " + w);
                FieldExpr f = attribute();
                List<Double> qs = new ArrayList<>();
                do {
                    expect(",", "quantile_over_time(field, q, …) takes at least one quantile");
                    Token q = next();
                    if (q.kind() != Kind.INT && q.kind() != Kind.FLOAT) {
                        throw error(q, "a quantile is a number such as 0.9");
                    }
                    qs.add(((Number) q.value()).doubleValue());
                } while (peek().is(","));
                expect(")", "to close " + w + "(");
                fn = new MetricsExpr.Function.QuantileOverTime(f, qs);
            }
            case "compare" -> {
                expect("(", "after compare");
                Token brace = peek();
                Term sel = unary();
                if (!(sel instanceof Spans s) || !(s.expr() instanceof SpansetExpr.Filter filter)) {
                    throw error(brace, "compare() takes a spanset filter first, as in compare({ status = error })");
                }
                long[] ints = {10, 0, 0};
                int n = 0;
                while (peek().is(",") && n < 3) {
                    next();
                    Token v = next();
                    if (v.kind() != Kind.INT) {
                        throw error(v, "compare() takes integers after the filter");
                    }
                    ints[n++] = (Long) v.value();
                }
                if (n == 2) {
                    throw error(peek(), "compare() takes the number of values, then both start and end");
                }
                expect(")", "to close compare(");
                if (ints[0] < 1 || ints[0] > Integer.MAX_VALUE) {
                    throw error(t, "compare() takes a positive number of values, not " + ints[0]);
                }
                fn = new MetricsExpr.Function.Compare(filter, (int) ints[0], ints[1], ints[2]);
            }
            default -> throw error(t, "unknown word '" + w + "'");
        }
        List<FieldExpr> by = List.of();
        if (peek().is("by")) {
            if (fn instanceof MetricsExpr.Function.Compare) {
                throw error(peek(), "compare() takes no by()");
            }
            next();
            expect("(", "after by");
            by = attributeList();
            expect(")", "to close by(");
        }
        return new Fn(fn, by, List.of());
    }

    private List<FieldExpr> attributeList() throws QueryParseException {
        List<FieldExpr> out = new ArrayList<>();
        out.add(attribute());
        while (peek().is(",")) {
            next();
            out.add(attribute());
        }
        return out;
    }

    /** An attribute or intrinsic, nothing computed. */
    private FieldExpr attribute() throws QueryParseException {
        Token t = peek();
        FieldExpr f = primaryField();
        if (!(f instanceof FieldExpr.Attribute) && !(f instanceof FieldExpr.IntrinsicField)) {
            throw error(t, "expected an attribute or intrinsic such as span.http.url or duration, got " + f);
        }
        return f;
    }

    /** A field expression that reads the span, numeric for aggregates. */
    private FieldExpr readingField(Token fn, String what, boolean numeric) throws QueryParseException {
        Token start = peek();
        FieldExpr f = field(1);
        Types.Type type = typeOf(start, f);
        if (!Types.readsSpan(f)) {
            throw error(start, what + " must read the span: an attribute or intrinsic, not only literals");
        }
        if (numeric && type != Types.Type.ATTRIBUTE && !type.isNumeric()) {
            throw error(start, what + " takes a number, not " + f);
        }
        return f;
    }

    private Types.Type typeOf(Token at, FieldExpr f) throws QueryParseException {
        try {
            return Types.check(f);
        } catch (IllegalArgumentException e) {
            throw error(at, e.getMessage());
        }
    }

    private FieldExpr checkCondition(Token brace, FieldExpr condition) throws QueryParseException {
        Types.Type type = typeOf(brace, condition);
        if (type != Types.Type.BOOL && type != Types.Type.ATTRIBUTE) {
            throw error(brace, "a spanset filter holds a condition, not " + condition);
        }
        return condition;
    }

    // Field expressions, inside braces and function arguments.

    private static BinaryOp fieldOp(Token t) {
        if (t.kind() != Kind.SYMBOL) {
            return null;
        }
        for (BinaryOp op : BinaryOp.values()) {
            if (op.symbol().equals(t.text())) {
                return op;
            }
        }
        return null;
    }

    private FieldExpr field(int min) throws QueryParseException {
        FieldExpr left = unaryField();
        while (true) {
            BinaryOp op = fieldOp(peek());
            if (op == null || op.precedence() < min) {
                return left;
            }
            next();
            if ((op == BinaryOp.EQ || op == BinaryOp.NE) && peek().is("nil")) {
                next();
                left = new FieldExpr.Unary(op == BinaryOp.NE ? FieldExpr.UnaryOp.EXISTS : FieldExpr.UnaryOp.NOT_EXISTS, left);
                continue;
            }
            FieldExpr right = field(op == BinaryOp.POW ? op.precedence() : op.precedence() + 1);
            left = new FieldExpr.Binary(op, left, right);
        }
    }

    private FieldExpr unaryField() throws QueryParseException {
        Token t = peek();
        enter(t);
        try {
            return unaryFieldAt(t);
        } finally {
            nesting--;
        }
    }

    private FieldExpr unaryFieldAt(Token t) throws QueryParseException {
        if (t.is("-") || t.is("!")) {
            next();
            FieldExpr operand = field(BinaryOp.MUL.precedence());
            if (t.is("-") && operand instanceof FieldExpr.Literal l && l.value().isNumeric()) {
                return new FieldExpr.Literal(Operators.negate(l.value()));
            }
            return new FieldExpr.Unary(t.is("-") ? FieldExpr.UnaryOp.NEGATE : FieldExpr.UnaryOp.NOT, operand);
        }
        if (t.is("(")) {
            next();
            FieldExpr inner = field(1);
            expect(")", "to close the parenthesis");
            return inner;
        }
        if (t.is("nil")) {
            next();
            Token op = next();
            if (!op.is("=") && !op.is("!=")) {
                throw error(op, "nil is compared with = or !=");
            }
            if (peek().is("nil")) {
                next();
                return new FieldExpr.Literal(Value.FALSE);
            }
            FieldExpr operand = field(BinaryOp.ADD.precedence());
            return new FieldExpr.Unary(op.is("!=") ? FieldExpr.UnaryOp.EXISTS : FieldExpr.UnaryOp.NOT_EXISTS, operand);
        }
        return primaryField();
    }

    private FieldExpr primaryField() throws QueryParseException {
        Token t = next();
        switch (t.kind()) {
            case STRING:
                return new FieldExpr.Literal(new Value.Str((String) t.value()));
            case INT:
                return new FieldExpr.Literal(new Value.Int((Long) t.value()));
            case FLOAT:
                return new FieldExpr.Literal(new Value.Float((Double) t.value()));
            case DURATION:
                return new FieldExpr.Literal(new Value.Duration((Long) t.value()));
            case SCOPE:
                return scopedAttribute(t);
            case SCOPE_COLON:
                return scopedIntrinsic(t);
            case WORD:
                return wordField(t);
            default:
                throw error(t, "expected a field, value or attribute, got " + t);
        }
    }

    private FieldExpr scopedAttribute(Token scope) throws QueryParseException {
        Token name = next();
        FieldExpr.AttributeScope s = switch (scope.text()) {
            case "." -> FieldExpr.AttributeScope.NONE;
            case "span." -> FieldExpr.AttributeScope.SPAN;
            case "resource." -> FieldExpr.AttributeScope.RESOURCE;
            case "event." -> FieldExpr.AttributeScope.EVENT;
            case "link." -> FieldExpr.AttributeScope.LINK;
            case "instrumentation." -> FieldExpr.AttributeScope.INSTRUMENTATION;
            default -> throw error(scope, "parent. attributes are not supported");
        };
        return new FieldExpr.Attribute(s, (String) name.value());
    }

    private FieldExpr scopedIntrinsic(Token scope) throws QueryParseException {
        Token word = next();
        String key = scope.text() + word.text();
        for (FieldExpr.Intrinsic i : FieldExpr.Intrinsic.values()) {
            if (i.text().equals(key)) {
                return new FieldExpr.IntrinsicField(i);
            }
        }
        String alias = switch (key) {
            case "span:duration", "span:name", "span:kind", "span:status", "span:statusMessage" -> word.text();
            default -> null;
        };
        if (alias == null) {
            throw error(word, "unknown intrinsic " + key);
        }
        return wordField(new Token(Kind.WORD, alias, word.position(), null));
    }

    private FieldExpr wordField(Token t) throws QueryParseException {
        String w = t.text();
        switch (w) {
            case "true":
                return new FieldExpr.Literal(Value.TRUE);
            case "false":
                return new FieldExpr.Literal(Value.FALSE);
            case "minInt":
                return new FieldExpr.Literal(new Value.Int(Long.MIN_VALUE));
            case "maxInt":
                return new FieldExpr.Literal(new Value.Int(Long.MAX_VALUE));
            case "rootName":
                return new FieldExpr.IntrinsicField(FieldExpr.Intrinsic.TRACE_ROOT_NAME);
            case "rootServiceName":
                return new FieldExpr.IntrinsicField(FieldExpr.Intrinsic.TRACE_ROOT_SERVICE);
            case "traceDuration":
                return new FieldExpr.IntrinsicField(FieldExpr.Intrinsic.TRACE_DURATION);
            case "parent":
                throw error(t, "the parent intrinsic is not supported");
            default:
                break;
        }
        Value enumValue = Value.ofWord(w);
        if (enumValue != null) {
            return new FieldExpr.Literal(enumValue);
        }
        for (FieldExpr.Intrinsic i : FieldExpr.Intrinsic.values()) {
            if (i.text().equals(w)) {
                return new FieldExpr.IntrinsicField(i);
            }
        }
        throw error(t, "unknown word '" + w + "': attributes are written .name, span.name or resource.name");
    }

    private Map<String, Value> hints() throws QueryParseException {
        next();
        expect("(", "after with");
        Map<String, Value> hints = new LinkedHashMap<>();
        while (true) {
            Token name = next();
            if (name.kind() != Kind.WORD) {
                throw error(name, "a hint is name=value");
            }
            expect("=", "after the hint's name");
            Token vt = peek();
            FieldExpr v = unaryField();
            if (!(v instanceof FieldExpr.Literal l)) {
                throw error(vt, "a hint's value is a literal");
            }
            hints.put(name.text(), l.value());
            if (!peek().is(",")) {
                break;
            }
            next();
        }
        expect(")", "to close with(");
        return hints;
    }

    private Token peek() {
        return tokens.get(at);
    }

    private Token next() {
        Token t = tokens.get(at);
        if (t.kind() != Kind.EOF) {
            at++;
        }
        return t;
    }

    private void expect(String symbol, String why) throws QueryParseException {
        Token t = next();
        if (!t.is(symbol)) {
            throw error(t, "expected '" + symbol + "' " + why + ", got " + t);
        }
    }

    private static QueryParseException error(Token t, String message) {
        return new QueryParseException(t.position(), message);
    }
}
