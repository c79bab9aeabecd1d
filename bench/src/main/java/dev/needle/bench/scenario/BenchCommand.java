package dev.needle.bench.scenario;

import dev.needle.bench.StoreFacts;
import dev.needle.bench.fpr.FprPoint;
import dev.needle.bench.fpr.FprSweep;
import dev.needle.bench.ingest.IngestBench;
import dev.needle.bench.ingest.IngestBenchReport;
import dev.needle.bench.server.JavaLaunch;
import dev.needle.bench.server.Launcher;
import dev.needle.bench.server.ScriptLaunch;
import dev.needle.blocks.cli.DataDirectory;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.Manifest;
import dev.needle.ingest.server.ServeCommand;
import dev.needle.query.cli.QueryCommand;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.stream.Stream;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code needle bench --corpus smoke|seed}: the scenario benchmark, its checks, and its result files. */
@Command(name = "bench", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = "Run every scenario of a corpus under every mechanism setting, warm and in fresh JVMs, with "
                + "the false-positive sweep; every probe of its manifest through the engine, DuckDB and a running server's "
                + "HTTP API; a fresh server's first answer and a fresh query process; check that all answers agree; write "
                + "bench/results/<corpus>-<date>.*")
public final class BenchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--corpus", required = true, description = "smoke or seed")
    String corpus;

    @Option(names = "--data", paramLabel = "DIR", description = "where the corpus is (generated there when missing; "
            + "default: <tmp>/needle-corpus-<corpus>)")
    Path data;

    @Option(names = "--results", paramLabel = "DIR", description = "where result files go (default ${DEFAULT-VALUE})")
    Path results = Path.of(System.getProperty("needle.results", "bench/results"));

    @Option(names = "--warm", paramLabel = "N", description = "most warm runs per scenario and setting (default ${DEFAULT-VALUE})")
    int warmRuns = 50;

    @Option(names = "--warm-budget-ms", paramLabel = "MS", description = "stop warm runs of one scenario and setting after this long, "
            + "three runs at least (default ${DEFAULT-VALUE})")
    long warmBudgetMillis = 3000;

    @Option(names = "--settings", paramLabel = "LIST", split = ",", description = "the mechanism settings of the warm"
            + " runs: all, none, time, trace-idx, attr-idx, zone-maps (default: every one); the report's command says"
            + " which ran")
    List<String> settingWords = List.of();

    @Option(names = "--threads", description = "the engine's scanning threads (default: available processors)")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--no-cold", description = "skip the fresh-JVM runs")
    boolean noCold;

    @Option(names = "--no-peer", description = "skip the DuckDB peer")
    boolean noPeer;

    @Option(names = "--ingest", paramLabel = "N", description = "spans and logs sent per ingest workload to a fresh server; "
            + "0 skips ingest (default: 1,000,000 for seed, 20,000 for smoke)")
    Long ingestRecords;

    @Option(names = "--fpr-probes", paramLabel = "N", description = "absent keys per point of the false-positive sweep; 0 skips it (default ${DEFAULT-VALUE})")
    int fprProbes = FprSweep.DEFAULT_PROBES;

    @Option(names = "--probe-runs", paramLabel = "N", description = "most timed runs of every probe of the manifest (attribute "
            + "values, trace ids) through the engine, DuckDB and the HTTP API; 0 skips the probes (default ${DEFAULT-VALUE})")
    int probeRuns = 10;

    @Option(names = "--probe-budget-ms", paramLabel = "MS", description = "stop timed runs of one probe after this long, "
            + "three runs at least (default ${DEFAULT-VALUE})")
    long probeBudgetMillis = 600;

    @Option(names = "--no-http", description = "skip the lookups through the HTTP API of a running server")
    boolean noHttp;

    @Option(names = "--cold-runs", paramLabel = "N", description = "fresh servers (start to first answer) and fresh query "
            + "processes timed; 0 skips them, as --no-cold does (default ${DEFAULT-VALUE})")
    int coldRuns = 5;

    @Option(names = "--serve-jar", paramLabel = "JAR", description = "the server's executable jar (the needle script "
            + "gives it; default: the server's main class on this benchmark's class path)")
    Path serveJar = jarProperty("needle.serveJar");

    @Option(names = "--query-jar", paramLabel = "JAR", description = "the query command's executable jar (default: "
            + "./needle query, as the needle script gives itself; else its main class on this benchmark's class path)")
    Path queryJar;

    /** The needle script that started this benchmark, if it did: fresh query processes are timed through it. */
    private final Path script = jarProperty("needle.script");

    /** Runs the benchmark. */
    public static void main(String[] args) {
        System.exit(OneLineFailure.commandLine(new BenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        BenchCorpus chosen;
        try {
            chosen = BenchCorpus.valueOf(corpus.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--corpus must be smoke or seed, got '" + corpus + "'");
        }
        List<Setting> settings;
        try {
            settings = settingWords.isEmpty() ? Arrays.asList(Setting.values())
                    : settingWords.stream().map(Setting::of).distinct().toList();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--settings: " + e.getMessage());
        }
        Path dir = data != null ? data : Path.of(System.getProperty("java.io.tmpdir"), "needle-corpus-" + chosen.label());
        DataDirectory.createWritable(dir);
        Manifest manifest;
        long records = chosen.spec().spans() + chosen.spec().logs();
        try (ProgressBar bar = bar("corpus", records)) {
            manifest = chosen.ensure(dir, bar::stepBy);
            bar.stepTo(records);
        }
        PeerRunner peerRunner = new PeerRunner(dir, manifest, warmRuns);
        if (!noPeer) {
            peerRunner.ensureExported(step -> System.err.println("peer: " + step));
        }
        List<Scenario> scenarios = Scenarios.of(manifest);
        ScenarioRunner runner = new ScenarioRunner(dir, TenantId.DEFAULT,
                new ScenarioRunner.Options(warmRuns, warmBudgetMillis, threads));
        List<Measurement> warm;
        try (ProgressBar bar = bar("warm", (long) scenarios.size() * settings.size())) {
            warm = runner.warm(scenarios, settings, stepper(bar));
        }
        List<ColdRun> cold = new ArrayList<>();
        if (!noCold) {
            List<Measurement> coldTargets = warm.stream().filter(m -> m.setting() == Setting.ALL
                    || (m.setting() == Setting.NONE && m.scenario().headline())).toList();
            try (ProgressBar bar = bar("cold", coldTargets.size())) {
                for (Measurement m : coldTargets) {
                    bar.setExtraMessage(m.scenario().name());
                    cold.add(runner.cold(m.scenario(), m.setting(), m.answer()));
                    bar.step();
                }
            }
        }
        List<PeerRunner.PeerResult> peer = List.of();
        if (!noPeer) {
            List<Measurement> all = warm.stream().filter(m -> m.setting() == Setting.ALL).toList();
            try (ProgressBar bar = bar("duckdb", all.size())) {
                peer = peerRunner.run(warm, stepper(bar));
            }
        }
        GoalRun.Results goals = GoalRun.run(dir, manifest, noPeer ? null : peerRunner,
                new GoalRun.Options(probeRuns, probeBudgetMillis, threads, !noHttp, noCold ? 0 : coldRuns,
                        JavaLaunch.jarOr(serveJar, ServeCommand.class), queryLaunch()),
                BenchCommand::bar);
        List<FprPoint> fpr = fprProbes == 0 ? List.of() : new FprSweep(FprSweep.DEFAULT_BITS, fprProbes, FprSweep.DEFAULT_SEED).run();
        long perWorkload = ingestRecords != null ? ingestRecords : chosen == BenchCorpus.SEED ? 1_000_000 : 20_000;
        List<IngestBench.Result> ingest = perWorkload == 0 ? List.of()
                : IngestBench.run(IngestBench.Options.defaults().withRecords(perWorkload, perWorkload)
                        .withProgress(step -> System.err.println("ingest: " + step)));
        String date = LocalDate.now(ZoneOffset.UTC).toString();
        BenchReport report = new BenchReport(chosen.label(), date, header(chosen, dir),
                StoreFacts.of(dir, TenantId.DEFAULT, Signal.SPANS), StoreFacts.of(dir, TenantId.DEFAULT, Signal.LOGS),
                settings, warm, cold, fpr, peer);
        goals.addTo(report);
        if (!ingest.isEmpty()) {
            report.add(new BenchReport.Section("Ingest over OTLP/HTTP", "ingest",
                    "Each workload: a fresh `needle serve` child process (fsynced WAL), a warm-up, then the corpus sent by "
                            + "corpus-gen's sender (8 requests in flight, 1,000 records each); the generator's own ceiling "
                            + "is the same send as a dry run. Client and server share this machine's cores.\n\n"
                            + IngestBenchReport.markdown(ingest), g -> IngestBenchReport.writeJson(g, ingest)));
        }
        Path md = report.write(results);
        System.out.println(GoalTable.markdown(goals.goals()));
        System.out.println(report.headline());
        System.out.println("results: " + md);
        return 0;
    }

    /** A progress listener that steps {@code bar} once per step, showing the step. */
    static Consumer<String> stepper(ProgressBar bar) {
        return step -> {
            bar.setExtraMessage(step);
            bar.step();
        };
    }

    /** The jar a system property names, or null. */
    /** How fresh query processes start: the jar given, else through the needle script, else from the class path. */
    private Launcher queryLaunch() {
        if (queryJar == null && script != null) {
            return new ScriptLaunch(script, "query");
        }
        return JavaLaunch.jarOr(queryJar, QueryCommand.class);
    }

    private static Path jarProperty(String name) {
        String value = System.getProperty(name);
        return value == null ? null : Path.of(value);
    }

    /** A progress bar on standard error. */
    static ProgressBar bar(String task, long max) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(max).setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(500).setConsumer(new ConsoleProgressBarConsumer(System.err)).build();
    }

    private String header(BenchCorpus chosen, Path dir) throws IOException {
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getTotalMemorySize();
        String cpu = "unknown CPU";
        Path cpuinfo = Path.of("/proc/cpuinfo");
        if (Files.isReadable(cpuinfo)) {
            try (Stream<String> lines = Files.lines(cpuinfo)) {
                cpu = lines.filter(l -> l.startsWith("model name")).map(l -> l.substring(l.indexOf(':') + 1).trim())
                        .findFirst().orElse(cpu);
            }
        }
        String command = String.join(" ", spec.commandLine().getParseResult().originalArgs());
        return String.format(Locale.ROOT, "Command: `./needle bench %s` (data in %s; warm: after up to %d untimed runs, up to %d timed runs or %d ms per cell; "
                        + "every probe of the manifest: up to %d timed runs or %d ms each).%n"
                        + "Machine: %d cores (%s), %.1f GiB RAM, Java %s, %s.",
                command, dir, WarmLoop.WARM_UP_RUNS, warmRuns, warmBudgetMillis, probeRuns, probeBudgetMillis,
                Runtime.getRuntime().availableProcessors(), cpu,
                memory / (double) (1L << 30), System.getProperty("java.version"), System.getProperty("os.name"));
    }
}
