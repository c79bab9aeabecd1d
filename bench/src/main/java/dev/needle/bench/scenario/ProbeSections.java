package dev.needle.bench.scenario;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import dev.needle.query.engine.Explain;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/** The report's sections on every probe of the manifest: attribute values, and trace ids per family. */
final class ProbeSections {

    /** The slowest probes listed per group: what the speed work needs to look at first. */
    static final int SLOWEST = 10;

    private ProbeSections() {
    }

    /** The probes grouped as {@link ManifestProbes} groups them, groups in the order they first occur. */
    static Map<String, List<ProbeResult>> byGroup(List<ProbeResult> results) {
        Map<String, List<ProbeResult>> groups = new LinkedHashMap<>();
        for (ProbeResult r : results) {
            groups.computeIfAbsent(r.probe().group(), g -> new ArrayList<>()).add(r);
        }
        return groups;
    }

    /** The engine's warm medians of {@code results}, spread. */
    static Spread needle(List<ProbeResult> results) {
        return Spread.of(results.stream().map(r -> r.needle().warmP50Millis()).toList());
    }

    /** DuckDB's warm medians of those of {@code results} it ran, spread; null when it ran none. */
    static Spread duckdb(List<ProbeResult> results) {
        return spreadOrNull(results, r -> r.duckdb() == null ? null : r.duckdb().warm().p50Nanos() / 1e6);
    }

    /** The HTTP API's warm medians of those of {@code results} sent through it, spread; null when none were. */
    static Spread http(List<ProbeResult> results) {
        return spreadOrNull(results, r -> r.http() == null ? null : r.http().p50Millis());
    }

