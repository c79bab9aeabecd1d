package dev.needle.bench.scenario;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.bench.server.Launcher;
import dev.needle.bench.server.QueryClient;
import dev.needle.bench.server.ServerProcess;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.Manifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import me.tongfei.progressbar.ProgressBar;

/**
 * The lookups the speed goals are stated for, in one run: every probe of the manifest through the
 * engine and DuckDB, trace by id and searches through the HTTP API of a running server, and the
 * cold paths of a fresh server and a fresh query process.
 */
final class GoalRun {

    /**
     * What to run.
     *
     * @param probeRuns         most timed runs per probe; 0 skips the probes
     * @param probeBudgetMillis stop timing one probe after this long (see {@link WarmLoop})
     * @param threads           the engine's scanning threads
     * @param http              whether to run lookups through a running server's HTTP API
     * @param coldRuns          fresh servers and fresh query processes to time; 0 for none
     * @param serve             how to start {@code needle serve}
     * @param query             how to start {@code needle query}
     */
    record Options(int probeRuns, long probeBudgetMillis, int threads, boolean http, int coldRuns, JavaLaunch serve,
                   Launcher query) {
    }

    /**
     * What the run measured; empty lists and a null {@code cold} for parts not run.
     *
     * @param manifest   the corpus's manifest
     * @param serve      how the server was started
     * @param maxRuns    most timed runs per probe
     * @param attributes every attribute probe
     * @param traces     every present trace id
     * @param searches   the searches through the HTTP API
     * @param cold       the cold paths
     */
    record Results(Manifest manifest, JavaLaunch serve, int maxRuns, List<ProbeResult> attributes,
                   List<ProbeResult> traces, List<ServedLookups.Search> searches, ColdPaths.Result cold) {

        /** The goal table's rows. */
        List<GoalTable.Row> goals() {
            return GoalTable.rows(this);
        }

        /** Adds the goal table before the report's own sections, and a section per part run after them. */
        void addTo(BenchReport report) {
            report.lead(GoalTable.section(goals()));
            if (!attributes.isEmpty()) {
                report.add(ProbeSections.attributes(attributes, maxRuns));
            }
            if (!traces.isEmpty()) {
                report.add(ProbeSections.traces(traces, maxRuns));
            }
            if (!searches.isEmpty()) {
                report.add(ServedSections.searches(serve.describe(), searches, maxRuns));
            }
            if (cold != null) {
                report.add(ServedSections.cold(cold));
            }
        }
    }

    /** Makes the progress bar of one task. */
    @FunctionalInterface
    interface BarFactory {
        ProgressBar bar(String task, long steps);
    }

    private GoalRun() {
    }

    /**
     * Runs it all over the corpus in {@code data}; DuckDB through {@code peer} unless it is null.
     * {@code bars} makes a progress bar for a task and its steps.
     */
    static Results run(Path data, Manifest manifest, PeerRunner peer, Options options,
                       BarFactory bars) throws IOException, SQLException, InterruptedException {
        List<ProbeResult> attributes = List.of();
        List<ProbeResult> traces = List.of();
        if (options.probeRuns() > 0) {
            ScenarioRunner runner = new ScenarioRunner(data, TenantId.DEFAULT,
                    new ScenarioRunner.Options(options.probeRuns(), options.probeBudgetMillis(), options.threads()));
            List<ManifestProbes.Probe> attributeProbes = ManifestProbes.attributes(manifest);
            List<ManifestProbes.Probe> traceProbes = ManifestProbes.traces(manifest);
            try (ProgressBar bar = bars.bar("probes", attributeProbes.size() + traceProbes.size())) {
                attributes = ManifestProbes.measure(runner, attributeProbes, BenchCommand.stepper(bar));
                traces = ManifestProbes.measure(runner, traceProbes, BenchCommand.stepper(bar));
            }
            if (peer != null) {
                try (ProgressBar bar = bars.bar("duckdb probes", attributes.size() + traces.size())) {
                    attributes = ManifestProbes.withDuckDb(attributes, peer.warmEach(needle(attributes),
                            options.probeRuns(), options.probeBudgetMillis(), BenchCommand.stepper(bar)));
                    traces = ManifestProbes.withDuckDb(traces, peer.warmEach(needle(traces), options.probeRuns(),
                            options.probeBudgetMillis(), BenchCommand.stepper(bar)));
                }
            }
        }
        List<ServedLookups.Search> searches = List.of();
        if (options.http()) {
            Path log = Files.createTempFile("needle-bench-serve", ".log");
            try (ServerProcess server = ServerProcess.start(options.serve(), List.of(), data, log);
                 ProgressBar bar = bars.bar("http", traces.size() + 3)) {
                ServedLookups served = new ServedLookups(new QueryClient(server.query()),
                        Math.max(1, options.probeRuns()), options.probeBudgetMillis());
                traces = served.traces(traces, BenchCommand.stepper(bar));
                searches = served.searches(manifest, BenchCommand.stepper(bar));
                server.stop();
            } finally {
                Files.deleteIfExists(log);
            }
        }
        ColdPaths.Result cold = null;
        if (options.coldRuns() > 0) {
            try (ProgressBar bar = bars.bar("cold paths", 2L * options.coldRuns())) {
                cold = ColdPaths.run(options.serve(), options.query(), data, ManifestProbes.headlineTrace(manifest),
                        options.coldRuns(), BenchCommand.stepper(bar));
            }
        }
        return new Results(manifest, options.serve(), options.probeRuns(), attributes, traces, searches, cold);
    }

    private static List<Measurement> needle(List<ProbeResult> results) {
        return results.stream().map(ProbeResult::needle).toList();
    }
}
