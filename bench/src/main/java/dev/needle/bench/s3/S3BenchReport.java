package dev.needle.bench.s3;

import dev.needle.bench.s3.S3BenchResult.LatencyRun;
import dev.needle.bench.s3.S3BenchResult.LookupCost;
import dev.needle.bench.scenario.Spread;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** The markdown report of an {@link S3BenchResult}: the goals, one table per latency, the cold trace lookup's chain, the index reads. */
final class S3BenchReport {

    /** The latency per request at which the object-store goals are stated. */
    static final long GOAL_LATENCY_MILLIS = 30;
    /** The most sequential round trips a cold trace lookup may take. */
    static final int GOAL_ROUND_TRIPS = 3;
    /** The most a cold trace lookup may take at {@value #GOAL_LATENCY_MILLIS} ms per request, in milliseconds. */
    static final double GOAL_COLD_TRACE_MILLIS = 150;

    /**
     * One goal as checked.
     *
     * @param goal     what it asks
     * @param measured what was measured
     * @param met      whether it was met; empty when not measured
     */
    record Goal(String goal, String measured, Optional<Boolean> met) {
    }

    private S3BenchReport() {
    }

    /** The goals, checked against {@code result}. */
    static List<Goal> goals(S3BenchResult result) {
        List<Goal> goals = new ArrayList<>();
        Optional<LatencyRun> at30 = result.runs().stream().filter(r -> r.latencyMillis() == GOAL_LATENCY_MILLIS).findFirst();
        List<LookupCost> coldTraces = at30.map(r -> select(r, l -> l.cold() && l.setting() == S3Setting.ALL
                && l.group().equals("trace, present"))).orElse(List.of());
        if (coldTraces.isEmpty()) {
            goals.add(new Goal("cold trace lookup ≤ " + GOAL_ROUND_TRIPS + " sequential round trips and ≤ "
                    + (int) GOAL_COLD_TRACE_MILLIS + " ms at " + GOAL_LATENCY_MILLIS + " ms per request",
                    "not measured (no cold lookup of a present trace id at " + GOAL_LATENCY_MILLIS
                            + " ms with all mechanisms)", Optional.empty()));
        } else {
            Spread trips = spread(coldTraces, LookupCost::sequential);
            Spread millis = spread(coldTraces, LookupCost::millis);
            goals.add(new Goal("cold trace lookup (present ids, all mechanisms) ≤ " + GOAL_ROUND_TRIPS
                    + " sequential round trips at " + GOAL_LATENCY_MILLIS + " ms per request",
                    String.format(Locale.ROOT, "median %.0f, max %.0f over %d lookups", trips.median(), trips.max(),
                            trips.count()), Optional.of(trips.max() <= GOAL_ROUND_TRIPS)));
            goals.add(new Goal("the same ≤ " + (int) GOAL_COLD_TRACE_MILLIS + " ms (median)",
                    String.format(Locale.ROOT, "median %.1f ms, p99 %.1f ms", millis.median(), millis.p99()),
                    Optional.of(millis.median() <= GOAL_COLD_TRACE_MILLIS)));
        }
        List<LookupCost> absent = new ArrayList<>();
        for (LatencyRun run : result.runs()) {
            absent.addAll(select(run, l -> l.setting() == S3Setting.ALL && l.group().endsWith("attribute, absent")));
        }
        int dataGets = absent.stream().mapToInt(LookupCost::dataGets).sum();
        long withData = absent.stream().filter(l -> l.dataGets() > 0).count();
        goals.add(new Goal("an absent attribute value: 0 data GETs (all mechanisms, cold and warm, every latency)",
                absent.size() + " lookups, " + withData + " with data GETs (" + dataGets + " in all)",
                absent.isEmpty() ? Optional.empty() : Optional.of(dataGets == 0)));
        for (LatencyRun run : result.runs()) {
            S3BenchResult.Polls p = run.polls();
            goals.add(new Goal("≤ 1 GET of the index per poll interval (" + fmt(p.pollSeconds()) + " s), "
                    + run.latencyMillis() + " ms per request",
                    String.format(Locale.ROOT, "%d GETs in %.1f s of %d lookups back to back (%.2f per interval); %d requests"
                            + " in %.0f s idle; %d blocks", p.busyIndexGets(), p.busySeconds(), p.busyLookups(),
                            p.indexGetsPerPoll(), p.idleRequests(), p.idleSeconds(),
                            result.facts().spanBlocks() + result.facts().logBlocks()),
                    Optional.of(p.atMostOnePerPoll())));
        }
        return goals;
    }

