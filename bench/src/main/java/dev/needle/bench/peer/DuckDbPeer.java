package dev.needle.bench.peer;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.HdrHistogram.Histogram;
import org.duckdb.DuckDBConnection;
import org.duckdb.ProfilerPrintFormat;

/**
 * The peer: needle's lookups run by DuckDB over the Parquet files of one directory, with the rows
 * that answer them, what DuckDB says it read, how it decided row group by row group, and warm and
 * cold latencies.
 *
 * <p>What DuckDB read comes from its JSON profile ({@code PRAGMA enable_profiling}), query-level
 * metrics: {@code total_row_groups_to_scan} (row groups of the files not ruled out as a whole),
 * {@code total_row_groups_scanned} (those actually read after statistics and Bloom filters),
 * {@code total_rows_scanned} and {@code io.total_bytes_read}. DuckDB counts {@code rows_scanned}
 * after the pushed-down filter, so it equals the rows returned, not the rows decoded; the rows a
 * lookup really decodes are those of the row groups it reads, which {@link #plan} adds up.
 */
public final class DuckDbPeer implements AutoCloseable {

    private static final String VIEW = "records";
    private static final Pattern METRIC = Pattern.compile("\"(total_row_groups_to_scan|total_row_groups_scanned"
            + "|total_rows_scanned|total_bytes_read)\"\\s*:\\s*(\\d+)");

    /**
     * How the DuckDB instance is configured.
     *
     * @param threads              worker threads, or 0 for DuckDB's default (one per core)
     * @param parquetMetadataCache whether DuckDB keeps Parquet footers between queries (off by default)
     */
    public record Settings(int threads, boolean parquetMetadataCache) {
        public Settings {
            if (threads < 0) {
                throw new IllegalArgumentException("threads (" + threads + ") must be 0 (DuckDB's default) or positive");
            }
        }

        /** DuckDB's defaults: a thread per core, no footer cache. */
        public static Settings defaults() {
            return new Settings(0, false);
        }
    }

    /**
     * One row of an answer, enough to compare it with needle's: ids and event time. A missing id
     * (an uncorrelated log record) is {@link Bytes#EMPTY}, as in needle's records.
     */
    public record RowKey(Bytes traceId, Bytes spanId, long timeUnixNano) {
    }

    /**
     * What DuckDB's profile says one query read.
     *
     * @param rowGroupsToScan  row groups in the files that statistics did not rule out as a whole
     * @param rowGroupsScanned row groups read after statistics and Bloom filters
     * @param rowsEmitted      rows the scan emitted after its pushed-down filter
     * @param bytesRead        bytes read from the files, footers and Bloom filters included
     */
    public record ScanStats(long rowGroupsToScan, long rowGroupsScanned, long rowsEmitted, long bytesRead) {

        static ScanStats parse(String profileJson) {
            Map<String, Long> metrics = new HashMap<>();
            Matcher m = METRIC.matcher(profileJson);
            while (m.find()) {
                metrics.put(m.group(1), Long.parseLong(m.group(2)));
            }
            return new ScanStats(metric(metrics, "total_row_groups_to_scan"), metric(metrics, "total_row_groups_scanned"),
                    metric(metrics, "total_rows_scanned"), metric(metrics, "total_bytes_read"));
        }

        /** A missing metric fails: reading it as 0 would make a changed profile format look like perfect pruning. */
        private static long metric(Map<String, Long> metrics, String name) {
            Long value = metrics.get(name);
            if (value == null) {
                throw new IllegalStateException("DuckDB's profile has no " + name + " metric");
            }
            return value;
        }
    }

    /**
     * A lookup's rows and what DuckDB read for them.
     *
     * @param rows         the matching rows, in DuckDB's order (newest first when the lookup has a limit)
     * @param stats        DuckDB's own account of the scan
     * @param elapsedNanos wall time of the profiled execution, fetching every row included
     */
    public record PeerAnswer(List<RowKey> rows, ScanStats stats, long elapsedNanos) {
        public PeerAnswer {
            rows = List.copyOf(rows);
        }
    }

