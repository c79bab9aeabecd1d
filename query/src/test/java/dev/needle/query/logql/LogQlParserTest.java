package dev.needle.query.logql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.query.logql.pipeline.LabelFilter;
import dev.needle.query.logql.pipeline.LineFilter;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class LogQlParserTest {

    @Test
    void parse_selectorWithEveryOperator_keepsEachMatcher() throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse(
                "{service_name=\"checkout\", k8s_pod_name!=\"a\",env=~\"prod|dev\" , zone!~`eu-.*`}");
        assertEquals(List.of(LogQl.MatchOp.EQ, LogQl.MatchOp.NE, LogQl.MatchOp.RE, LogQl.MatchOp.NRE),
                q.selector().stream().map(LogQl.Matcher::op).toList());
        assertEquals("eu-.*", q.selector().get(3).value());
        assertEquals("{service_name=\"checkout\", k8s_pod_name!=\"a\", env=~\"prod|dev\", zone!~\"eu-.*\"}", q.toString());
    }

    @Test
    void parse_chainedLineAndLabelFilters_keepTheirOrder() throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse(
                "{app=\"a\"} |= \"error\" != \"debug\" |~ \"time(out)?\" !~ `^GET` | trace_id=\"0af7\" | level!=\"info\"");
        assertEquals(6, q.pipeline().size());
        assertEquals(new LabelFilter(new LabelFilter.Match(LogQl.Matcher.of("trace_id", LogQl.MatchOp.EQ, "0af7"))),
                q.pipeline().get(4));
        assertEquals("{app=\"a\"} |= \"error\" != \"debug\" |~ \"time(out)?\" !~ \"^GET\" | trace_id=\"0af7\""
                + " | level!=\"info\"", q.toString());
    }

    @Test
    void parse_grafanasTraceToLogsQuery_labelFormatTemplateAndAlternatives() throws Exception {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{service_name=\"cart\"} | label_format"
                + " log_line_contains_trace_id=`{{ contains \"" + trace + "\" __line__  }}` | log_line_contains_trace_id=\"true\""
                + " OR trace_id=\"" + trace + "\"");
        assertEquals(2, q.pipeline().size());
        assertEquals(new LabelFilter(new LabelFilter.Or(
                new LabelFilter.Match(LogQl.Matcher.of("log_line_contains_trace_id", LogQl.MatchOp.EQ, "true")),
                new LabelFilter.Match(LogQl.Matcher.of("trace_id", LogQl.MatchOp.EQ, trace)))), q.pipeline().get(1));
        assertEquals("{service_name=\"cart\"} | label_format log_line_contains_trace_id=\"{{ contains \\\"" + trace
                + "\\\" __line__  }}\" | ( log_line_contains_trace_id=\"true\" or trace_id=\"" + trace + "\" )", q.toString());
    }

    @Test
    void parse_everyStage_printsAsLokiWritesIt() throws Exception {
        String query = "{a=\"x\"} | json | json first=\"servers[0]\", ua | logfmt --strict --keep-empty host=\"host\""
                + " | regexp \"(?P<m>\\\\w+)\" | pattern \"<ip> <_>\" | unpack | decolorize | line_format \"{{.m}}\""
                + " | label_format dst=src | drop a,b=\"1\" | keep c |= \"a\" or \"b\" |= ip(\"10.0.0.0/8\") |> \"<_> x\" !> \"y <_>\"";
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse(query);
        assertEquals(15, q.pipeline().size());
        assertEquals(query.replace(", ua |", ", ua=\"ua\" |"), q.toString());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        // and binds closer than or; a comma and a space are and
        "| duration >= 20ms or size == 20KB and method!~\"2..\"; ( duration>=20000000ns or ( size==20000B , method!~\"2..\" ) )",
        "| duration >= 20ms or size == 20KB , method!~\"2..\"; ( duration>=20000000ns or ( size==20000B , method!~\"2..\" ) )",
        "| duration >= 20ms or size == 20KB  method!~\"2..\"; ( duration>=20000000ns or ( size==20000B , method!~\"2..\" ) )",
        "| (duration >= 20ms or size == 20KB) and method!~\"2..\"; ( ( duration>=20000000ns or size==20000B ) , method!~\"2..\" )",
        "| status >= 400 and status < 500.5; ( status>=400 , status<500.5 )",
        "| status = 200; status==200",
        "| size > 1.5KiB; size>1536B",
        "| latency > 1h30m; latency>5400000000000ns",
        "| addr = ip(\"192.168.0.0/16\"); addr=ip(\"192.168.0.0/16\")",
        "| addr != ip(\"10.0.0.1-10.0.0.9\"); addr!=ip(\"10.0.0.1-10.0.0.9\")",
    })
    void parse_labelFilterExpressions_groupAsLoki(String filter, String expected) throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{a=\"x\"} " + filter);
        assertEquals("| " + expected.trim(), q.pipeline().get(0).toString());
    }

    @Test
    void parse_goEscapes_areDecoded() throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{a=\"x\"} |= \"tab\\there \\\"q\\\" \\u00e9\\\\\"");
        assertEquals("tab\there \"q\" é\\", ((LineFilter) q.pipeline().get(0)).anyOf().get(0).text());
    }

    @Test
    void matchers_labelRegexIsAnchored_lineRegexIsNot() throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{a=~\"che.*\"} |~ \"out\"");
        assertTrue(q.selector().get(0).test("checkout"));
        assertFalse(q.selector().get(0).test("a checkout"));
        assertTrue(((LineFilter) q.pipeline().get(0)).test("a timeout here"));
    }

    @Test
    void matchers_missingLabelIsEmpty_asInLoki() throws Exception {
        LogQl.Matcher ne = LogQl.Matcher.of("x", LogQl.MatchOp.NE, "a");
        LogQl.Matcher empty = LogQl.Matcher.of("x", LogQl.MatchOp.EQ, "");
        assertTrue(ne.test(""));
        assertTrue(empty.test(""));
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "vector(1)+vector(1); 2; true",
        "vector(1) + vector(1); 2; true",
        "1+1; 2; false",
        "2 * (vector(3) - 1) / 4; 1; true",
        "2 ^ 3 ^ 2; 512; false",
        "-vector(2) % 3; -2; true",
    })
    void parse_constants_evaluate(String query, double value, boolean vector) throws Exception {
        LogQl.Constant c = assertInstanceOf(LogQl.Constant.class, LogQlParser.parse(query));
        assertEquals(value, c.value());
        assertEquals(vector, c.vector());
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "'';                                 syntax error: empty query",
        "{};                                 queries require at least one regexp or equality matcher",
        "{a=~\".*\"};                        queries require at least one regexp or equality matcher",
        "{a!=\"x\"};                         queries require at least one regexp or equality matcher",
        "{a=\"x\";                           col 7: syntax error: unexpected end of query, expected }",
        "{a=\"x\"} |= error;                 col 12: syntax error: unexpected \"error\", expected a quoted string",
        "{a=\"x\"} | json a=\"b..c\";        col 18: cannot parse expression [b..c]: syntax error: a field name must follow .",
        "{a=\"x\"} | logfmt --lax;            col 18: invalid logfmt flag \"--lax\"",
        "{a=\"x\"} | status >= \"400\";      col 21: syntax error: unexpected \"\\\"400\\\"\", expected a number, duration or size after status>=",
        "{a=\"x\"} | status > 4xx;            col 20: syntax error: \"4xx\" is not a number, a duration (5s, 1h30m) or a size",
        "{a=\"x\"} | status =~ 400;           col 21: syntax error: unexpected \"400\", expected a quoted string after status=~",
        "{a=\"x\"} | b=\"1\" and;            col 20: syntax error: unexpected end of query, expected a label filter (name op value)",
        "{a=\"x\"} | regexp \"(\\\\w+)\";     col 18: at least one named capture must be supplied",
        "{a=\"x\"} | pattern \"<a><b>\";      col 19: found consecutive capture '<a><b>': invalid expression",
        "{a=\"x\"} | pattern \"<_> x\";       col 19: at least one capture is required",
        "{a=\"x\"} |> \"<a> x\";              col 12: named captures are not allowed",
        "{a=\"x\"} |= ip(\"300.1.1.1\");      col 12: ip: invalid pattern: 300.1.1.1",
        "{a=\"x\"} |~ ip(\"10.0.0.1\");       col 12: ip(…) filters the line only with |= or !=",
        "{a=\"x\"} | line_format \"{{.a\";    col 23: invalid line template: template: line:1: unclosed action",
        "{a=\"x\"} | line_format \"{{ fromJson .a }}\"; col 23: invalid line template: template: line:1: function \"fromJson\" is not supported by needle's templates",
        "{a=\"x\"} | line_format \"{{ nope .a }}\"; col 23: invalid line template: template: line:1: function \"nope\" not defined",
        "{a=\"x\"} | label_format b=`{{ .c }}`, b=c; col 11: multiple label name 'b' not allowed in a single format operation",
        "{a=\"x\"} | label_format __error__=c; col 11: __error__ cannot be formatted",
        "{service_name=\"cart\"} | line_format \"{{ fromJson .x }}\"; col 37: invalid line template: template: line:1: function \"fromJson\" is not supported by needle's templates",
        "{a=\"x\"} | unwrap latency;          col 11: syntax error: | unwrap belongs in a range aggregation",
        "{a=\"x\"} |~ \"(\";                 col 12: invalid regex \"(\": Unclosed group",
        "{a=~\"[\"};                         col 5: invalid regex \"[\" for a",
        "{a=\"x\"} |= \"\\q\";               col 13: syntax error: unknown escape \\q",
        "{a=\"x\"} |= \"open;                col 12: syntax error: the string is not closed",
        "{1a=\"x\"};                         col 2: syntax error: unexpected \"1a=\\\"x\\\"}\", expected a label name",
        "{a:\"x\"};                          col 3: syntax error: unexpected \":\\\"x\\\"}\" after label a, expected =, !=, =~ or !~",
        "{a=\"x\"} foo;                      col 9: syntax error: unexpected \"foo\", expected a line filter",
        "sum_over_time({a=\"x\"}[5m]);       col 1: invalid aggregation sum_over_time without unwrap",
        "count_over_time({a=\"x\"} | unwrap b [5m]); col 1: invalid aggregation count_over_time with unwrap",
        "rate({a=\"x\"}[5m]) by (a);          col 1: grouping not allowed for rate aggregation",
        "sort by (a) (rate({a=\"x\"}[5m]));  col 1: grouping not allowed for sort aggregation",
        "count_over_time({a=\"x\"});         col 24: syntax error: unexpected \")\", expected a range such as [5m]",
        "count_over_time({a=\"x\"}[0s]);     col 28: syntax error: the range must be more than zero",
        "avg_over_time({a=\"x\"} | unwrap b | json [1m]); col 36: syntax error: only label filters may follow | unwrap",
        "topk(0, rate({a=\"x\"}[5m]));       col 6: syntax error: invalid parameter for topk",
        "1 > 2;                              col 3: comparisons between scalars must use BOOL modifier",
        "vector(1) and 1;                    col 11: set operator and not allowed in binary scalar expression",
        "vector(1) + bool vector(1);         col 11: bool modifier can only be used on comparison operators",
        "1 + on(a) vector(1);                col 3: vector matching only allowed between instant vectors",
        "{a=\"x\"} + 1;                       col 9: syntax error: unexpected \"+ 1\"",
        "1 + {a=\"x\"};                       col 5: syntax error: a log query is not a number",
        "foo({a=\"x\"}[1m]);                 col 1: syntax error: unexpected IDENTIFIER \"foo\"",
        "vector(1)+;                         col 11: syntax error: unexpected end of query",
        "vector(1) vector(1);                col 11: syntax error: unexpected \"vector(1)\"",
    })
    void parse_badQueries_sayWhatAndWhere(String query, String expected) {
        LogQlParseException e = assertThrows(LogQlParseException.class, () -> LogQlParser.parse(query));
        assertTrue(e.getMessage().contains(expected.trim()), () -> query + " -> " + e.getMessage());
    }
}