    /** The whole report; {@code setup} is the paragraph that says how it was run. */
    static String markdown(S3BenchResult result, String setup) {
        StringBuilder md = new StringBuilder();
        S3BenchResult.CorpusFacts f = result.facts();
        md.append("# needle on S3: lookups through a query node, corpus ").append(result.corpus()).append(", ")
                .append(result.date()).append("\n\n");
        md.append(setup).append("\n\n");
        md.append(String.format(Locale.ROOT, "Corpus: %,d spans and %,d log records in %d + %d blocks, %,d bytes of"
                        + " data.arrow (%.1f per record), %,d bytes of sidecars; %d probes in its manifest, %s.%n%n",
                f.spans(), f.logs(), f.spanBlocks(), f.logBlocks(), f.dataBytes(),
                (double) f.dataBytes() / Math.max(1, f.spans() + f.logs()), f.sidecarBytes(), f.probes(), asked(result)));
        md.append("## Goals\n\n| goal | measured | met |\n|---|---|---|\n");
        for (Goal g : goals(result)) {
            md.append("| ").append(g.goal()).append(" | ").append(g.measured()).append(" | ")
                    .append(g.met().map(m -> m ? "yes" : "**no**").orElse("–")).append(" |\n");
        }
        for (LatencyRun run : result.runs()) {
            md.append("\n## ").append(run.latencyMillis()).append(" ms per request\n\n");
            md.append("Medians and p99 (nearest rank) over every lookup of the row: warm rows hold each probe's measured"
                    + " runs, cold rows one lookup per probe. Requests are every GET, HEAD and LIST the store saw;"
                    + " data GETs those of data.arrow (its tail included); round trips the sequential ones.\n\n");
            md.append("| lookup | mechanisms | caches | lookups | latency ms, median / p99 | requests, median / p99"
                    + " | data GETs, median / max | KiB read, median / p99 | round trips, median / max |\n");
            md.append("|---|---|---|---|---|---|---|---|---|\n");
            for (boolean cold : List.of(true, false)) {
                for (S3Setting setting : S3Setting.values()) {
                    for (String group : S3Probe.GROUPS) {
                        List<LookupCost> rows = select(run, l -> l.cold() == cold && l.setting() == setting
                                && l.group().equals(group));
                        if (rows.isEmpty()) {
                            continue;
                        }
                        Spread ms = spread(rows, LookupCost::millis);
                        Spread req = spread(rows, LookupCost::requests);
                        Spread data = spread(rows, LookupCost::dataGets);
                        Spread kib = spread(rows, l -> l.bytes() / 1024.0);
                        Spread trips = spread(rows, LookupCost::sequential);
                        md.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %.1f / %.1f | %s / %s | %s / %s"
                                        + " | %.0f / %.0f | %s / %s |%n", group, setting.label(), cold ? "cold" : "warm",
                                rows.size(), ms.median(), ms.p99(), fmt(req.median()), fmt(req.p99()), fmt(data.median()),
                                fmt(data.max()), kib.median(), kib.p99(), fmt(trips.median()), fmt(trips.max())));
                    }
                }
            }
            md.append("\nThe longest chain of sequential requests of each cold lookup with all mechanisms, and how many"
                    + " lookups of its row took it:\n\n| lookup | chain | lookups |\n|---|---|---|\n");
            for (String group : S3Probe.GROUPS) {
                List<LookupCost> rows = select(run, l -> l.cold() && l.setting() == S3Setting.ALL && l.group().equals(group));
                Map<String, Long> chains = rows.stream().collect(Collectors.groupingBy(
                        l -> String.join(" → ", l.chain()), LinkedHashMap::new, Collectors.counting()));
                chains.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(3)
                        .forEach(e -> md.append("| ").append(group).append(" | ").append(e.getKey().isEmpty() ? "(none)"
                                : e.getKey()).append(" | ").append(e.getValue()).append(" of ").append(rows.size()).append(" |\n"));
            }
            List<LookupCost> all = run.lookups();
            long agree = all.stream().filter(l -> l.blockRequests() == l.explainRequests()).count();
            md.append(String.format(Locale.ROOT, "%nRequests for blocks' files seen by the proxy equal the requests"
                    + " EXPLAIN counts over the blocks in %d of %d lookups.%n", agree, all.size()));
        }
        return md.toString();
    }

    /** Which probes were asked: every one, or under some settings only some kinds, as {@code --only} bounded them. */
    private static String asked(S3BenchResult result) {
        if (result.only().isEmpty()) {
            return "every one asked in every setting below";
        }
        List<String> bounded = new ArrayList<>();
        result.only().forEach((setting, words) -> bounded.add("with " + setting.label() + " only "
                + words.stream().map(S3BenchReport::probes).collect(Collectors.joining(" and ")) + " ("
                + result.asked().get(setting) + " probes)"));
        return "every one asked in every setting below but these, bounded by `--only` so that the run ends in time: "
                + String.join("; ", bounded);
    }

    /** The probes a word of {@code --only} names, in words. */
    private static String probes(String word) {
        return switch (word) {
            case "trace" -> "trace lookups";
            case "span" -> "span searches";
            case "log" -> "log searches";
            default -> "trace lookups of the " + word.substring(word.indexOf(':') + 1) + " family (present and absent)";
        };
    }

    static List<LookupCost> select(LatencyRun run, Predicate<LookupCost> which) {
        return run.lookups().stream().filter(which).toList();
    }

    private static Spread spread(Collection<LookupCost> rows, ToDoubleFunction<LookupCost> value) {
        return Spread.of(rows.stream().map(l -> value.applyAsDouble(l)).toList());
    }

    /** A whole number without decimals, anything else with one. */
    private static String fmt(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }
}
