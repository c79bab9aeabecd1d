package dev.needle.bench.scenario;

import dev.needle.bench.peer.FlattenedAttribute;
import dev.needle.bench.peer.DuckDbPeer;
import dev.needle.bench.peer.Lookup;
import dev.needle.bench.peer.ParquetExport;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.Manifest;
import dev.needle.corpus.output.Batches;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The peer: the same corpus exported once to Parquet with Bloom filters (under {@code <data>/parquet}),
 * a file per needle block's worth of rows,
 * the same lookups run through DuckDB, warm and cold, and every answer compared with needle's.
 */
public final class PeerRunner {

    /** What DuckDB did for one scenario. */
    public record PeerResult(Scenario scenario, AnswerDigest answer, DuckDbPeer.Plan plan, DuckDbPeer.Timing warm,
                             DuckDbPeer.Cold cold) {
    }

    /**
     * What DuckDB did for one probe: its answer (equal to needle's), the row groups its profile says it
     * read, and its warm latency.
     */
    public record PeerProbe(Scenario scenario, AnswerDigest answer, long rowGroupsRead, DuckDbPeer.Timing warm) {
    }

    private final Path data;
    private final Manifest manifest;
    private final int warmRuns;

    /** A peer over the corpus in {@code data}, described by {@code manifest}. */
    public PeerRunner(Path data, Manifest manifest, int warmRuns) {
        this.data = data;
        this.manifest = manifest;
        this.warmRuns = warmRuns;
    }

