package dev.needle.bench.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.needle.corpus.Manifest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The report's first table: each lookup the speed goals are stated for, as measured in this run,
 * beside DuckDB and the goal, with whether the goal is met (and by how far it is missed).
 */
final class GoalTable {

    /** What a row says when its measurement was not part of the run. */
    private static final String NOT_RUN = "not run";

    /**
     * One row.
     *
     * @param lookup what is looked up
     * @param now    needle's figures from this run
     * @param duckdb DuckDB's figures for the same lookups, or {@code –}
     * @param goal   the goal, and whether it is met
     * @param met    whether the goal is met; null when this run did not measure it
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Row(String lookup, String now, String duckdb, String goal, Boolean met) {
    }

    private GoalTable() {
    }

    /** The rows, in the order the goals are stated. */
    static List<Row> rows(GoalRun.Results in) {
        List<Row> rows = new ArrayList<>();
        Map<String, List<ProbeResult>> groups = ProbeSections.byGroup(in.attributes());
        rows.add(attributeRow(groups, "spans", false, 5));
        rows.add(attributeRow(groups, "logs", false, 3));
        rows.add(attributeRow(groups, "spans", true, Double.NaN));
        rows.add(attributeRow(groups, "logs", true, Double.NaN));
        rows.add(rareRow(in, "spans"));
        rows.add(rareRow(in, "logs"));
        rows.addAll(traceRows(in.traces()));
        rows.addAll(coldRows(in.cold()));
        rows.add(new Row("full-scan attribute equality (JMH `EqualityScanBenchmark`)",
                "not part of this run: `./needle bench jmh EqualityScan`", "–", "≥ 50M rows/s/core", null));
        rows.add(newestRow(in.searches()));
        return rows;
    }

    /** The table as Markdown. */
    static String markdown(List<Row> rows) {
        StringBuilder md = new StringBuilder("| lookup | now | DuckDB | goal |\n|---|---|---|---|\n");
        for (Row r : rows) {
            md.append("| ").append(r.lookup()).append(" | ").append(r.now()).append(" | ").append(r.duckdb()).append(" | ")
                    .append(r.goal()).append(" |\n");
        }
        return md.toString();
    }

    /** The section that opens the report. */
    static BenchReport.Section section(List<Row> rows) {
        String md = "Warm figures are medians per probe (or per id), then mean, median or 99th percentile over every probe "
                + "of the manifest (see the sections below); DuckDB ran the same probes in the same run. This machine's "
                + "cores are shared with other work, so figures move from run to run.\n\n" + markdown(rows);
        return new BenchReport.Section("Lookup speed against the goals", "goals", md, g -> g.writeObject(rows));
    }

    private static Row attributeRow(Map<String, List<ProbeResult>> groups, String signal, boolean present, double goalMillis) {
        String lookup = "every " + (present ? "present" : "absent") + " attribute value of the manifest (" + signal
                + "), mean / median / p99";
        String goal = present ? "ahead of DuckDB" : "mean ≤ " + (int) goalMillis + " ms";
        List<ProbeResult> results = groups.get(ManifestProbes.attributeGroup(signal, present));
        if (results == null) {
            return new Row(lookup, NOT_RUN, "–", goal, null);
        }
        Spread n = ProbeSections.needle(results);
        Spread d = ProbeSections.duckdb(results);
        long wasted = results.stream().filter(r -> r.needle().totals().openedForNothing() > 0).count();
        String now = String.format(Locale.ROOT, "%s (%d probes%s)", spread(n), n.count(),
                present ? "" : "; " + wasted + " open a block for nothing");
        String duck = d == null ? "–" : spread(d) + " (DuckDB / needle: " + ProbeSections.ratio(d.mean(), n.mean()) + " by mean)";
        if (present) {
            // The DuckDB column already says by how much.
            return d == null ? new Row(lookup, now, duck, goal, null)
                    : new Row(lookup, now, duck, goal + (d.mean() > n.mean() ? " — met" : " — missed"), d.mean() > n.mean());
        }
        return new Row(lookup, now, duck, goal + atMost(n.mean(), goalMillis), n.mean() <= goalMillis);
    }

    private static Row rareRow(GoalRun.Results in, String signal) {
        Manifest.AttributeProbe rare = Scenarios.rarestUser(in.manifest(), signal);
        String lookup = "a rare present `user.id` (" + signal + ")";
        String goal = "≥ 3× faster than DuckDB";
        ProbeResult r = rare == null ? null : in.attributes().stream()
                .filter(p -> rare.equals(p.probe().scenario().equality())).findFirst().orElse(null);
        if (r == null) {
            return new Row(lookup, NOT_RUN, "–", goal, null);
        }
        lookup = "a rare present `user.id` (" + ServedLookups.plural(rare.count(), signal.equals("spans") ? "span" : "log record")
                + ")";
        double needle = r.needle().warmP50Millis();
        StringBuilder now = new StringBuilder(BenchReport.ms(needle) + " in the engine");
        in.searches().stream().filter(s -> rare.equals(s.probe())).findFirst().ifPresent(s -> now.append(", ")
                .append(BenchReport.ms(s.timing().p50Millis())).append(" via `").append(s.request().substring(0, s.request().indexOf('?')))
                .append('`'));
        if (r.duckdb() == null) {
            return new Row(lookup, now.toString(), "–", goal, null);
        }
        double duck = r.duckdb().warm().p50Nanos() / 1e6;
        boolean met = duck >= 3 * needle;
        return new Row(lookup, now.toString(), BenchReport.ms(duck), goal + verdict(met, "DuckDB / needle "
                + ProbeSections.ratio(duck, needle) + " in the engine"), met);
    }