    /**
     * How a lookup is decided row group by row group, from the files' metadata, in the order DuckDB
     * applies it: time statistics, the equality column's min/max, then its Bloom filter. A lookup's
     * limit is left out: with one, DuckDB's top-N also re-reads row groups to fetch the newest rows
     * (late materialization), so its own counts are not comparable with the plan's.
     *
     * @param rowGroups          row groups in all files
     * @param rows               rows in all files
     * @param prunedByTime       ruled out by the time column's min/max
     * @param prunedByStatistics then ruled out by the equality column's min/max
     * @param prunedByBloom      then ruled out by the equality column's Bloom filter
     * @param scanned            left to read
     * @param scannedForNothing  read but holding no match: false positives of statistics and filter together
     * @param rowsInScanned      rows in the row groups left to read, the rows the equality column is decoded for
     * @param bloomBytes         bytes of the Bloom filters consulted (those of row groups statistics kept)
     */
    public record Plan(long rowGroups, long rows, long prunedByTime, long prunedByStatistics, long prunedByBloom,
                       long scanned, long scannedForNothing, long rowsInScanned, long bloomBytes) {
    }

    /**
     * One column chunk's metadata, as {@code parquet_metadata()} reports it.
     *
     * @param file              the file
     * @param rowGroup          the row group's index in the file
     * @param column            the column
     * @param rows              rows in the row group
     * @param encodings         the chunk's encodings, for example {@code PLAIN_DICTIONARY}
     * @param bloomFilterLength the Bloom filter's bytes, or 0 when the chunk has none
     */
    public record ColumnChunk(String file, long rowGroup, String column, long rows, String encodings,
                              long bloomFilterLength) {
    }

    /** Latency percentiles over {@code count} runs, in nanoseconds. */
    public record Timing(long count, long p50Nanos, long p99Nanos, long maxNanos) {

        static Timing of(Histogram h) {
            return new Timing(h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.getMaxValue());
        }
    }

    /**
     * Cold runs: each a fresh in-memory DuckDB instance (nothing cached inside DuckDB: no footers, no
     * data; the OS page cache is left as it is), timed apart for opening and for the first query.
     *
     * @param open       opening the instance and creating the view over the files
     * @param firstQuery the first lookup on it, fetching every row
     */
    public record Cold(Timing open, Timing firstQuery) {
    }

    private final DuckDBConnection conn;
    private final Signal signal;
    private final String glob;
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    private DuckDbPeer(DuckDBConnection conn, Signal signal, String glob) {
        this.conn = conn;
        this.signal = signal;
        this.glob = glob;
    }

    /** A fresh in-memory DuckDB instance over {@code dir/*.parquet}, holding {@code signal}'s records, with DuckDB's defaults. */
    public static DuckDbPeer open(Path dir, Signal signal) throws SQLException {
        return open(dir, signal, Settings.defaults());
    }

    /** A fresh in-memory DuckDB instance over {@code dir/*.parquet}, holding {@code signal}'s records. */
    public static DuckDbPeer open(Path dir, Signal signal, Settings settings) throws SQLException {
        // Each plain "jdbc:duckdb:" connection is its own in-memory database: nothing is shared with earlier instances.
        DuckDBConnection conn = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
        try (Statement st = conn.createStatement()) {
            if (settings.threads() > 0) {
                st.execute("SET threads = " + settings.threads());
            }
            st.execute("SET parquet_metadata_cache = " + settings.parquetMetadataCache());
            String glob = PeerSchema.literal(dir.toAbsolutePath().resolve("*.parquet").toString());
            st.execute("CREATE VIEW " + VIEW + " AS SELECT * FROM read_parquet(" + glob + ")");
            return new DuckDbPeer(conn, signal, glob);
        } catch (SQLException | RuntimeException e) {
            conn.close();
            throw e;
        }
    }

    /** Runs {@code lookup} once with DuckDB's profiler on: its rows and what DuckDB read. */
    public PeerAnswer run(Lookup lookup) throws SQLException {
        try (Statement st = conn.createStatement()) {
            st.execute("PRAGMA enable_profiling = 'no_output'");
        }
        try {
            long start = System.nanoTime();
            List<RowKey> rows = execute(lookup);
            long elapsed = System.nanoTime() - start;
            return new PeerAnswer(rows, ScanStats.parse(conn.getProfilingInformation(ProfilerPrintFormat.JSON)), elapsed);
        } finally {
            try (Statement st = conn.createStatement()) {
                st.execute("PRAGMA disable_profiling");
            }
        }
    }

