package dev.needle.query.traceql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.query.ql.QueryParseException;
import dev.needle.query.traceql.FieldExpr.BinaryOp;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TraceQlParserTest {

    /** Queries from Tempo's documentation and its parser's list of valid queries. */
    static List<String> valid() {
        return List.of(
                "{ true }", "{ !true }", "{ true && false }", "{ true || false }", "{ 1 = 2 }", "{ 1 != 2 }",
                "{ 1 > 2 }", "{ 1 >= 2 }", "{ 1 < 2 }", "{ 1 <= 2 }", "{ -1 = 2 }", "{ \"test\" =~ \"test\" }",
                "{ \"test\" !~ \"test\" }", "{ .a }", "{ !.a }", "{ .a && false }", "{ .a || true }", "{ .a = 2 }",
                "{ .a != 2 }", "{ .a > 2 }", "{ .a <= 2 }", "{ -.a = 2 }", "{ .a =~ \"test\" }", "{ .a != \"test\" }",
                "{ resource.a != 3 }", "{ span.a != 3 }", "{ !(\"test\" != .c || ((true && .b) || 3 < .a)) }",
                "{ status = ok }", "{ status = unset }", "{ status != error }", "{ statusMessage = \"\" }",
                "{ statusMessage =~ \".*\" }", "{ kind = internal }", "{ kind = consumer }", "{ traceDuration > 1s }",
                "{ rootServiceName = \"foo\" }", "{ rootName != \"foo\" }", "{ duration > 1s }", "{ 1 < 1h }",
                "{ 1 <= 1.1 }", "{ event.foo = \"bar\" }", "{ link.foo = \"bar\" }", "{ instrumentation.foo = \"bar\" }",
                "{ span.foo != 3.0 }", "{ .\"foo bar\" = \"v\" }", "{ span.\"foo bar\" = \"v\" }",
                "{ resource.\"foo bar\" = \"v\" }", "{ .\"foo\\\" = \\\"bar\" = \"v\" }", "{ .\"a\\\\b\" = \"v\" }",
                "{ .\"foo\tbar\" = \"v\" }", "{ .\" x\" = \"v\" }",
                "{ trace:duration > 2s }", "{ trace:rootName = \"a\" }", "{ trace:rootService = \"a\" }",
                "{ trace:id = \"aasdf4ergf\" }", "{ span:duration > 2s }", "{ span:status = error }",
                "{ span:kind = client }", "{ span:statusMessage = \"status message\" }", "{ span:id = \"6162\" }",
                "{ span:parentID = \"8473\" }", "{ event:name = \"exception\" }", "{ event:timeSinceStart > 1s }",
                "{ link:traceID = \"f1f1\" }", "{ link:spanID = \"f1f1\" }", "{ instrumentation:name = \"grpc\" }",
                "{ instrumentation:version = \"v3.34\" }", "{ span:childCount > 2 }",
                "{ 1 + 1 = 2 }", "{ 1 - 1 = 2 }", "{ 1 * 1 = 2 }", "{ 1 / 1 = 2 }", "{ 1 ^ 1 = 2 }", "{ .a + 1 = 2 }",
                "{ .a ^ 1 = 2 }", "{ duration > 1s * 2s }", "{ duration < (10s * 20s) }", "{ 1 * 1h = 1 }",
                "{ .http.status >= \"200\" }", "{ duration > 1.5ms }", "{ duration < 1h30m }",
                "{ true } && { true }", "{ true } || { true }", "{ true } >> { true }", "{ true } << { true }",
                "{ true } > { true }", "{ true } < { true }", "{ true } ~ { true }", "{ true } !> { true }",
                "{ true } !< { true }", "{ true } !~ { true }", "{ true } !>> { true }", "{ true } !<< { true }",
                "{ true } &> { true }", "{ true } &< { true }", "{ true } &~ { true }", "{ true } &>> { true }",
                "{ true } &<< { true }",
                "({ true } | count() > 1 | { false }) >> ({ true } | count() > 1 | { false })",
                "({ true } | count() > 1 | { false }) ~ ({ true } | count() > 1 | { false })",
                "({ true } | count() > 1 | { false }) && ({ true } | count() > 1 | { false })",
                "{.attr=\"a\" || .attr=\"b\"}", "{.attr!~\"a.*\" && .attr!~\"b.*\"}",
                "avg(.field) > 1", "max(duration) >= 1s", "{ true } | max(duration) = 1h", "{ true } | sum(duration) = 1h",
                "{ true } | max(span.a) = 1", "{ true } | max((1 + .a) * 2) = 1",
                "max(duration) > 3s | { status = error || .http.status = 500 }",
                "select(.a)", "{} | select(.a,.b,.c)", "{ true } | { .a }", "{ true } | count() = 1",
                "count() = 1 | { true }", "{ true } | coalesce()", "{ true } | by(1 + .a) | coalesce()",
                "by(.a) | { true }", "{ true } | by(name) | count() > 2", "{ true } | by(3 * .field - 2) | max(duration) < 1s",
                "{ nestedSetLeft > 3 }", "{ } >> { kind = server } | select(nestedSetLeft, nestedSetRight, nestedSetParent)",
                "{ nil != nil }", "{ .foo != nil }", "{ name != nil }", "{ span.optional_field = nil }",
                "min(span:childCount) < 2 / 6", "avg(.field) > 1 - 3",
                "{ resource.service.name = \"api\" && span.http.status_code >= 500 } >> { name = \"db\" }",
                "{ span.http.method = \"GET\" } | select(span.http.url, resource.service.name)",
                // metrics
                "{} | rate()", "{} | count_over_time() by (name) with(sample=0.1)",
                "{} | min_over_time(duration) by (span.http.path)", "{} | avg_over_time(duration) by (span.http.path)",
                "{} | quantile_over_time(duration, 0, 0.9, 1) by (span.http.path)",
                "{ } | quantile_over_time(duration, .5, .9, .99)", "{ } | histogram_over_time(duration)",
                "{ status = error } | rate() by (resource.service.name)",
                "{ resource.service.name = \"a\" } | compare({ status = error })",
                "{ } | compare({ status = error }, 5)", "{ } | compare({ status = error }, 5, 1700000000000000000, 1700000100000000000)",
                "{} | rate() | topk(10)", "{} | rate() by (span.client_ip) | bottomk(10)",
                "{} | count_over_time() by (name) | topk(10) with(sample=0.1)",
                "{} | avg_over_time(duration) by (span:name) | topk(10)",
                "{} | rate() > 10", "{} | rate() by (span.client_ip) >= 5.5", "{} | rate() > -3",
                "({} | rate()) > 10", "({} | max_over_time(duration)) > 10s",
                "({} | rate()) + ({} | rate())", "({} | rate()) / ({} | count_over_time())",
                "(({} | rate()) * ({} | count_over_time())) + ({} | rate())", "({} | rate()) + ({} | rate()) | topk(5)",
                "({} | rate()) + ({} | rate()) | topk(5) > 10", "({} | rate()) * 100", "100 * ({} | rate())",
                "1 + 2 + ({} | rate())", "({} | rate()) / 3 * 2", "({} | rate()) * -100", "-1.5 - ({} | rate())",
                "({} | rate() > 6) * 100 > 5", "({} | rate()) * 10 + 5 > 50 | topk(1)",
                "{} | rate() | topk(5) > 20 | bottomk (10) <= 10", "{} | count_over_time() <= 0 | topk(10) with(sample=0.1)");
    }

    /** Queries Tempo refuses, each for a reason the message must name. */
    static List<String> invalid() {
        return List.of("true", "[ true ]", "( true )", "{ . }", "{ < }", "{ .a < }", "{ .a < 3", "{ (.a < 3 }",
                "{ attribute = 4 }", "{ .attribute == 4 }", "{} | rate() == 42", "{ span. }", "{ true } + { true }",
                "{ true } = { true }", "{ true } <= { true }", "max(name) = \"foo\"", "avg(\"foo\") = \"bar\"",
                "max(status) = ok", "max(duration) < ok", "avg(.field) + 1", "min(span:childCount) && 2",
                "select(.a", "select()", "select(1 + \"string\")", "coalesce() | { true }", "count() > 3 && { true }",
                "{ true } | count()", "{ true } | notAnAggregate() = 1", "{ true } | count = 1", "{ true } | max() = 1",
                "{ true } | by()", "({ true }) && (count())", "({ true } | count()) + ({ true } | count())",
                "5 + {} | rate()", "{} | rate() + 5", "2 * 3", "3 = 2", "({} | rate()) % 10", "{ .foo = \"a\" } | 3 > 2",
                "({} | rate()) + 5 100", "{ trace:status = error }", "{ trace:name = \"a\" }",
                "{ trace:rootServiceName = \"a\" }", "{ span:rootName = \"bar\" }", "{} | topk(10)",
                "{} | rate() | topk(-1)", "{} | rate() | topk(0)", "{} > 10", "({}) + ({})",
                "({} | rate()) ^ ({} | count_over_time())", "({} | rate()) >> ({} | count_over_time())",
                "({} | rate()) * 100000000000000000000000000000", "({} | rate()) > (10s * 2)", "({} | rate()) * 10s",
                "{ status }", "{ 1.1 }", "{ \"foo\" }", "{ 1 + 1 }", "{ 1 + \"foo\" = 1 }", "{ 1 = \"foo\" }",
                "{ 1 > ok }", "{ 1 =~ 2 }", "{ status > ok }", "{ kind < consumer }", "{ traceDuration > \"test\" }",
                "{ \"foo\" = span:childCount }", "{ span:status = nil }", "{ resource.service.name = nil }",
                "{ span.foo =~ \"[\" }", "{ -true }", "{ -\"foo\" = \"bar\" }", "{ !1 = 1 }", "sum(3) = 2",
                "{ true } | by(1)", "{ nestedSetLeft = \"foo\" }", "{} | compare({status=error}) | topk(10)",
                "{} | compare({status=error}) > 10", "({} | compare({status=error})) + ({} | compare({status=error}))",
                "{ parent.a != 3 }", "{ .a = \"unterminated }", "{ .\"a\\x\" = 1 }", "({} | rate()) >> 10",
                "{ } | count() =~ 2", "{ } | rate() !~ 1", "{ } | rate() by (name) with(sample=)", "{ } | rate() with(1)");
    }

    @ParameterizedTest
    @MethodSource("valid")
    void validQueriesParseAndPrintBackToTheSameTree(String text) throws QueryParseException {
        Query q = TraceQlParser.parse(text);
        Query again = TraceQlParser.parse(q.toString());
        assertEquals(q, again, () -> text + " printed as " + q);
        assertEquals(q.toString(), again.toString());
    }

    @ParameterizedTest
    @MethodSource("invalid")
    void invalidQueriesFailWithAMessage(String text) {
        QueryParseException e = assertThrows(QueryParseException.class, () -> TraceQlParser.parse(text), text);
        assertTrue(e.position() >= 0 && e.position() <= text.length(), e.getMessage());
        assertTrue(e.getMessage().length() > 10, e.getMessage());
    }

    @Test
    void precedenceFollowsTempo() throws QueryParseException {
        assertEquals("{ .a = 1 || .b = 2 && .c = 3 }", TraceQlParser.parse("{ .a = 1 || .b = 2 && .c = 3 }").toString());
        FieldExpr f = filter("{ -.a * 2 = 1 }");
        // unary minus binds looser than *, as Tempo's grammar has it
        FieldExpr.Binary eq = (FieldExpr.Binary) f;
        assertInstanceOf(FieldExpr.Unary.class, eq.lhs());
        assertEquals(new FieldExpr.Binary(BinaryOp.MUL, new FieldExpr.Attribute(FieldExpr.AttributeScope.NONE, "a"),
                new FieldExpr.Literal(new Value.Int(2))), ((FieldExpr.Unary) eq.lhs()).operand());
        assertEquals("{ 2 ^ 3 ^ 2 = .a }", TraceQlParser.parse("{ 2 ^ (3 ^ 2) = .a }").toString());
        assertEquals("{ (2 ^ 3) ^ 2 = .a }", TraceQlParser.parse("{ (2 ^ 3) ^ 2 = .a }").toString());
        SpansetExpr.Operation op = (SpansetExpr.Operation) ((Query.Spans) TraceQlParser.parse("{ .a } && { .b } >> { .c }")).expr();
        assertEquals(SpansetExpr.SpansetOp.AND, op.op());
        assertEquals(SpansetExpr.SpansetOp.DESCENDANT, ((SpansetExpr.Operation) op.rhs()).op());
    }

    @Test
    void literalsAreTyped() throws QueryParseException {
        assertEquals(new Value.Duration(1_500_000), literal("{ duration > 1.5ms }"));
        assertEquals(new Value.Duration(5_400_000_000_000L), literal("{ duration > 1h30m }"));
        assertEquals(new Value.Duration(86_400_000_000_000L), literal("{ duration > 1d }"));
        assertEquals(new Value.Float(-1.5), literal("{ .a > -1.5 }"));
        assertEquals(new Value.Int(500), literal("{ .a > 500 }"));
        assertEquals(new Value.Status(Value.StatusCode.ERROR), literal("{ status = error }"));
        assertEquals(new Value.Kind(Value.SpanKind.SERVER), literal("{ kind = server }"));
        assertEquals(new Value.Str("a\"b\n"), literal("{ .a = \"a\\\"b\\n\" }"));
        assertEquals(new Value.Str("raw\\n"), literal("{ .a = `raw\\n` }"));
        assertEquals(new FieldExpr.Attribute(FieldExpr.AttributeScope.SPAN, "foo\" = \"bar"),
                ((FieldExpr.Binary) filter("{ span.\"foo\\\" = \\\"bar\" = 1 }")).lhs());
        assertEquals(new FieldExpr.Unary(FieldExpr.UnaryOp.NOT_EXISTS,
                new FieldExpr.Attribute(FieldExpr.AttributeScope.SPAN, "x")), filter("{ span.x = nil }"));
    }

    @Test
    void metricsQueriesParseIntoTheirParts() throws QueryParseException {
        MetricsExpr.Pipeline p = (MetricsExpr.Pipeline) ((Query.Metrics) TraceQlParser.parse(
                "{ status = error } | quantile_over_time(duration, .5, .99) by (resource.service.name) | topk(3) > 0.5"
                        + " with(sample=0.1)")).expr();
        assertEquals(new MetricsExpr.Function.QuantileOverTime(new FieldExpr.IntrinsicField(FieldExpr.Intrinsic.DURATION),
                List.of(0.5, 0.99)), p.function());
        assertEquals(List.of(new FieldExpr.Attribute(FieldExpr.AttributeScope.RESOURCE, "service.name")), p.by());
        assertEquals(List.of(new MetricsExpr.SecondStage.TopK(3, false),
                new MetricsExpr.SecondStage.Filter(BinaryOp.GT, 0.5)), p.stages());
        Query q = TraceQlParser.parse("{} | rate() with(sample=0.1)");
        assertEquals(new Value.Float(0.1), q.hints().get("sample"));
        MetricsExpr.ScalarMath m = (MetricsExpr.ScalarMath) ((Query.Metrics) TraceQlParser.parse("3 * 2 + ({} | rate())")).expr();
        assertEquals(6.0, m.number());
        assertTrue(m.numberFirst());
    }

    @Test
    void errorsNameThePosition() {
        QueryParseException e = assertThrows(QueryParseException.class, () -> TraceQlParser.parse("{ .a = 1 } | bogus()"));
        assertEquals(13, e.position());
        assertTrue(e.getMessage().contains("bogus"), e.getMessage());
        e = assertThrows(QueryParseException.class, () -> TraceQlParser.parse("{ status > ok }"));
        assertTrue(e.getMessage().contains("status > ok"), e.getMessage());
    }

    @Test
    void boundsTheSizeOfAQuery() throws QueryParseException {
        String deep = "{ " + "(".repeat(TraceQlParser.MAX_NESTING) + ".a" + ")".repeat(TraceQlParser.MAX_NESTING) + " }";
        assertTrue(assertThrows(QueryParseException.class, () -> TraceQlParser.parse(deep)).getMessage().contains("nests"));
        String many = "{ " + String.join(" || ", java.util.Collections.nCopies(1500, ".a = 1")) + " }";
        TraceQlParser.parse(many);
        String tooMany = "{ " + String.join(" || ", java.util.Collections.nCopies(1700, ".a = 1")) + " }";
        assertTrue(assertThrows(QueryParseException.class, () -> TraceQlParser.parse(tooMany)).getMessage().contains("tokens"));
        assertThrows(QueryParseException.class, () -> TraceQlParser.parse("{ } | rate() > 0.0 / 0.0"));
    }

    private static FieldExpr filter(String text) throws QueryParseException {
        return ((SpansetExpr.Filter) ((Query.Spans) TraceQlParser.parse(text)).expr()).condition();
    }

    private static Value literal(String text) throws QueryParseException {
        return ((FieldExpr.Literal) ((FieldExpr.Binary) filter(text)).rhs()).value();
    }
}
