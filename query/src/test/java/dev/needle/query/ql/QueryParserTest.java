package dev.needle.query.ql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.model.Signal;
import dev.needle.query.ql.Attribute.Scope;
import dev.needle.query.ql.Expr.And;
import dev.needle.query.ql.Expr.Condition;
import dev.needle.query.ql.Expr.MatchAll;
import dev.needle.query.ql.Expr.Or;
import dev.needle.query.ql.Literal.BoolLit;
import dev.needle.query.ql.Literal.DoubleLit;
import dev.needle.query.ql.Literal.IntLit;
import dev.needle.query.ql.Literal.StringLit;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QueryParserTest {

    private static final Signal S = Signal.SPANS;
    private static final Signal L = Signal.LOGS;

    static Expr spans(String q) throws QueryParseException {
        return QueryParser.parse(q, S);
    }

    static Expr logs(String q) throws QueryParseException {
        return QueryParser.parse(q, L);
    }

    static Condition cond(Signal signal, Scope scope, String key, Op op, Literal literal) {
        return new Condition(new Attribute(signal, scope, key), op, literal);
    }

    static Condition span(String key, Op op, Literal literal) {
        return cond(S, Scope.RECORD, key, op, literal);
    }

    static Condition any(String key, long value) {
        return cond(S, Scope.UNSCOPED, key, Op.EQ, new IntLit(value));
    }

    static Condition intrinsic(Signal signal, String key, Op op, long value) {
        return cond(signal, Scope.INTRINSIC, key, op, new IntLit(value));
    }

    static And and(Expr... terms) {
        return new And(List.of(terms));
    }

    static Or or(Expr... terms) {
        return new Or(List.of(terms));
    }

    @Test
    void parse_issueExamples() throws Exception {
        assertEquals(and(cond(S, Scope.RESOURCE, "service.name", Op.EQ, new StringLit("checkout")),
                        span("http.status_code", Op.EQ, new IntLit(500))),
                spans("{ resource.service.name = \"checkout\" && span.http.status_code = 500 }"));
        assertEquals(cond(S, Scope.UNSCOPED, "k8s.pod.name", Op.EQ, new StringLit("api-7f9")),
                spans("{ .k8s.pod.name = \"api-7f9\" }"));
        assertEquals(and(intrinsic(S, "duration", Op.GT, 2_000_000_000L),
                        cond(S, Scope.RESOURCE, "service.name", Op.EQ, new StringLit("cart"))),
                spans("{ duration > 2s && resource.service.name = \"cart\" }"));
        assertEquals(intrinsic(L, "severity", Op.GE, 17), logs("{ severity >= 17 }"));
    }

    @Test
    void parse_emptySelectorMatchesAll() throws Exception {
        assertEquals(new MatchAll(), spans("{ }"));
        assertEquals(new MatchAll(), logs("{}"));
        assertEquals(new MatchAll(), spans(" \n\t{\n}\t "));
    }

    @Test
    void parse_andBindsTighterThanOr() throws Exception {
        assertEquals(or(any("a", 1), and(any("b", 2), any("c", 3))), spans("{ .a = 1 || .b = 2 && .c = 3 }"));
        assertEquals(or(and(any("a", 1), any("b", 2)), any("c", 3)), spans("{ .a = 1 && .b = 2 || .c = 3 }"));
        assertEquals(and(or(any("a", 1), any("b", 2)), any("c", 3)), spans("{ (.a = 1 || .b = 2) && .c = 3 }"));
    }

    @Test
    void parse_nestedParenthesesFlattenToCanonicalTrees() throws Exception {
        assertEquals(any("a", 1), spans("{ (((.a = 1))) }"));
        assertEquals(and(any("a", 1), any("b", 2), any("c", 3)), spans("{ .a = 1 && (.b = 2 && (.c = 3)) }"));
        assertEquals(or(any("a", 1), any("b", 2), any("c", 3)), spans("{ (.a = 1 || .b = 2) || .c = 3 }"));
        assertEquals(and(any("a", 1), or(any("b", 2), and(any("c", 3), or(any("d", 4), any("e", 5))))),
                spans("{ .a = 1 && (.b = 2 || .c = 3 && (.d = 4 || .e = 5)) }"));
        String deepest = "(".repeat(QueryParser.MAX_DEPTH) + ".a = 1" + ")".repeat(QueryParser.MAX_DEPTH);
        assertEquals(any("a", 1), spans("{ " + deepest + " }"));
    }

    @Test
    void parse_needsNoSpaces() throws Exception {
        assertEquals(or(and(span("x", Op.EQ, new IntLit(1)), cond(S, Scope.UNSCOPED, "y", Op.NE, new StringLit("a"))),
                        cond(S, Scope.INTRINSIC, "name", Op.EQ, new StringLit("n")), span("z", Op.LT, new IntLit(-5))),
                spans("{span.x=1&&.y!=\"a\"||name=\"n\"||span.z<-5}"));
    }

    @Test
    void parse_scopesAndKeys() throws Exception {
        assertEquals(cond(S, Scope.SCOPE, "lib.ver", Op.EQ, new IntLit(1)), spans("{ instrumentation.lib.ver = 1 }"));
        assertEquals(cond(S, Scope.SCOPE, "lib.ver", Op.EQ, new IntLit(1)), spans("{ scope.lib.ver = 1 }"));
        assertEquals(cond(L, Scope.RECORD, "code.line", Op.EQ, new IntLit(1)), logs("{ log.code.line = 1 }"));
        assertEquals(span("http/route-2_x.Ünï", Op.EQ, new IntLit(1)), spans("{ span.http/route-2_x.Ünï = 1 }"));
        assertEquals(span("my key", Op.EQ, new IntLit(1)), spans("{ span.\"my key\" = 1 }"));
        assertEquals(cond(S, Scope.UNSCOPED, "k8s pod", Op.EQ, new StringLit("x")), spans("{ .\"k8s pod\" = \"x\" }"));
        assertEquals(cond(S, Scope.RESOURCE, "a\"b=c", Op.EQ, new IntLit(1)), spans("{ resource.\"a\\\"b=c\" = 1 }"));
        assertEquals(cond(S, Scope.UNSCOPED, ".x", Op.EQ, new IntLit(1)), spans("{ ..x = 1 }"));
        // An attribute called like an intrinsic is not the intrinsic.
        assertEquals(cond(S, Scope.UNSCOPED, "name", Op.EQ, new IntLit(1)), spans("{ .name = 1 }"));
    }

    @Test
    void parse_typesLiterals() throws Exception {
        assertEquals(new StringLit("a\"b\\c\nd\te\rf\u00e9\u20ac"), literal("\"a\\\"b\\\\c\\nd\\te\\rf\\u00e9\\u20AC\""));
        assertEquals(new StringLit(""), literal("\"\""));
        assertEquals(new StringLit("200"), literal("\"200\""));
        assertEquals(new IntLit(200), literal("200"));
        assertEquals(new IntLit(-5), literal("-5"));
        assertEquals(new IntLit(7), literal("007"));
        assertEquals(new IntLit(Long.MAX_VALUE), literal("9223372036854775807"));
        assertEquals(new IntLit(Long.MIN_VALUE), literal("-9223372036854775808"));
        assertEquals(new DoubleLit(200.0), literal("200.0"));
        assertEquals(new DoubleLit(1.5), literal("1.5"));
        assertEquals(new DoubleLit(2000.0), literal("2e3"));
        assertEquals(new DoubleLit(0.5), literal(".5"));
        assertEquals(new DoubleLit(-0.5), literal("-.5"));
        assertEquals(new DoubleLit(0.001), literal("1E-3"));
        assertEquals(new DoubleLit(1e19), literal("1e+19"));
        assertEquals(new DoubleLit(-0.0), literal("-0.0"));
        assertEquals(new DoubleLit(9.223372036854775808e18), literal("9223372036854775808.0"));
        assertEquals(new BoolLit(true), literal("true"));
        assertEquals(new BoolLit(false), literal("false"));
    }

    private static Literal literal(String text) throws QueryParseException {
        return ((Condition) spans("{ span.x = " + text + " }")).literal();
    }

    @Test
    void parse_tempoIntrinsics_scopedAndUnscoped() throws Exception {
        for (String word : List.of("name", "status", "kind", "duration", "statusMessage")) {
            Attribute a = new Attribute(S, Scope.INTRINSIC, word);
            assertEquals(a, ((Condition) spans("{ span:" + word + " != " + (a.isStringField() ? "\"x\"" : word.equals("duration") ? "1s" : "1") + " }")).attribute());
        }
        assertEquals(cond(S, Scope.INTRINSIC, "statusMessage", Op.MATCH, new Literal.Regex("time.*")),
                spans("{ statusMessage =~ \"time.*\" }"));
        assertEquals(cond(S, Scope.TRACE, "duration", Op.GT, new IntLit(2_000_000_000L)), spans("{ traceDuration > 2s }"));
        assertEquals(cond(S, Scope.TRACE, "duration", Op.LE, new IntLit(1_500_000L)), spans("{ trace:duration <= 1.5ms }"));
        assertEquals(cond(S, Scope.TRACE, "rootService", Op.EQ, new StringLit("cart")),
                spans("{ rootServiceName = \"cart\" }"));
        assertEquals(cond(S, Scope.TRACE, "rootService", Op.MATCH, new Literal.Regex("cart|pay")),
                spans("{ trace:rootService =~ \"cart|pay\" }"));
        assertEquals(cond(S, Scope.TRACE, "rootName", Op.NE, new StringLit("GET /")), spans("{ rootName != \"GET /\" }"));
        assertEquals(cond(S, Scope.TRACE, "rootName", Op.NOT_MATCH, new Literal.Regex("GET .*")),
                spans("{ trace:rootName !~ \"GET .*\" }"));
        assertEquals(cond(S, Scope.EVENT, "name", Op.EQ, new StringLit("exception")),
                spans("{ event:name = \"exception\" }"));
        // What Grafana's search builder sends, and the canonical text it prints as.
        Expr builder = spans("{resource.service.name=~\"cart|checkout\" && name=\"GET /\" && traceDuration>100ms"
                + " && span:duration<2s && span:status=error && span:kind=server && rootName=~\"GET.*\"}");
        assertEquals("{ resource.service.name =~ \"cart|checkout\" && name = \"GET /\" && trace:duration > 100ms"
                + " && duration < 2s && status = error && kind = server && trace:rootName =~ \"GET.*\" }", builder.toString());
        assertEquals(builder, spans(builder.toString()));
    }

    @Test
    void parse_regexOperators() throws Exception {
        assertEquals(cond(S, Scope.RESOURCE, "service.name", Op.MATCH, new Literal.Regex("cart|checkout")),
                spans("{ resource.service.name =~ \"cart|checkout\" }"));
        assertEquals(span("http.route", Op.NOT_MATCH, new Literal.Regex("/api/.*")),
                spans("{ span.http.route!~\"/api/.*\" }"));
        assertEquals(cond(S, Scope.INTRINSIC, "name", Op.MATCH, new Literal.Regex("GET \\.x")),
                spans("{ name =~ \"GET \\\\.x\" }"));
        assertEquals(cond(L, Scope.UNSCOPED, "a", Op.MATCH, new Literal.Regex("")), logs("{ .a =~ \"\" }"));
        assertEquals("{ .a =~ \"x|y\" && name !~ \"a\\\\.b\" }",
                spans("{.a=~\"x|y\"&&name!~\"a\\\\.b\"}").toString());
    }

    @ParameterizedTest
    @CsvSource({"2s, 2000000000", "150ms, 150000000", "10us, 10000", "5ns, 5", "1m, 60000000000",
            "1h, 3600000000000", "1.5s, 1500000000", "2e3ms, 2000000000", ".5h, 1800000000000", "0s, 0",
            "-1s, -1000000000", "2562047h, 9223369200000000000"})
    void parse_durationsInNanoseconds(String text, long nanos) throws Exception {
        assertEquals(intrinsic(S, "duration", Op.GT, nanos), spans("{ duration > " + text + " }"));
    }

    @Test
    void parse_intrinsicKeywords() throws Exception {
        assertEquals(intrinsic(S, "status", Op.EQ, 1), spans("{ status = ok }"));
        assertEquals(intrinsic(S, "status", Op.EQ, 2), spans("{ status = error }"));
        assertEquals(intrinsic(S, "status", Op.NE, 0), spans("{ status != unset }"));
        assertEquals(intrinsic(S, "status", Op.EQ, 2), spans("{ status = 2 }"));
        List<String> kinds = List.of("unspecified", "internal", "server", "client", "producer", "consumer");
        for (int i = 0; i < kinds.size(); i++) {
            assertEquals(intrinsic(S, "kind", Op.EQ, i), spans("{ kind = " + kinds.get(i) + " }"));
        }
        assertEquals(cond(S, Scope.INTRINSIC, "name", Op.EQ, new StringLit("GET /cart")), spans("{ name = \"GET /cart\" }"));
        assertEquals(cond(S, Scope.INTRINSIC, "name", Op.GE, new StringLit("b")), spans("{ name >= \"b\" }"));
    }

    @Test
    void parse_severityNamesAreTheirBaseNumbers() throws Exception {
        List<String> names = List.of("trace", "debug", "info", "warn", "error", "fatal");
        for (int i = 0; i < names.size(); i++) {
            assertEquals(intrinsic(L, "severity", Op.EQ, 1 + 4 * i), logs("{ severity = " + names.get(i) + " }"));
        }
        assertEquals(intrinsic(L, "severity", Op.GE, 13), logs("{ severity >= warn }"));
        assertEquals(intrinsic(L, "severity", Op.EQ, 0), logs("{ severity = 0 }"));
        assertEquals(intrinsic(L, "severity", Op.LE, 24), logs("{ severity <= 24 }"));
        // The same word means different numbers for different fields.
        assertEquals(intrinsic(S, "status", Op.EQ, 2), spans("{ status = error }"));
        assertEquals(intrinsic(L, "severity", Op.EQ, 17), logs("{ severity = error }"));
    }

    @Test
    void indexedKeys_perScopeAndSignal() {
        assertEquals(List.of("resource.foo"), new Attribute(S, Scope.RESOURCE, "foo").indexedKeys());
        assertEquals(List.of("scope.foo"), new Attribute(L, Scope.SCOPE, "foo").indexedKeys());
        assertEquals(List.of("span.foo"), new Attribute(S, Scope.RECORD, "foo").indexedKeys());
        assertEquals(List.of("log.foo"), new Attribute(L, Scope.RECORD, "foo").indexedKeys());
        assertEquals(List.of("resource.foo", "scope.foo", "span.foo"), new Attribute(S, Scope.UNSCOPED, "foo").indexedKeys());
        assertEquals(List.of("resource.foo", "scope.foo", "log.foo"), new Attribute(L, Scope.UNSCOPED, "foo").indexedKeys());
        assertEquals(List.of("intrinsic.name"), new Attribute(S, Scope.INTRINSIC, "name").indexedKeys());
        assertEquals(List.of("intrinsic.status"), new Attribute(S, Scope.INTRINSIC, "status").indexedKeys());
        assertEquals(List.of("intrinsic.kind"), new Attribute(S, Scope.INTRINSIC, "kind").indexedKeys());
        assertEquals(List.of("intrinsic.severity"), new Attribute(L, Scope.INTRINSIC, "severity").indexedKeys());
        assertEquals(List.of(), new Attribute(S, Scope.INTRINSIC, "duration").indexedKeys());
    }

    @Test
    void toString_isCanonical() throws Exception {
        assertEquals("{ resource.service.name = \"checkout\" && span.http.status_code = 500 }",
                spans("{resource.service.name=\"checkout\"&&span.http.status_code=500}").toString());
        assertEquals("{ .a = 1 && (.b = 2 || .c = 3) || .d = 4.0 }",
                spans("{ ((.a = 1) && (.b = 2 || (.c = 3))) || .d = 4.0 }").toString());
        assertEquals("{ duration > 1500ms && status = error && kind = server && instrumentation.\"my key\" != true }",
                spans("{ duration > 1.5s && status = 2 && kind = 2 && scope.\"my key\" != true }").toString());
        assertEquals("{ duration >= 0s || duration < 2h || status = 7 }",
                spans("{ duration >= 0ns || duration < 120m || status = 7 }").toString());
        assertEquals("{ severity >= 13 && log.msg = \"a\\\"\\\\\\n\\u0001\" }",
                logs("{ severity >= warn && log.msg = \"a\\\"\\\\\\n\\u0001\" }").toString());
        assertEquals("{ }", spans("{}").toString());
    }

    /** Every kind of error: where it is reported and what it says. */
    @ParameterizedTest
    @CsvSource(delimiter = '#', quoteCharacter = '`', value = {
        "`` # 0 # expected '{', found the end of the query",
        ".a = 1 # 0 # expected '{', found '.a'",
        "{ .a = 1 # 8 # expected '&&', '||' or '}', found the end of the query",
        "{ .a = 1 } x # 11 # expected the end of the query, found 'x'",
        "{ .a = 1 } } # 11 # expected the end of the query, found '}'",
        "{ .a 1 } # 5 # expected an operator (=, !=, <, <=, >, >=, =~, !~), found '1'",
        "{ .a ! 1 } # 5 # expected an operator (=, !=, <, <=, >, >=, =~, !~), found '!'",
        "{ .a == 1 } # 6 # expected a literal (a \"string\", a number, true or false), found '='",
        "{ span.foo = && .b = 1 } # 13 # expected a literal (a \"string\", a number, true or false), found '&&'",
        "{ .a = } # 7 # expected a literal (a \"string\", a number, true or false), found '}'",
        "{ .a = maybe } # 7 # expected a literal (a \"string\", a number, true or false), found 'maybe'",
        "{ .a = 5abc } # 7 # expected a literal (a \"string\", a number, true or false), found '5abc'",
        "{ .a = - } # 7 # expected a literal (a \"string\", a number, true or false), found '-'",
        "{ .a = 2s } # 7 # a duration such as '2s' compares only with duration, not with attributes",
        "{ = 1 } # 2 # expected a condition: an attribute (resource.<key>, span.<key>, instrumentation.<key>, .<key>) or an intrinsic (name, status, kind, duration, statusMessage), found '='",
        "{ .a = 1 && } # 12 # expected a condition: an attribute (resource.<key>, span.<key>, instrumentation.<key>, .<key>) or an intrinsic (name, status, kind, duration, statusMessage), found '}'",
        "{ () } # 3 # expected a condition: an attribute (resource.<key>, span.<key>, instrumentation.<key>, .<key>) or an intrinsic (name, status, kind, duration, statusMessage), found ')'",
        "{ \"a\" = 1 } # 2 # expected a condition: an attribute (resource.<key>, span.<key>, instrumentation.<key>, .<key>) or an intrinsic (name, status, kind, duration, statusMessage), found '\"a\"'",
        "{ foo = 1 } # 2 # unknown intrinsic 'foo'; spans have name, status, kind, duration, statusMessage, and attributes are written like .foo or span.foo",
        "{ severity = 1 } # 2 # 'severity' is a field of logs, not of spans; spans have name, status, kind, duration, statusMessage, and attributes are written like .severity or span.severity",
        "{ foo.bar = 1 } # 2 # unknown scope 'foo.': expected resource., span., instrumentation., scope. or . (any)",
        "{ log.x = 1 } # 2 # spans have no log. attributes: use span.<key> or .<key>",
        "{ span. = 1 } # 7 # expected an attribute key after 'span.' (letters, digits, . - _ / or a \"quoted key\"), found a space",
        "{ . = 1 } # 3 # expected an attribute key after '.' (letters, digits, . - _ / or a \"quoted key\"), found a space",
        "{ .a = \"abc } # 7 # unterminated string: no closing '\"'",
        "{ .a = \"abc\\ # 7 # unterminated string: no closing '\"'",
        "{ .a = \"a\\qb\" } # 9 # unknown escape '\\q': expected \\\", \\\\, \\n, \\r, \\t or \\uXXXX",
        "{ .a = \"\\u12\" } # 8 # expected four hex digits after '\\u'",
        "{ .a = \"\\u+123\" } # 8 # expected four hex digits after '\\u'",
        "{ .a = 9223372036854775808 } # 7 # integer 9223372036854775808 is outside the int64 range; write 9223372036854775808.0 to compare as a double",
        "{ .a = -9223372036854775809 } # 7 # integer -9223372036854775809 is outside the int64 range; write -9223372036854775809.0 to compare as a double",
        "{ .a = 1e999 } # 7 # number 1e999 is outside the double range",
        "{ .a < true } # 5 # true and false are not ordered: compare them with = or !=",
        "{ .a >= false } # 5 # true and false are not ordered: compare them with = or !=",
        "{ .a = 1.5.5 } # 10 # expected '&&', '||' or '}', found '.5'",
        "{ .a = 1 & .b = 2 } # 9 # expected '&&', '||' or '}', found '&'",
        "{ (.a = 1 } # 10 # expected '&&', '||' or ')', found '}'",
        "{ .a = 1 ) } # 9 # expected '&&', '||' or '}', found ')'",
        "{ duration > 2 } # 13 # expected a duration (such as 2s, 150ms or 1.5h), found '2'",
        "{ duration > \"2s\" } # 13 # expected a duration (such as 2s, 150ms or 1.5h), found '\"2s\"'",
        "{ duration > 2parsecs } # 14 # unknown duration unit 'parsecs': expected h, m, s, ms, us, ns",
        "{ duration > 1.5ns } # 13 # duration '1.5ns' is not a whole number of nanoseconds within the int64 range",
        "{ duration > 2562048h } # 13 # duration '2562048h' is not a whole number of nanoseconds within the int64 range",
        "{ duration > 1e999999999s } # 13 # duration '1e999999999s' is not a whole number of nanoseconds within the int64 range",
        "{ duration > 1e-999999999s } # 13 # duration '1e-999999999s' is not a whole number of nanoseconds within the int64 range",
        "{ duration > 1e9999999999s } # 13 # duration '1e9999999999s' is not a whole number of nanoseconds within the int64 range",
        "{ status = great } # 11 # expected a status (ok, error or unset), found 'great'",
        "{ status = 1.0 } # 11 # expected a status (ok, error or unset), found '1.0'",
        "{ kind = 1.5 } # 9 # expected a span kind (unspecified, internal, server, client, producer, consumer), found '1.5'",
        "{ kind = \"server\" } # 9 # expected a span kind (unspecified, internal, server, client, producer, consumer), found '\"server\"'",
        "{ name = 5 } # 9 # expected a \"string\" (the span name), found '5'",
        "{ name = true } # 9 # expected a \"string\" (the span name), found 'true'",
        "{ .a =~ 1 } # 8 # expected a \"regular expression\" in quotes, found '1'",
        "{ .a !~ } # 8 # expected a \"regular expression\" in quotes, found '}'",
        "{ .a =~ \"(ab\" } # 8 # invalid regular expression \"(ab\": Unclosed group at index 3 of the pattern",
        "{ .a =~ \"a[\" } # 8 # invalid regular expression \"a[\": Unclosed character class at index 1 of the pattern",
        "{ name !~ \"*x\" } # 10 # invalid regular expression \"*x\": Dangling meta character '*' at index 0 of the pattern",
        "{ status =~ \"ok\" } # 9 # =~ and !~ match strings, and status is not one: compare it with = or !=",
        "{ duration !~ \"1s\" } # 11 # =~ and !~ match strings, and duration is not one: compare it with = or !=",
        "{ traceDuration =~ \"1s\" } # 16 # =~ and !~ match strings, and trace:duration is not one: compare it with = or !=",
        "{ span:severity = 1 } # 2 # 'severity' is a field of logs, not of spans; spans have name, status, kind, duration, statusMessage, and attributes are written like .severity or span.severity",
        "{ trace:root = \"x\" } # 2 # unknown trace field 'trace:root'; traces have trace:rootService, trace:rootName, trace:duration",
        "{ event:time = 1 } # 2 # unknown event field 'event:time'; events are matched by event:name",
        "{ link:name = \"x\" } # 2 # unknown scope 'link:': expected span:, trace: or event: (or an attribute scope such as resource.)",
        "{ rootServiceName = 1 } # 20 # expected a \"string\" (the rootService of the trace), found '1'",
        "{ trace:duration > \"1s\" } # 19 # expected a duration (such as 2s, 150ms or 1.5h), found '\"1s\"'",
        "{ statusMessage = error } # 18 # expected a \"string\" (the status message), found 'error'",
        "{ event:name > 5 } # 15 # expected a \"string\" (an event name), found '5'",
    })
    void parse_spanErrors(String query, int position, String message) {
        QueryParseException e = assertThrows(QueryParseException.class, () -> spans(query));
        assertEquals("at " + position + ": " + message, e.getMessage());
        assertEquals(position, e.position());
    }

    @ParameterizedTest
    @CsvSource(delimiter = '#', quoteCharacter = '`', value = {
        "{ span.x = 1 } # 2 # logs have no span. attributes: use log.<key> or .<key>",
        "{ span:name = \"x\" } # 2 # span:name is a field of spans, not of logs",
        "{ traceDuration > 1s } # 2 # log records belong to no trace: trace:duration",
        "{ event:name = \"x\" } # 2 # log records have no events: event:name",
        "{ duration > 2s } # 2 # 'duration' is a field of spans, not of logs; logs have severity, and attributes are written like .duration or log.duration",
        "{ name = \"x\" } # 2 # 'name' is a field of spans, not of logs; logs have severity, and attributes are written like .name or log.name",
        "{ kind = server } # 2 # 'kind' is a field of spans, not of logs; logs have severity, and attributes are written like .kind or log.kind",
        "{ status = ok } # 2 # 'status' is a field of spans, not of logs; logs have severity, and attributes are written like .status or log.status",
        "{ severity = 25 } # 13 # expected a severity (a number from 0 to 24, or trace, debug, info, warn, error, fatal), found '25'",
        "{ severity = -1 } # 13 # expected a severity (a number from 0 to 24, or trace, debug, info, warn, error, fatal), found '-1'",
        "{ severity = warning } # 13 # expected a severity (a number from 0 to 24, or trace, debug, info, warn, error, fatal), found 'warning'",
        "{ severity = 1s } # 13 # expected a severity (a number from 0 to 24, or trace, debug, info, warn, error, fatal), found '1s'",
        "{ = 1 } # 2 # expected a condition: an attribute (resource.<key>, log.<key>, instrumentation.<key>, .<key>) or an intrinsic (severity), found '='",
    })
    void parse_logErrors(String query, int position, String message) {
        QueryParseException e = assertThrows(QueryParseException.class, () -> logs(query));
        assertEquals("at " + position + ": " + message, e.getMessage());
    }

    @Test
    void parse_boundsNesting() {
        String tooDeep = "(".repeat(QueryParser.MAX_DEPTH + 1) + ".a = 1" + ")".repeat(QueryParser.MAX_DEPTH + 1);
        QueryParseException e = assertThrows(QueryParseException.class, () -> spans("{ " + tooDeep + " }"));
        assertEquals("at " + (2 + QueryParser.MAX_DEPTH) + ": parentheses nested deeper than 100", e.getMessage());
        // A hostile depth is an error, not a StackOverflowError.
        assertThrows(QueryParseException.class, () -> spans("{ " + "(".repeat(1_000_000)));
    }

    @Test
    void parse_longFoundTextIsShortened() {
        QueryParseException e = assertThrows(QueryParseException.class, () -> spans("{ .a = " + "x".repeat(100) + " }"));
        assertEquals("at 7: expected a literal (a \"string\", a number, true or false), found '" + "x".repeat(32) + "…'",
                e.getMessage());
    }

    @Test
    void constructors_rejectNonCanonicalTrees() {
        Condition a = any("a", 1);
        assertThrows(IllegalArgumentException.class, () -> new And(List.of(a)));
        assertThrows(IllegalArgumentException.class, () -> new Or(List.of(a, new MatchAll())));
        assertThrows(IllegalArgumentException.class, () -> new Condition(new Attribute(S, Scope.INTRINSIC, "duration"),
                Op.EQ, new DoubleLit(1.0)));
        assertThrows(IllegalArgumentException.class, () -> new Condition(new Attribute(S, Scope.INTRINSIC, "name"),
                Op.EQ, new IntLit(1)));
        assertThrows(IllegalArgumentException.class, () -> new Attribute(L, Scope.INTRINSIC, "duration"));
        assertThrows(IllegalArgumentException.class, () -> new DoubleLit(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> new DoubleLit(Double.POSITIVE_INFINITY));
    }
}
