package dev.needle.bench.compaction;

import java.util.List;

/**
 * What {@code needle bench compaction} measured, as its JSON report holds it.
 *
 * @param corpus     the corpus directory's name
 * @param date       the day of the run (UTC), as in the report's file name
 * @param before     the corpus as generated
 * @param after      the corpus after {@code needle compact}
 * @param compaction the compaction's own figures
 * @param lookups    every measured lookup
 */
public record CompactionBenchResult(String corpus, String date, Blocks before, Blocks after, Compaction compaction,
                                    List<Lookup> lookups) {

    /**
     * The span blocks of the corpus at one moment.
     *
     * @param blocks        blocks
     * @param dataBytes     bytes of their data.arrow
     * @param sidecarBytes  bytes of their sidecars
     */
    public record Blocks(long blocks, long dataBytes, long sidecarBytes) {
    }

    /**
     * One {@code needle compact} run, from its own report.
     *
     * @param command       the command line
     * @param seconds       the merge's time as the command reports it (without the grace before deletion)
     * @param wallSeconds   the whole command's time, JVM start, grace and deletions included
     * @param blocksMerged  blocks merged
     * @param rows          rows rewritten
     * @param blocksWritten blocks written
     * @param rowsPerSecond rows rewritten per second of merging
     */
    public record Compaction(String command, double seconds, double wallSeconds, long blocksMerged, long rows,
                             long blocksWritten, double rowsPerSecond) {
    }

    /**
     * One lookup over HTTP.
     *
     * @param phase   {@code before} or {@code after} the compaction
     * @param setting {@code index} (every mechanism) or {@code no index} (the blocks from a listing, their sidecars one by one)
     * @param cold    whether the engine was new (no index read, nothing cached)
     * @param group   the probe's group, such as {@code trace, absent}
     * @param probe   the probe
     * @param millis  from sending the request to the reply's last byte
     */
    public record Lookup(String phase, String setting, boolean cold, String group, String probe, double millis) {
    }
}
