package dev.needle.query.logql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.logql.pipeline.LabelFilter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Metric queries, most from Loki's {@code docs/sources/query/metric_queries.md} and {@code query_examples.md}. */
class LogQlMetricParserTest {

    private static MetricExpr metric(String query) throws LogQlParseException {
        return assertInstanceOf(LogQl.Metric.class, LogQlParser.parse(query)).expr();
    }

    @Test
    void parse_countOverTime_rangeAndSelector() throws Exception {
        MetricExpr.Range r = assertInstanceOf(MetricExpr.Range.class, metric("count_over_time({job=\"mysql\"}[5m])"));
        assertEquals(MetricExpr.RangeOp.COUNT, r.op());
        assertEquals(Duration.ofMinutes(5).toNanos(), r.rangeNanos());
        assertEquals(0, r.offsetNanos());
        assertEquals("{job=\"mysql\"}", r.log().toString());
        assertNull(r.unwrap());
        assertNull(r.grouping());
    }

    @Test
    void parse_offsetAfterTheRange() throws Exception {
        MetricExpr.Range r = (MetricExpr.Range) metric("count_over_time({job=\"mysql\"}[5m] offset 5m)");
        assertEquals(Duration.ofMinutes(5).toNanos(), r.offsetNanos());
    }

    @Test
    void parse_sumByRateWithPipeline_groupsTheVectorAggregation() throws Exception {
        MetricExpr.Vector v = (MetricExpr.Vector) metric(
                "sum by (host) (rate({job=\"mysql\"} |= \"error\" != \"timeout\" | json | duration > 10s [1m]))");
        assertEquals(MetricExpr.VectorOp.SUM, v.op());
        assertEquals(new MetricExpr.Grouping(false, List.of("host")), v.grouping());
        MetricExpr.Range r = (MetricExpr.Range) v.inner();
        assertEquals(MetricExpr.RangeOp.RATE, r.op());
        assertEquals(4, r.log().pipeline().size());
        assertEquals(Duration.ofMinutes(1).toNanos(), r.rangeNanos());
    }

    @Test
    void parse_exploresLogVolume_groupingAfterAndDropBeforeTheRange() throws Exception {
        MetricExpr.Vector v = (MetricExpr.Vector) metric(
                "sum by (level, detected_level) (count_over_time({service_name=\"cart\"} | drop __error__ [1m]))");
        assertEquals(List.of("level", "detected_level"), v.grouping().labels());
        MetricExpr.Range r = (MetricExpr.Range) v.inner();
        assertEquals("{service_name=\"cart\"} | drop __error__", r.log().toString());
    }

    @Test
    void parse_unwrapWithConversionAndFilterAfter_groupedWithout() throws Exception {
        MetricExpr.Range r = (MetricExpr.Range) metric("quantile_over_time(0.99, {cluster=\"ops-tools1\",container="
                + "\"ingress-nginx\"} | json | __error__ = \"\" | unwrap duration(request_time) | __error__=\"\" [1m])"
                + " without (path)");
        assertEquals(MetricExpr.RangeOp.QUANTILE, r.op());
        assertEquals(0.99, r.param());
        assertEquals(new MetricExpr.Unwrap("request_time", MetricExpr.Conversion.DURATION,
                List.of(new LabelFilter(new LabelFilter.Match(LogQl.Matcher.of("__error__", LogQl.MatchOp.EQ, ""))))),
                r.unwrap());
        assertEquals(2, r.log().pipeline().size());
        assertEquals(new MetricExpr.Grouping(true, List.of("path")), r.grouping());
    }

    @Test
    void parse_rangeBeforeThePipeline_andParenthesizedLogQuery() throws Exception {
        MetricExpr.Range before = (MetricExpr.Range) metric("sum_over_time({a=\"b\"}[1m] | logfmt | unwrap bytes(size))");
        assertEquals(MetricExpr.Conversion.BYTES, before.unwrap().conversion());
        assertEquals(1, before.log().pipeline().size());
        MetricExpr.Range paren = (MetricExpr.Range) metric("count_over_time(({a=\"b\"} |= \"x\")[10s])");
        assertEquals(Duration.ofSeconds(10).toNanos(), paren.rangeNanos());
        assertEquals(1, paren.log().pipeline().size());
    }

    @Test
    void parse_topkWithGroupingBefore_andVectorFallback() throws Exception {
        MetricExpr.Binary or = (MetricExpr.Binary) metric(
                "topk by (region) (10, sum by (region) (rate({region=\"us-east1\"}[5m]))) or vector(0)");
        assertEquals(MetricExpr.BinaryOp.OR, or.op());
        MetricExpr.Vector topk = (MetricExpr.Vector) or.left();
        assertEquals(MetricExpr.VectorOp.TOPK, topk.op());
        assertEquals(10, topk.k());
        assertEquals(new MetricExpr.Grouping(false, List.of("region")), topk.grouping());
        assertEquals(new MetricExpr.VectorOf(0), or.right());
    }

