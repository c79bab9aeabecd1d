package dev.needle.bench.compaction;

import dev.needle.bench.compaction.CompactionBenchResult.Blocks;
import dev.needle.bench.compaction.CompactionBenchResult.Lookup;
import dev.needle.bench.scenario.Spread;
import java.util.List;
import java.util.Locale;

/** The markdown report of {@code needle bench compaction}. */
final class CompactionBenchReport {

    private CompactionBenchReport() {
    }

    /** The whole report: the corpus, the compaction, then a row per phase, setting, caches and group. */
    static String markdown(CompactionBenchResult r, String setup) {
        StringBuilder md = new StringBuilder();
        md.append("# needle bench compaction — ").append(r.corpus()).append(", ").append(r.date()).append("\n\n");
        md.append(setup).append("\n\n");
        md.append("| span blocks | blocks | data.arrow | sidecars |\n|---|---:|---:|---:|\n");
        md.append(blocksRow("before compaction", r.before())).append(blocksRow("after compaction", r.after()));
        CompactionBenchResult.Compaction c = r.compaction();
        md.append(String.format(Locale.ROOT, "%n**Compaction** (`needle %s`): %,d blocks (%,d rows) merged into %,d in"
                        + " %.1f s, **%,.0f rows/s**; %.1f s for the whole command (JVM start, the grace before"
                        + " deleting the replaced blocks, the deletions).%n%n", c.command(), c.blocksMerged(), c.rows(),
                c.blocksWritten(), c.seconds(), c.rowsPerSecond(), c.wallSeconds()));
        md.append(table(r.lookups()));
        return md.toString();
    }

    /** The lookups' table: median and p99 (nearest rank) in ms per phase, setting, caches and group. */
    static String table(List<Lookup> lookups) {
        StringBuilder md = new StringBuilder("| phase | setting | caches | lookup | n | median ms | p99 ms |\n"
                + "|---|---|---|---|---:|---:|---:|\n");
        for (String phase : List.of("before", "after")) {
            for (CompactionBench.Setting setting : CompactionBench.Setting.values()) {
                for (boolean cold : List.of(false, true)) {
                    for (String group : CompactionBench.GROUPS) {
                        Spread s = Spread.of(lookups.stream().filter(l -> l.phase().equals(phase)
                                && l.setting().equals(setting.label) && l.cold() == cold && l.group().equals(group))
                                .map(Lookup::millis).toList());
                        if (s.count() > 0) {
                            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %d | %.1f | %.1f |%n", phase,
                                    setting.label, cold ? "cold" : "warm", group, s.count(), s.median(), s.p99()));
                        }
                    }
                }
            }
        }
        return md.toString();
    }

    private static String blocksRow(String label, Blocks b) {
        return String.format(Locale.ROOT, "| %s | %,d | %,.1f MB | %,.1f MB |%n", label, b.blocks(), b.dataBytes() / 1e6,
                b.sidecarBytes() / 1e6);
    }
}
