package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.http.TimeParams;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The patterns of a selector's lines, as Loki's pattern ingester answers them (grafana/loki
 * {@code pkg/pattern}, the JSON as {@code pkg/util/marshal} writes it), for Grafana's Logs Drilldown:
 *
 * <pre>
 * /loki/api/v1/patterns   query, start, end, since, step:
 *     {"status":"success","data":[{"pattern":"connected to &lt;_&gt; in &lt;_&gt; ms","level":"info","samples":[[ts,count],…]},…]}
 * </pre>
 *
 * <p>Loki learns patterns from every line as it is ingested; needle learns them when asked, with {@link Drain},
 * from a sample: the newest {@value #SAMPLE} entries the selector selects in the range, learnt oldest first, and
 * an answer cut there says so in {@code X-Needle-Status}. As in Loki, each level ({@code detected_level}, or
 * {@code unknown}) has a Drain of its own, so a pattern is answered once per level it was seen at; its samples
 * count its lines per step (a line first placed on its 10-second mark, as the ingester samples), stamped in
 * Unix seconds at the step's start, steps without lines left out. {@code step} defaults to the range over 250, at
 * least a second. Patterns come most lines first, then by pattern and level.
 */
final class LogPatterns {

    /** The entries patterns are learnt from. */
    static final int SAMPLE = 10_000;
    /** Loki's levels, each with a Drain of its own; any other level is {@code unknown}. */
    private static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error", "critical", "fatal",
            "unknown");
    private static final long SAMPLE_INTERVAL = 10_000_000_000L;

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    LogPatterns(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** One pattern at one level, with its count per step. */
    private record Series(String pattern, String level, Map<Long, Long> samples, long total) {
    }

    /** {@code /loki/api/v1/patterns}. */
    ApiReply answer(TenantId tenant, Params params, long now) throws ApiException, IOException {
        LogQl.LogQuery selector = LokiLabels.selector(params.string("query"));
        TimeRange range = LokiParams.range(params, now, LokiParams.QUERY_SINCE);
        long stepMillis = TimeParams.stepMillis(params, LokiParams.defaultStepMillis(range));
        LokiParams.points(range.fromUnixNano(), range.toUnixNano() + 1, stepMillis);
        long step = stepMillis * 1_000_000L;
        long started = System.nanoTime();
        LokiSearch.Result sample = new LokiSearch(engine).run(tenant, selector, range, SAMPLE, false,
                params.mechanisms());
        metrics.record(QueryMetrics.Kind.LOGS, System.nanoTime() - started, sample.plans());

        Map<String, Drain> byLevel = new TreeMap<>();
        List<LokiEntry> oldestFirst = new ArrayList<>(sample.entries());
        oldestFirst.sort(Comparator.comparingLong(LokiEntry::timeUnixNano));
        for (LokiEntry e : oldestFirst) {
            byLevel.computeIfAbsent(level(e), l -> new Drain()).train(e.line(), e.timeUnixNano());
        }
        List<Series> series = new ArrayList<>();
        for (Map.Entry<String, Drain> level : byLevel.entrySet()) {
            for (Drain.Cluster c : level.getValue().clusters()) {
                Map<Long, Long> counts = new TreeMap<>();
                for (long t : c.times()) {
                    long mark = Math.floorDiv(t, SAMPLE_INTERVAL) * SAMPLE_INTERVAL;
                    counts.merge(Math.floorDiv(Math.floorDiv(mark, step) * step, 1_000_000_000L), 1L, Long::sum);
                }
                series.add(new Series(c.pattern(), level.getKey(), counts, c.times().size()));
            }
        }
        series.sort(Comparator.comparingLong((Series s) -> -s.total()).thenComparing(Series::pattern)
                .thenComparing(Series::level));

        List<String> problems = new ArrayList<>(sample.problems());
        if (sample.entries().size() == SAMPLE) {
            problems.add("the patterns of " + selector + " were learnt from its newest " + SAMPLE
                    + " entries in the range; older lines are not counted");
        }
        ApiReply reply = JsonReplies.object(200, g -> {
            g.writeStringField("status", "success");
            g.writeArrayFieldStart("data");
            for (Series s : series) {
                g.writeStartObject();
                g.writeStringField("pattern", s.pattern());
                g.writeStringField("level", s.level());
                g.writeArrayFieldStart("samples");
                for (Map.Entry<Long, Long> point : s.samples().entrySet()) {
                    g.writeStartArray();
                    g.writeNumber(point.getKey());
                    g.writeNumber(point.getValue());
                    g.writeEndArray();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
        });
        return LokiReplies.withHeaders(reply, problems, sample.plans());
    }

    /** The entry's level as the pattern ingester files it: its {@code detected_level}, lowercased, else unknown. */
    private static String level(LokiEntry e) {
        String level = e.metadata().getOrDefault("detected_level", "").toLowerCase(Locale.ROOT);
        return LEVELS.contains(level) ? level : "unknown";
    }
}