    /** The section on every attribute probe: per group the spread, then the slowest probes with what they opened. */
    static BenchReport.Section attributes(List<ProbeResult> results, int maxRuns) {
        Map<String, List<ProbeResult>> groups = byGroup(results);
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Every attribute value the manifest lists, present and certainly absent, each as "
                + "`{ scope.key = literal }` over all time with a limit of %d, through `QueryEngine` with all mechanisms "
                + "(as the server runs it). Per probe: untimed warm-up runs, then up to %d timed runs; its value is their "
                + "median. Per group: mean, median, 99th percentile (nearest rank) and maximum over the probes. Every answer "
                + "holds exactly the manifest's count (up to the limit), and DuckDB's equals needle's.%n%n", Lookups.LIMIT, maxRuns));
        md.append("| probes | n | needle mean | needle median | needle p99 | needle max | probes opening a block for nothing "
                + "| DuckDB mean | DuckDB median | DuckDB p99 | DuckDB / needle (mean) | DuckDB / needle (median) |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<ProbeResult>> g : groups.entrySet()) {
            Spread n = needle(g.getValue());
            Spread d = duckdb(g.getValue());
            long wasted = g.getValue().stream().filter(r -> r.needle().totals().openedForNothing() > 0).count();
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s |%n", g.getKey(),
                    n.count(), BenchReport.ms(n.mean()), BenchReport.ms(n.median()), BenchReport.ms(n.p99()), BenchReport.ms(n.max()), wasted,
                    d == null ? "–" : BenchReport.ms(d.mean()), d == null ? "–" : BenchReport.ms(d.median()), d == null ? "–" : BenchReport.ms(d.p99()),
                    d == null ? "–" : ratio(d.mean(), n.mean()), d == null ? "–" : ratio(d.median(), n.median())));
        }
        for (Map.Entry<String, List<ProbeResult>> g : groups.entrySet()) {
            md.append("\nThe slowest ").append(Math.min(SLOWEST, g.getValue().size())).append(" of ").append(g.getKey())
                    .append(" (engine median):\n\n");
            md.append("| probe | found | blocks opened / listed | opened for nothing | rows scanned | bytes read "
                    + "| needle p50 | needle p99 | DuckDB p50 | DuckDB row groups read |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (ProbeResult r : slowest(g.getValue())) {
                Explain.Totals t = r.needle().totals();
                md.append(String.format(Locale.ROOT, "| `%s` | %d | %d / %d | %d | %,d | %,d | %s | %s | %s | %s |%n",
                        r.probe().scenario().name(), r.needle().answer().records(), t.opened(), t.listed(),
                        t.openedForNothing(), t.rowsScanned(), t.bytesRead(), BenchReport.ms(r.needle().warmP50Millis()),
                        BenchReport.ms(r.needle().warmP99Millis()), r.duckdb() == null ? "–" : BenchReport.ms(r.duckdb().warm().p50Nanos() / 1e6),
                        r.duckdb() == null ? "–" : Long.toString(r.duckdb().rowGroupsRead())));
            }
        }
        List<GroupRow> summary = groups.entrySet().stream().map(e -> GroupRow.of(e.getKey(), e.getValue())).toList();
        List<ProbeRow> rows = results.stream().map(ProbeRow::of).toList();
        return new BenchReport.Section("Every attribute probe of the manifest", "attribute_probes", md.toString(), g -> {
            g.writeStartObject();
            g.writeObjectField("groups", summary);
            g.writeObjectField("probes", rows);
            g.writeEndObject();
        });
    }

    /** The section on trace by id: every present trace id of each family through the engine, the HTTP API and DuckDB. */
    static BenchReport.Section traces(List<ProbeResult> results, int maxRuns) {
        Map<String, List<ProbeResult>> groups = byGroup(results);
        StringBuilder md = new StringBuilder();
        md.append(String.format(Locale.ROOT, "Every present trace id the manifest lists, per id family, over all time: "
                + "through `QueryEngine` with all mechanisms, through `/api/v2/traces/{id}` of a running `needle serve` "
                + "(JSON; request to the reply's last byte; every id asked once before any is timed) and through DuckDB. Per id: untimed warm-up runs, then up to %d "
                + "timed runs; its value is their median; per family: median, 99th percentile (nearest rank) and maximum "
                + "over the ids. Every answer holds the trace's spans, as many as the manifest says.%n%n", maxRuns));
        md.append("| family | ids | needle median | needle p99 | needle max | HTTP median | HTTP p99 | HTTP max "
                + "| DuckDB median | DuckDB p99 | DuckDB / needle (median) | bytes read (median id) |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<String, List<ProbeResult>> g : groups.entrySet()) {
            Spread n = needle(g.getValue());
            Spread h = http(g.getValue());
            Spread d = duckdb(g.getValue());
            double bytes = Spread.of(g.getValue().stream().map(r -> (double) r.needle().totals().bytesRead()).toList()).median();
            md.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %,.0f |%n",
                    g.getKey(), n.count(), BenchReport.ms(n.median()), BenchReport.ms(n.p99()), BenchReport.ms(n.max()),
                    h == null ? "–" : BenchReport.ms(h.median()), h == null ? "–" : BenchReport.ms(h.p99()), h == null ? "–" : BenchReport.ms(h.max()),
                    d == null ? "–" : BenchReport.ms(d.median()), d == null ? "–" : BenchReport.ms(d.p99()),
                    d == null ? "–" : ratio(d.median(), n.median()), bytes));
        }
        List<GroupRow> summary = groups.entrySet().stream().map(e -> GroupRow.of(e.getKey(), e.getValue())).toList();
        List<ProbeRow> rows = results.stream().map(ProbeRow::of).toList();
        return new BenchReport.Section("Trace by id, every present id per family", "trace_probes", md.toString(), g -> {
            g.writeStartObject();
            g.writeObjectField("families", summary);
            g.writeObjectField("traces", rows);
            g.writeEndObject();
        });
    }

    /** The slowest of {@code results} by engine median, slowest first, at most {@link #SLOWEST}. */
    static List<ProbeResult> slowest(List<ProbeResult> results) {
        return results.stream().sorted(Comparator.comparingDouble((ProbeResult r) -> r.needle().warmP50Millis()).reversed())
                .limit(SLOWEST).toList();
    }

    /** {@code a / b} as a factor, such as {@code 2.5×}. */
    static String ratio(double a, double b) {
        return String.format(Locale.ROOT, "%.1f×", a / b);
    }

    private static Spread spreadOrNull(List<ProbeResult> results, Function<ProbeResult, Double> value) {
        List<Double> values = results.stream().map(value).filter(Objects::nonNull).toList();
        return values.isEmpty() ? null : Spread.of(values);
    }

    /** One group of probes in the .json: the spread through each path, and how many probes opened a block for nothing. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private record GroupRow(String group, int probes, long probesOpeningForNothing, Spread needleMs, Spread httpMs,
                            Spread duckdbMs) {
        static GroupRow of(String group, List<ProbeResult> results) {
            return new GroupRow(group, results.size(),
                    results.stream().filter(r -> r.needle().totals().openedForNothing() > 0).count(),
                    needle(results), http(results), duckdb(results));
        }
    }

    /** One probe in the .json: what the engine did and how long each path took. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    @JsonInclude(JsonInclude.Include.NON_NULL)
    private record ProbeRow(String group, String probe, String target, int found, String answer, int listed, int opened,
                            int openedForNothing, long rowsScanned, long bytesToDecide, long bytesRead, int runs,
                            double needleP50Ms, double needleP99Ms, Double httpP50Ms, Double httpP99Ms, Double duckdbP50Ms,
                            Double duckdbP99Ms, Long duckdbRowGroupsRead) {
        static ProbeRow of(ProbeResult r) {
            Measurement m = r.needle();
            Explain.Totals t = m.totals();
            PeerRunner.PeerProbe d = r.duckdb();
            WarmLoop.Timing h = r.http();
            return new ProbeRow(r.probe().group(), r.probe().scenario().name(), r.probe().scenario().target(),
                    m.answer().records(), m.answer().digest(), t.listed(), t.opened(), t.openedForNothing(), t.rowsScanned(),
                    t.bytesToDecide(), t.bytesRead(), m.iterations(), m.warmP50Millis(), m.warmP99Millis(),
                    h == null ? null : h.p50Millis(), h == null ? null : h.p99Millis(),
                    d == null ? null : d.warm().p50Nanos() / 1e6, d == null ? null : d.warm().p99Nanos() / 1e6,
                    d == null ? null : d.rowGroupsRead());
        }
    }
}
