package dev.needle.query.logql.metric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.LokiEntry;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Metric queries over entries with known times and labels; each expected value worked out by hand from
 * Loki's semantics: a range aggregation at t reads the entries in (t - offset - range, t - offset].
 */
class MetricEvalTest {

    private static final long S = 1_000_000_000L;
    private static final long[] STEPS = {60 * S, 120 * S, 180 * S};

    private static LokiEntry entry(long seconds, String line, String app, String level) {
        return new LokiEntry(seconds * S, line, Map.of("app", app), Map.of("level", level), Map.of("level", level),
                Map.of());
    }

    /** app=a at 10s, 30s, 60s (info, info, error), 61s (error), 130s (info); app=b at 20s. */
    private static final List<LokiEntry> ENTRIES = List.of(
            entry(10, "latency=1 size=10KB", "a", "info"),
            entry(30, "latency=2 size=1KB", "a", "info"),
            entry(60, "latency=3", "a", "error"),
            entry(61, "latency=4s", "a", "error"),
            entry(130, "latency=x", "a", "info"),
            entry(20, "b", "b", "info"));

    /** Each series (its labels as {a="1"}) with its points as "seconds=value", in the answer's order. */
    private static Map<String, List<String>> eval(String query, long... times) throws Exception {
        MetricExpr e = ((LogQl.Metric) LogQlParser.parse(query)).expr();
        MetricEval.Value v = new MetricEval(times, times.length == 1, (log, from, to, visit) -> ENTRIES.forEach(visit))
                .eval(e);
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (MetricEval.Series s : v.series()) {
            List<String> points = new ArrayList<>();
            for (int i = 0; i < times.length; i++) {
                if (s.has()[i]) {
                    points.add(times[i] / S + "=" + LokiEntry.number(s.values()[i]));
                }
            }
            out.put(MetricEval.format(s.labels()), points);
        }
        return out;
    }

    @Test
    void countOverTime_windowOpenBelowClosedAbove() throws Exception {
        assertEquals(Map.of("{app=\"a\", level=\"info\"}", List.of("60=2", "180=1"),
                        "{app=\"a\", level=\"error\"}", List.of("60=1", "120=1")),
                eval("count_over_time({app=\"a\"}[1m])", STEPS));
    }

    @Test
    void sumByLevel_rate_perSecondOverTheRange() throws Exception {
        assertEquals(Map.of("{level=\"error\"}", List.of("60=0.0166666666666667", "120=0.0166666666666667"),
                        "{level=\"info\"}", List.of("60=0.05", "180=0.0166666666666667")),
                round(eval("sum by (level) (rate({app=~\".+\"}[1m]))", STEPS)));
    }

    @Test
    void sumWithout_bytesOverTime_countsTheLineAfterThePipeline() throws Exception {
        // 19 + 18 + 9 bytes by 60s; line_format makes every line 2 bytes after it.
        assertEquals(Map.of("{}", List.of("60=46", "120=10", "180=9")),
                eval("sum without (app, level) (bytes_over_time({app=\"a\"}[1m]))", STEPS));
        assertEquals(Map.of("{}", List.of("60=6", "120=2", "180=2")),
                eval("sum(bytes_over_time({app=\"a\"} | line_format \"ok\" [1m]))", STEPS));
    }

    @Test
    void offset_looksBackFurther() throws Exception {
        assertEquals(Map.of("{}", List.of("120=4")), eval("sum(count_over_time({app=~\"a|b\"}[1m] offset 1m))",
                120 * S));
    }

    @Test
    void unwrap_dropsTheLabel_andAnErrorIsSkippedByTheFilterAfterIt() throws Exception {
        // latency 1, 2, 3 in (0, 60]; 4s is not a float; x is not either: both filtered out after unwrap.
        assertEquals(Map.of("{app=\"a\"}", List.of("60=6")),
                eval("sum by (app) (sum_over_time({app=\"a\"} | logfmt | unwrap latency | __error__=\"\" [1m]))",
                        60 * S, 120 * S));
        assertEquals(Map.of("{app=\"a\"}", List.of("120=4")),
                eval("max_over_time({app=\"a\"} | logfmt | unwrap duration(latency) | __error__=\"\" [1m]) by (app)",
                        120 * S));
    }