    /**
     * Times {@code lookup} repeated on this connection, profiler off: {@code warmups} runs first,
     * then {@code iterations} measured ones. Every run must return as many rows as the first.
     */
    public Timing warm(Lookup lookup, int warmups, int iterations) throws SQLException {
        return warm(lookup, warmups, iterations, Long.MAX_VALUE);
    }

    /**
     * As {@link #warm(Lookup, int, int)}, but the measured runs stop once {@code budgetNanos} have
     * passed since the first of them, three at least (fewer only when {@code iterations} is): many
     * probes, some of them slow, then take a bounded time.
     */
    public Timing warm(Lookup lookup, int warmups, int iterations, long budgetNanos) throws SQLException {
        if (warmups < 0 || iterations < 1) {
            throw new IllegalArgumentException("warmups (" + warmups + ") must be ≥ 0 and iterations (" + iterations + ") ≥ 1");
        }
        Histogram h = new Histogram(3);
        int expected = execute(lookup).size();
        long budgetStart = 0;
        for (int i = 0; i < warmups + iterations; i++) {
            int measured = i - warmups;
            if (measured == 0) {
                budgetStart = System.nanoTime();
            } else if (measured >= 3 && System.nanoTime() - budgetStart > budgetNanos) {
                break;
            }
            long start = System.nanoTime();
            int rows = execute(lookup).size();
            long elapsed = System.nanoTime() - start;
            if (rows != expected) {
                throw new IllegalStateException("warm run " + i + " returned " + rows + " rows, the first " + expected);
            }
            if (measured >= 0) {
                h.recordValue(elapsed);
            }
        }
        return Timing.of(h);
    }