    private static List<Row> traceRows(List<ProbeResult> traces) {
        Map<String, List<ProbeResult>> families = ProbeSections.byGroup(traces);
        if (families.isEmpty()) {
            return List.of(new Row("trace by id, present", NOT_RUN, "–", "≤ 2 ms engine, ≤ 5 ms HTTP", null));
        }
        double worstEngine = families.values().stream().mapToDouble(f -> ProbeSections.needle(f).median()).max().orElseThrow();
        String engine = perFamily(families, ProbeSections::needle);
        String duck = families.values().stream().allMatch(f -> ProbeSections.duckdb(f) != null)
                ? perFamily(families, ProbeSections::duckdb) : "–";
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("trace by id, present, in the engine: median (p99) per family", engine, duck,
                "≤ 2 ms, every family's median" + atMost(worstEngine, 2), worstEngine <= 2));
        if (families.values().stream().allMatch(f -> ProbeSections.http(f) != null)) {
            double worstHttp = families.values().stream().mapToDouble(f -> ProbeSections.http(f).median()).max().orElseThrow();
            rows.add(new Row("trace by id, present, via `/api/v2/traces/{id}`: median (p99) per family",
                    perFamily(families, ProbeSections::http), "–",
                    "≤ 5 ms, every family's median" + atMost(worstHttp, 5), worstHttp <= 5));
        } else {
            rows.add(new Row("trace by id, present, via `/api/v2/traces/{id}`", NOT_RUN, "–", "≤ 5 ms", null));
        }
        return rows;
    }

    private static List<Row> coldRows(ColdPaths.Result cold) {
        String serveLookup = "first query after `needle serve` starts";
        String cliLookup = "`needle query trace ID --data DIR`, whole process";
        if (cold == null) {
            return List.of(new Row(serveLookup, NOT_RUN, "–", "≤ 100 ms", null),
                    new Row(cliLookup, NOT_RUN, "–", "≤ 300 ms", null));
        }
        Spread first = cold.firstQuery();
        Spread ready = cold.startToReady();
        Spread cli = cold.cli();
        return List.of(
                new Row(serveLookup, String.format(Locale.ROOT, "%s (median of %d fresh servers; start to `/ready` %s before it)",
                        BenchReport.ms(first.median()), first.count(), BenchReport.ms(ready.median())), "–",
                        "≤ 100 ms" + atMost(first.median(), 100), first.median() <= 100),
                new Row(cliLookup, String.format(Locale.ROOT, "%s wall (median of %d)", BenchReport.ms(cli.median()), cli.count()), "–",
                        "≤ 300 ms" + atMost(cli.median(), 300), cli.median() <= 300));
    }

    private static Row newestRow(List<ServedLookups.Search> searches) {
        String lookup = "`/api/search` with `{ }` and `limit=" + Lookups.LIMIT + "`";
        String goal = "reads only the time column until the newest " + Lookups.LIMIT + " are known, then decodes "
                + Lookups.LIMIT;
        ServedLookups.Search s = searches.stream().filter(x -> x.probe() == null).findFirst().orElse(null);
        if (s == null) {
            return new Row(lookup, NOT_RUN, "–", goal, null);
        }
        return new Row(lookup, String.format(Locale.ROOT, "%s p50; lists %d traces; opens %d of %d blocks, scans %,d rows, "
                + "reads %,d bytes", BenchReport.ms(s.timing().p50Millis()), s.found(), s.opened(), s.listed(), s.rowsScanned(),
                s.bytesRead()), "–", goal, null);
    }

    private static String perFamily(Map<String, List<ProbeResult>> families, Function<List<ProbeResult>, Spread> spread) {
        return families.entrySet().stream().map(e -> {
            Spread s = Objects.requireNonNull(spread.apply(e.getValue()));
            return e.getKey() + " " + BenchReport.ms(s.median()) + " (" + BenchReport.ms(s.p99()) + ")";
        }).collect(Collectors.joining(", "));
    }

    private static String spread(Spread s) {
        return "mean " + BenchReport.ms(s.mean()) + ", median " + BenchReport.ms(s.median()) + ", p99 " + BenchReport.ms(s.p99());
    }

    /** The verdict on a goal "at most {@code goal}": met, or by how far it is missed. */
    private static String atMost(double value, double goal) {
        return value <= goal ? " — met" : " — missed: " + ProbeSections.ratio(value, goal) + " the goal";
    }

    private static String verdict(boolean met, String how) {
        return (met ? " — met: " : " — missed: ") + how;
    }
}
