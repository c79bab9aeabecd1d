package dev.needle.query.logql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        assertEquals(new LogQl.LabelFilter(List.of(LogQl.Matcher.of("trace_id", LogQl.MatchOp.EQ, "0af7"))),
                q.pipeline().get(4));
        assertEquals("{app=\"a\"} |= \"error\" != \"debug\" |~ \"time(out)?\" !~ \"^GET\" | trace_id=\"0af7\""
                + " | level!=\"info\"", q.toString());
    }

    @Test
    void parse_grafanasTraceToLogsQuery_labelFormatAndAlternatives() throws Exception {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{service_name=\"cart\"} | label_format"
                + " log_line_contains_trace_id=`{{ contains \"" + trace + "\" __line__  }}` | log_line_contains_trace_id=\"true\""
                + " OR trace_id=\"" + trace + "\"");
        assertEquals(List.of(new LogQl.LineContainsLabel("log_line_contains_trace_id", trace),
                new LogQl.LabelFilter(List.of(LogQl.Matcher.of("log_line_contains_trace_id", LogQl.MatchOp.EQ, "true"),
                        LogQl.Matcher.of("trace_id", LogQl.MatchOp.EQ, trace)))), q.pipeline());
        assertEquals("{service_name=\"cart\"} | label_format log_line_contains_trace_id=`{{ contains \"" + trace
                + "\" __line__ }}` | log_line_contains_trace_id=\"true\" or trace_id=\"" + trace + "\"", q.toString());
    }

    @Test
    void parse_goEscapes_areDecoded() throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{a=\"x\"} |= \"tab\\there \\\"q\\\" \\u00e9\\\\\"");
        assertEquals("tab\there \"q\" é\\", ((LogQl.LineFilter) q.pipeline().get(0)).text());
    }

    @Test
    void matchers_labelRegexIsAnchored_lineRegexIsNot() throws Exception {
        LogQl.LogQuery q = (LogQl.LogQuery) LogQlParser.parse("{a=~\"che.*\"} |~ \"out\"");
        assertTrue(q.selector().get(0).test("checkout"));
        assertFalse(q.selector().get(0).test("a checkout"));
        assertTrue(((LogQl.LineFilter) q.pipeline().get(0)).regex().matcher("a timeout here").find());
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
        "{a=\"x\"} | json;                   col 11: the | json stage is not supported by needle",
        "{a=\"x\"} | logfmt | b=\"c\";       col 11: the | logfmt stage is not supported",
        "{a=\"x\"} | status >= 400;          col 18: numeric and duration comparisons are not supported",
        "{a=\"x\"} |= \"a\" or \"b\";        col 16: combining line filters with or is not supported",
        "{a=\"x\"} | b=\"1\" and c=\"2\";    col 17: combining label filters with and is not supported",
        "{a=\"x\"} | label_format b=`{{ .c }}`; col 11: label_format is supported by needle only as name=",
        "{a=\"x\"} | label_format b=`{{ contains \"x\" __line__ }}`, c=`y`; col 55: label_format with several labels",
        "{a=\"x\"} |~ \"(\";                 col 12: invalid regex \"(\": Unclosed group",
        "{a=~\"[\"};                         col 5: invalid regex \"[\" for a",
        "{a=\"x\"} |= \"\\q\";               col 13: syntax error: unknown escape \\q",
        "{a=\"x\"} |= \"open;                col 12: syntax error: the string is not closed",
        "{1a=\"x\"};                         col 2: syntax error: unexpected \"1a=\\\"x\\\"}\", expected a label name",
        "{a:\"x\"};                          col 3: syntax error: unexpected \":\\\"x\\\"}\" after label a, expected =, !=, =~ or !~",
        "{a=\"x\"} foo;                      col 9: syntax error: unexpected \"foo\", expected a line filter",
        "count_over_time({a=\"x\"}[5m]);     col 1: metric queries are not supported by needle",
        "sum(rate({a=\"x\"}[1m]));           col 1: metric queries are not supported",
        "vector(1)+;                         col 11: syntax error: unexpected end of query",
        "vector(1) vector(1);                col 11: syntax error: unexpected \"vector(1)\"",
    })
    void parse_badQueries_sayWhatAndWhere(String query, String expected) {
        LogQlParseException e = assertThrows(LogQlParseException.class, () -> LogQlParser.parse(query));
        assertTrue(e.getMessage().contains(expected.trim()), () -> query + " -> " + e.getMessage());
    }
}