    /**
     * Times {@code runs} cold lookups, each on a fresh instance (see {@link Cold}). One throwaway
     * instance is opened first so that loading DuckDB's native library, like starting a JVM, is not counted.
     */
    public static Cold cold(Path dir, Signal signal, Settings settings, Lookup lookup, int runs) throws SQLException {
        if (runs < 1) {
            throw new IllegalArgumentException("runs (" + runs + ") must be ≥ 1");
        }
        DriverManager.getConnection("jdbc:duckdb:").close();
        Histogram open = new Histogram(3);
        Histogram first = new Histogram(3);
        int expected = -1;
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            try (DuckDbPeer peer = open(dir, signal, settings)) {
                long opened = System.nanoTime();
                int rows = peer.execute(lookup).size();
                long done = System.nanoTime();
                if (expected >= 0 && rows != expected) {
                    throw new IllegalStateException("cold run " + i + " returned " + rows + " rows, the first " + expected);
                }
                expected = rows;
                open.recordValue(opened - start);
                first.recordValue(done - opened);
            }
        }
        return new Cold(Timing.of(open), Timing.of(first));
    }

    /**
     * How {@code lookup} is decided row group by row group (see {@link Plan}), computed from
     * {@code parquet_metadata()} and {@code parquet_bloom_probe()}, with the matches located by
     * file row number. Fails if a row group ruled out holds a match: a skip must be certain.
     */
    public Plan plan(Lookup lookup) throws SQLException {
        String column = equalityColumn(lookup);
        String type = equalityType(lookup);
        String time = PeerSchema.timeColumn(signal);
        String sql = "WITH eq AS (SELECT file_name, row_group_id, row_group_num_rows AS n, bloom_filter_length AS bloom,"
                + " (CAST(? AS " + type + ") < TRY_CAST(stats_min_value AS " + type + ")"
                + " OR CAST(? AS " + type + ") > TRY_CAST(stats_max_value AS " + type + ")) AS stats_excludes"
                + " FROM parquet_metadata(" + glob + ") WHERE path_in_schema = " + PeerSchema.literal(column) + "),"
                + " tm AS (SELECT file_name, row_group_id,"
                + " (TRY_CAST(stats_max_value AS BIGINT) < ? OR TRY_CAST(stats_min_value AS BIGINT) > ?) AS time_excludes"
                + " FROM parquet_metadata(" + glob + ") WHERE path_in_schema = " + PeerSchema.literal(time) + "),"
                + " bl AS (SELECT file_name, row_group_id, bloom_filter_excludes FROM parquet_bloom_probe("
                + glob + ", " + PeerSchema.literal(column) + ", CAST(? AS " + type + ")))"
                + " SELECT eq.file_name, eq.n, tm.time_excludes, eq.stats_excludes, bl.bloom_filter_excludes, eq.bloom"
                + " FROM eq JOIN tm USING (file_name, row_group_id) LEFT JOIN bl USING (file_name, row_group_id)"
                + " ORDER BY eq.file_name, eq.row_group_id";
        List<RowGroup> rowGroups = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            bindValue(ps, 1, lookup);
            bindValue(ps, 2, lookup);
            ps.setLong(3, lookup.range().fromUnixNano());
            ps.setLong(4, lookup.range().toUnixNano());
            bindValue(ps, 5, lookup);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rowGroups.add(new RowGroup(rs.getString(1), rs.getLong(2), rs.getBoolean(3), rs.getBoolean(4),
                            rs.getBoolean(5), rs.getLong(6)));
                }
            }
        }
        long rows = 0;
        long byTime = 0;
        long byStatistics = 0;
        long byBloom = 0;
        long scanned = 0;
        long rowsInScanned = 0;
        long bloomBytes = 0;
        for (RowGroup g : rowGroups) {
            rows += g.rows();
            if (g.timeExcludes()) {
                byTime++;
            } else if (g.statisticsExclude()) {
                byStatistics++;
            } else {
                bloomBytes += g.bloomBytes();
                if (g.bloomExcludes()) {
                    byBloom++;
                } else {
                    scanned++;
                    rowsInScanned += g.rows();
                }
            }
        }
        long matched = matchedRowGroups(lookup, rowGroups);
        return new Plan(rowGroups.size(), rows, byTime, byStatistics, byBloom, scanned, scanned - matched,
                rowsInScanned, bloomBytes);
    }

    /** One row group's metadata verdicts for a lookup, in file then row group order. */
    private record RowGroup(String file, long rows, boolean timeExcludes, boolean statisticsExclude,
                            boolean bloomExcludes, long bloomBytes) {

        boolean kept() {
            return !timeExcludes && !statisticsExclude && !bloomExcludes;
        }
    }

    /** Every column chunk of every file: encodings and Bloom filter lengths show which columns have filters. */
    public List<ColumnChunk> columnChunks() throws SQLException {
        List<ColumnChunk> chunks = new ArrayList<>();
        try (Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT file_name, row_group_id, path_in_schema, row_group_num_rows,"
                     + " encodings, coalesce(bloom_filter_length, 0) FROM parquet_metadata(" + glob + ")"
                     + " ORDER BY file_name, row_group_id, column_id")) {
            while (rs.next()) {
                chunks.add(new ColumnChunk(rs.getString(1), rs.getLong(2), rs.getString(3), rs.getLong(4),
                        rs.getString(5), rs.getLong(6)));
            }
        }
        return chunks;
    }

    @Override
    public void close() throws SQLException {
        try {
            for (PreparedStatement ps : statements.values()) {
                ps.close();
            }
        } finally {
            conn.close();
        }
    }

    private List<RowKey> execute(Lookup lookup) throws SQLException {
        String time = PeerSchema.timeColumn(signal);
        int limit = lookup instanceof Lookup.AttributeEquals a ? a.limit() : 0;
        String sql = "SELECT * FROM " + VIEW + " WHERE " + predicate(lookup)
                + (limit > 0 ? " ORDER BY " + time + " DESC LIMIT " + limit : "");
        PreparedStatement ps = statements.get(sql);
        if (ps == null) {
            ps = conn.prepareStatement(sql);
            statements.put(sql, ps);
        }
        bind(ps, lookup);
        List<RowKey> rows = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            int traceId = rs.findColumn(PeerSchema.TRACE_ID);
            int spanId = rs.findColumn(PeerSchema.SPAN_ID);
            int timeColumn = rs.findColumn(time);
            while (rs.next()) {
                rows.add(new RowKey(id(rs.getBytes(traceId)), id(rs.getBytes(spanId)), rs.getLong(timeColumn)));
            }
        }
        return rows;
    }

    private static Bytes id(byte[] bytes) {
        return bytes == null ? Bytes.EMPTY : Bytes.wrap(bytes);
    }

    private String predicate(Lookup lookup) {
        String equality = equalityColumn(lookup) + " = ?";
        return lookup.range().isAll() ? equality
                : equality + " AND " + PeerSchema.timeColumn(signal) + " BETWEEN ? AND ?";
    }

    /** Binds {@link #predicate}'s parameters. */
    private static void bind(PreparedStatement ps, Lookup lookup) throws SQLException {
        bindValue(ps, 1, lookup);
        if (!lookup.range().isAll()) {
            ps.setLong(2, lookup.range().fromUnixNano());
            ps.setLong(3, lookup.range().toUnixNano());
        }
    }

    /** Binds the equality's literal as the column's own type, so that DuckDB pushes the comparison into the scan unchanged. */
    private static void bindValue(PreparedStatement ps, int index, Lookup lookup) throws SQLException {
        if (lookup instanceof Lookup.TraceById t) {
            ps.setBytes(index, t.traceId().toByteArray());
            return;
        }
        Lookup.AttributeEquals a = (Lookup.AttributeEquals) lookup;
        AnyValue v = a.value();
        switch (a.column().type()) {
            case VARCHAR -> ps.setString(index, ((AnyValue.Str) v).value());
            case BOOLEAN -> ps.setBoolean(index, ((AnyValue.Bool) v).value());
            case BIGINT -> ps.setLong(index, v instanceof AnyValue.Int i ? i.value() : (long) ((AnyValue.Dbl) v).value());
            case DOUBLE -> ps.setDouble(index, v instanceof AnyValue.Int i ? (double) i.value() : ((AnyValue.Dbl) v).value());
        }
    }

    private static String equalityColumn(Lookup lookup) {
        return lookup instanceof Lookup.AttributeEquals a ? a.column().columnName() : PeerSchema.TRACE_ID;
    }

    private static String equalityType(Lookup lookup) {
        return lookup instanceof Lookup.AttributeEquals a ? a.column().type().name() : "BLOB";
    }

    /** The row groups that hold a match, found by file row number; each must be one the plan keeps. */
    private long matchedRowGroups(Lookup lookup, List<RowGroup> rowGroups) throws SQLException {
        Map<String, List<Integer>> byFile = new HashMap<>();
        for (int i = 0; i < rowGroups.size(); i++) {
            byFile.computeIfAbsent(rowGroups.get(i).file(), f -> new ArrayList<>()).add(i);
        }
        Map<String, long[]> firstRows = new HashMap<>();
        for (Map.Entry<String, List<Integer>> e : byFile.entrySet()) {
            long[] first = new long[e.getValue().size()];
            long row = 0;
            for (int g = 0; g < first.length; g++) {
                first[g] = row;
                row += rowGroups.get(e.getValue().get(g)).rows();
            }
            firstRows.put(e.getKey(), first);
        }
        Set<Integer> matched = new HashSet<>();
        String sql = "SELECT filename, file_row_number FROM read_parquet(" + glob + ", file_row_number = true)"
                + " WHERE " + predicate(lookup);
        try (PreparedStatement ps = conn.prepareStatement(sql)) {
            bind(ps, lookup);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String file = rs.getString(1);
                    long[] first = firstRows.get(file);
                    if (first == null) {
                        throw new IllegalStateException("a match in " + file + ", a file without metadata");
                    }
                    int found = Arrays.binarySearch(first, rs.getLong(2));
                    int index = byFile.get(file).get(found >= 0 ? found : -found - 2);
                    if (!rowGroups.get(index).kept()) {
                        throw new IllegalStateException("a row group of " + file
                                + " is ruled out by its metadata but holds a match for " + lookup);
                    }
                    matched.add(index);
                }
            }
        }
        return matched.size();
    }
}