    @Test
    void unwrap_everyStatistic() throws Exception {
        String range = "({app=\"a\"} | logfmt | unwrap latency | __error__=\"\" [2m]) by (app)";
        assertEquals(List.of("120=2"), eval("avg_over_time" + range, 120 * S).get("{app=\"a\"}"));
        assertEquals(List.of("120=1"), eval("min_over_time" + range, 120 * S).get("{app=\"a\"}"));
        assertEquals(List.of("120=1"), eval("first_over_time" + range, 120 * S).get("{app=\"a\"}"));
        assertEquals(List.of("120=3"), eval("last_over_time" + range, 120 * S).get("{app=\"a\"}"));
        // values 1, 2, 3: mean 2, population variance 2/3.
        assertEquals(List.of("120=0.6666666666666666"), eval("stdvar_over_time" + range, 120 * S).get("{app=\"a\"}"));
        assertEquals(List.of("120=0.816496580927726"), eval("stddev_over_time" + range, 120 * S).get("{app=\"a\"}"));
        // rank 0.5 * 2 = 1: the middle value; rank 0.25 * 2 = 0.5: halfway between 1 and 2.
        assertEquals(List.of("120=2"), eval("quantile_over_time(0.5, " + range.substring(1), 120 * S).get("{app=\"a\"}"));
        assertEquals(List.of("120=1.5"), eval("quantile_over_time(0.25, " + range.substring(1), 120 * S).get("{app=\"a\"}"));
    }

    @Test
    void rateCounter_extrapolatesAsPrometheus() throws Exception {
        // Samples 1, 2, 3 at 10s, 30s, 60s in (0, 60]: an increase of 2 over 50s sampled; 10s to the start (under
        // 1.1 x the 25s between samples; the zero point, 50 x 1/2 = 25s back, is further), 0s to the end:
        // 2 x 60/50, per second of the minute.
        assertEquals(Map.of("{app=\"a\"}", List.of("60=0.04")),
                eval("rate_counter({app=\"a\"} | logfmt latency | drop level | unwrap latency | __error__=\"\" [1m])",
                        60 * S));
    }

    @Test
    void pipelineError_isRefusedInLokisWords_unlessDropped() throws Exception {
        MetricEval.EvalException e = assertThrows(MetricEval.EvalException.class,
                () -> eval("count_over_time({app=\"b\"} | json [1m])", 60 * S));
        assertTrue(e.getMessage().startsWith("pipeline error: 'JSONParserErr' for series: '{__error__=\"JSONParserErr\","),
                e.getMessage());
        assertTrue(e.getMessage().contains("app=\"b\", level=\"info\"}'.\nUse a label filter to intentionally skip"
                + " this error. (e.g | __error__!=\"JSONParserErr\").\n"), e.getMessage());
        assertEquals(Map.of("{app=\"b\", level=\"info\"}", List.of("60=1")),
                eval("count_over_time({app=\"b\"} | json | drop __error__, __error_details__ [1m])", 60 * S));
    }

    @Test
    void absentOverTime_oneWhereNothingIs_withTheSelectorsEqualities() throws Exception {
        assertEquals(Map.of("{app=\"b\"}", List.of("120=1", "180=1")), eval("absent_over_time({app=\"b\"}[1m])", STEPS));
        // A label matched other than by equality is left out, even when an equality names it too.
        assertEquals(Map.of("{}", List.of("120=1", "180=1")),
                eval("absent_over_time({app=\"b\", app=~\"b\"}[1m])", STEPS));
    }