    @Test
    void parse_binaryPrecedence_divisionBeforeComparison() throws Exception {
        MetricExpr.Binary gt = (MetricExpr.Binary) metric("sum(rate({app=\"foo\", level=\"error\"}[1m]))"
                + " / sum(rate({app=\"foo\"}[1m])) > bool 0.5");
        assertEquals(MetricExpr.BinaryOp.GT, gt.op());
        assertEquals(true, gt.bool());
        assertEquals(MetricExpr.BinaryOp.DIV, ((MetricExpr.Binary) gt.left()).op());
        assertEquals(new MetricExpr.Number(0.5), gt.right());
    }

    @Test
    void parse_vectorMatching_onWithGroupLeft() throws Exception {
        MetricExpr.Binary b = (MetricExpr.Binary) metric("sum by (a, b) (count_over_time({x=\"1\"}[1m]))"
                + " * on (a) group_left (c) sum by (a, c) (count_over_time({x=\"2\"}[1m]))");
        assertEquals(new MetricExpr.Matching(true, List.of("a"), 'l', List.of("c")), b.matching());
        MetricExpr.Binary unless = (MetricExpr.Binary) metric(
                "rate({x=\"1\"}[1m]) unless ignoring (y) rate({x=\"2\"}[1m])");
        assertEquals(new MetricExpr.Matching(false, List.of("y"), '1', List.of()), unless.matching());
    }

    @Test
    void parse_labelReplace() throws Exception {
        MetricExpr.LabelReplace l = (MetricExpr.LabelReplace) metric(
                "label_replace(rate({job=\"api-server\",service=\"a:c\"} |= \"err\" [5m]), \"foo\", \"$1\", \"service\","
                        + " \"(.*):.*\")");
        assertEquals("foo", l.dst());
        assertEquals("$1", l.replacement());
        assertEquals("service", l.src());
        assertEquals(true, l.regex().matcher("a:c").matches());
    }

    @Test
    void parse_approxTopk_takesAWholeK_andNoGrouping() throws Exception {
        MetricExpr.Vector v = (MetricExpr.Vector) metric("approx_topk(2, sum by (c) (rate({a=\"b\"}[5m])))");
        assertEquals(MetricExpr.VectorOp.APPROX_TOPK, v.op());
        assertEquals(2, v.k());
        assertNull(v.grouping());
        String grouped = assertThrows(LogQlParseException.class,
                () -> metric("approx_topk(2, rate({a=\"b\"}[5m])) by (c)")).getMessage();
        assertTrue(grouped.contains("grouping not allowed for approx_topk aggregation"), grouped);
        assertThrows(LogQlParseException.class, () -> metric("approx_topk(1.5, rate({a=\"b\"}[5m]))"));
        assertThrows(LogQlParseException.class, () -> metric("approx_topk(rate({a=\"b\"}[5m]))"));
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "rate({a=\"b\"}[5m])",
        "bytes_over_time({a=\"b\"}[5m])",
        "bytes_rate({a=\"b\"}[5m])",
        "absent_over_time({a=\"b\"}[5m])",
        "sum_over_time({a=\"b\"} | unwrap n [5m])",
        "avg_over_time({a=\"b\"} | unwrap n [5m]) by (c)",
        "min_over_time({a=\"b\"} | unwrap n [5m]) by (c)",
        "max_over_time({a=\"b\"} | unwrap n [5m]) without (c)",
        "first_over_time({a=\"b\"} | unwrap n [5m])",
        "last_over_time({a=\"b\"} | unwrap n [5m])",
        "stddev_over_time({a=\"b\"} | unwrap duration_seconds(d) [5m])",
        "stdvar_over_time({a=\"b\"} | unwrap n [5m])",
        "rate_counter({a=\"b\"} | unwrap n [5m])",
        "rate({a=\"b\"} | unwrap n [5m])",
        "avg(rate({a=\"b\"}[5m]))",
        "min without (c) (rate({a=\"b\"}[5m]))",
        "max(rate({a=\"b\"}[5m])) by (c)",
        "count(rate({a=\"b\"}[5m]))",
        "stddev(rate({a=\"b\"}[5m]))",
        "stdvar(rate({a=\"b\"}[5m]))",
        "bottomk(2, rate({a=\"b\"}[5m]))",
        "sort(rate({a=\"b\"}[5m]))",
        "sort_desc(rate({a=\"b\"}[5m]))",
        "-rate({a=\"b\"}[5m]) % 2 ^ 2 - 1",
        "rate({a=\"b\"}[5m]) == 1 or rate({a=\"b\"}[5m]) != bool 1",
        "rate({a=\"b\"}[5m]) >= 1 and rate({a=\"b\"}[5m]) <= 2 unless rate({a=\"b\"}[5m]) < 1",
        "1 > bool 2",
    })
    void parse_everyConstruct(String query) throws Exception {
        metric(query);
    }
}