    /** Exports the corpus to Parquet unless an export of the same corpus with the same options is there. */
    public void ensureExported(Consumer<String> progress) throws IOException, SQLException {
        Corpus corpus = new Corpus(manifest.spec());
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "needle-peer-gen");
            t.setDaemon(true);
            return t;
        });
        try {
            for (Signal signal : Signal.values()) {
                ParquetExport.Options options = ParquetExport.Options.defaults().withRowsPerFile(manifest.spec().blockRows());
                ParquetExport export = new ParquetExport(columns(signal), options);
                Path dir = dir(signal);
                Path done = data.resolve("parquet").resolve(signal.dirName() + ".done");
                String stamp = manifest.spec() + "\n" + options + "\n" + columns(signal);
                if (Files.exists(done) && Files.readString(done, StandardCharsets.UTF_8).equals(stamp)) {
                    continue;
                }
                progress.accept("exporting " + signal.dirName() + " to Parquet");
                deleteParquet(dir);
                if (signal == Signal.SPANS) {
                    export.exportSpans(new Batches<SpanRecord>(corpus.spanChunks(), corpus::spans, manifest.spec().blockRows(), 1,
                            pool, corpus.spanTally()), dir);
                } else {
                    export.exportLogs(new Batches<LogRecord>(corpus.logChunks(), corpus::logs, manifest.spec().blockRows(), 1,
                            pool, corpus.logTally()), dir);
                }
                Files.writeString(done, stamp, StandardCharsets.UTF_8);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** What to measure of a lookup DuckDB answered as needle did, on the signal's instance, with what its profiled run read. */
    @FunctionalInterface
    private interface Measure<T> {
        T measure(DuckDbPeer peer, Signal signal, Scenario scenario, Lookup lookup, AnswerDigest answer,
                  DuckDbPeer.ScanStats stats) throws SQLException;
    }

    /**
     * Runs every scenario DuckDB can express (trace by id, one attribute equality) and checks each
     * answer against needle's all-mechanisms answer in {@code needle}.
     */
    public List<PeerResult> run(List<Measurement> needle, Consumer<String> progress) throws SQLException {
        return each(needle, progress, (peer, signal, s, lookup, answer, stats) -> new PeerResult(s, answer,
                peer.plan(lookup), peer.warm(lookup, 3, warmRuns),
                DuckDbPeer.cold(dir(signal), signal, DuckDbPeer.Settings.defaults(), lookup, 3)));
    }

    /**
     * Like {@link #run}, but warm only and lighter, for many probes: one untimed run, then up to
     * {@code runs} timed ones within {@code budgetMillis} (three at least), as needle's probes are
     * timed; no plan and no cold runs.
     */
    public List<PeerProbe> warmEach(List<Measurement> needle, int runs, long budgetMillis, Consumer<String> progress)
            throws SQLException {
        long budgetNanos = TimeUnit.MILLISECONDS.toNanos(budgetMillis);
        return each(needle, progress, (peer, signal, s, lookup, answer, stats) -> new PeerProbe(s, answer,
                stats.rowGroupsScanned(), peer.warm(lookup, 1, runs, budgetNanos)));
    }

    private <T> List<T> each(List<Measurement> needle, Consumer<String> progress, Measure<T> measure) throws SQLException {
        List<T> out = new ArrayList<>();
        DuckDbPeer.Settings warmSettings = new DuckDbPeer.Settings(0, true);
        for (Signal signal : Signal.values()) {
            try (DuckDbPeer peer = DuckDbPeer.open(dir(signal), signal, warmSettings)) {
                for (Measurement m : needle) {
                    Scenario s = m.scenario();
                    if (m.setting() != Setting.ALL || signalOf(s) != signal) {
                        continue;
                    }
                    Lookup lookup = lookup(s);
                    if (lookup == null) {
                        continue;
                    }
                    progress.accept("DuckDB: " + s.name());
                    DuckDbPeer.PeerAnswer raw = peer.run(lookup);
                    AnswerDigest answer = answer(signal, raw);
                    if (!answer.equals(m.answer())) {
                        throw new ScenarioRunner.WrongAnswerException(s.name() + ": DuckDB answered " + answer
                                + ", needle " + m.answer());
                    }
                    out.add(measure.measure(peer, signal, s, lookup, answer, raw.stats()));
                }
            }
        }
        return out;
    }

    /** The COPY options the export writes every file with (rows per file aside). */
    public static String copyOptions() {
        return ParquetExport.Options.defaults().copyOptions();
    }

    /** DuckDB's own version string, such as {@code v1.4.0}, or what went wrong asking for it. */
    public static String duckDbVersion() {
        try (Connection conn = DriverManager.getConnection("jdbc:duckdb:");
             Statement st = conn.createStatement();
             ResultSet rs = st.executeQuery("SELECT version()")) {
            return rs.next() ? rs.getString(1) : "(unknown version)";
        } catch (SQLException e) {
            return "(version unknown: " + e.getMessage() + ")";
        }
    }

    private static Signal signalOf(Scenario s) {
        return s.kind() == Scenario.Kind.LOGS ? Signal.LOGS : Signal.SPANS;
    }

    private static Lookup lookup(Scenario s) {
        if (s.kind() == Scenario.Kind.TRACE) {
            return new Lookup.TraceById(s.traceId(), s.range());
        }
        Manifest.AttributeProbe p = s.equality();
        return p == null ? null
                : new Lookup.AttributeEquals(FlattenedAttribute.of(p.scope(), p.key(), p.type()), p.value(), s.range(),
                        Lookups.LIMIT);
    }

    private static AnswerDigest answer(Signal signal, DuckDbPeer.PeerAnswer answer) {
        return AnswerDigest.of(answer.rows().stream().map(r -> signal == Signal.SPANS
                ? AnswerDigest.spanIdentity(r.traceId().hex(), r.spanId().hex())
                : AnswerDigest.logIdentity(r.timeUnixNano(), r.traceId().hex(), r.spanId().hex())).toList());
    }

    /** The attributes flattened into columns: every key the manifest names for the signal. */
    private List<FlattenedAttribute> columns(Signal signal) {
        Set<FlattenedAttribute> columns = new LinkedHashSet<>();
        for (List<Manifest.AttributeProbe> probes : List.of(manifest.presentAttributes(), manifest.absentAttributes())) {
            for (Manifest.AttributeProbe p : probes) {
                if (p.signal().equals(signal.dirName())) {
                    columns.add(FlattenedAttribute.of(p.scope(), p.key(), p.type()));
                }
            }
        }
        return List.copyOf(columns);
    }

    private Path dir(Signal signal) {
        return data.resolve("parquet").resolve(signal.dirName());
    }

    private static void deleteParquet(Path dir) throws IOException {
        if (Files.isDirectory(dir)) {
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
        }
    }
}