    @Test
    void binary_scalarsFilterAndMatch() throws Exception {
        assertEquals(Map.of("{app=\"a\"}", List.of("60=3")),
                eval("sum by (app) (count_over_time({app=~\".+\"}[1m])) > 1", 60 * S));
        assertEquals(Map.of("{app=\"a\"}", List.of("60=1"), "{app=\"b\"}", List.of("60=0")),
                eval("sum by (app) (count_over_time({app=~\".+\"}[1m])) > bool 1", 60 * S));
        // a's share of all lines: 3 / 4, matched on no labels.
        assertEquals(Map.of("{}", List.of("60=0.75")),
                eval("sum(count_over_time({app=\"a\"}[1m])) / on() sum(count_over_time({app=~\".+\"}[1m]))", 60 * S));
        // each level of a over a's total, many to one.
        assertEquals(Map.of("{app=\"a\", level=\"error\"}", List.of("60=0.3333333333333333"),
                        "{app=\"a\", level=\"info\"}", List.of("60=0.6666666666666666")),
                eval("count_over_time({app=\"a\"}[1m]) / on (app) group_left sum by (app) (count_over_time({app=\"a\"}[1m]))",
                        60 * S));
        assertEquals(Map.of("{app=\"b\", level=\"info\"}", List.of("60=1")),
                eval("count_over_time({app=~\".+\"}[1m]) unless on (app) count_over_time({app=\"a\"}[1m])", 60 * S));
        assertEquals(Map.of("{}", List.of("60=0", "120=0", "180=0"), "{app=\"b\"}", List.of("60=1")),
                eval("sum by (app) (count_over_time({app=\"b\"}[1m])) or vector(0)", STEPS));
    }

    @Test
    void vectorAggregations() throws Exception {
        String counts = "sum by (app) (count_over_time({app=~\".+\"}[1m]))";
        assertEquals(Map.of("{app=\"a\"}", List.of("60=3")), eval("topk(1, " + counts + ")", 60 * S));
        assertEquals(Map.of("{app=\"b\"}", List.of("60=1")), eval("bottomk(1, " + counts + ")", 60 * S));
        assertEquals(Map.of("{}", List.of("60=2")), eval("avg(" + counts + ")", 60 * S));
        assertEquals(Map.of("{}", List.of("60=2")), eval("count(" + counts + ")", 60 * S));
        assertEquals(Map.of("{}", List.of("60=1")), eval("stddev(" + counts + ")", 60 * S));
        assertEquals(Map.of("{}", List.of("60=1")), eval("min(" + counts + ")", 60 * S));
        assertEquals(Map.of("{}", List.of("60=3")), eval("max(" + counts + ")", 60 * S));
    }

    @Test
    void approxTopk_isTopkOnAnInstantQuery_andRefusedOnARange() throws Exception {
        String counts = "sum by (app) (count_over_time({app=~\".+\"}[1m]))";
        assertEquals(Map.of("{app=\"a\"}", List.of("60=3")), eval("approx_topk(1, " + counts + ")", 60 * S));
        assertEquals(Map.of("{app=\"a\"}", List.of("60=3"), "{app=\"b\"}", List.of("60=1")),
                eval("approx_topk(5, " + counts + ")", 60 * S));
        MetricEval.EvalException e = assertThrows(MetricEval.EvalException.class,
                () -> eval("approx_topk(1, " + counts + ")", STEPS));
        assertEquals("approx_topk is only supported on instant queries", e.getMessage());
    }

    @Test
    void labelReplace_expandsTheGroups() throws Exception {
        assertEquals(Map.of("{app=\"a\", x=\"a-a\"}", List.of("60=3")),
                eval("label_replace(sum by (app) (count_over_time({app=\"a\"}[1m])), \"x\", \"$1-${1}\", \"app\", \"(.)\")",
                        60 * S));
    }

    /** Values to 15 significant digits, so that expected thirds read plainly. */
    private static Map<String, List<String>> round(Map<String, List<String>> series) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        series.forEach((k, v) -> out.put(k, v.stream().map(p -> {
            int eq = p.indexOf('=');
            double d = Double.parseDouble(p.substring(eq + 1));
            return p.substring(0, eq + 1) + new BigDecimal(d).round(new MathContext(15))
                    .stripTrailingZeros().toPlainString();
        }).toList()));
        return out;
    }
}
