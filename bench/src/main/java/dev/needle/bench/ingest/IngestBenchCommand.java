package dev.needle.bench.ingest;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.bench.ingest.IngestBench.Options;
import dev.needle.bench.ingest.IngestBench.Result;
import dev.needle.bench.ingest.IngestBench.Workload;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code needle bench ingest}: the ingest workloads alone, each against a fresh server; writes
 * {@code ingest-<date>.md} and {@code .json} under the results directory ({@code -Dneedle.results},
 * default {@code bench/results}).
 */
@Command(name = "bench ingest", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = "Send spans and logs over OTLP/HTTP (protobuf, JSON, each plain and gzipped) to a fresh `needle serve`"
                + " per workload: accepted records/s beside the sender's own ceiling, request latency, the server's CPU and GC"
                + " time per million records and its head over time, and the latency of a run paced at 80%% of the goal."
                + " Writes the markdown and JSON reports.")
public final class IngestBenchCommand implements Callable<Integer> {

    @Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--records", paramLabel = "N", description = "spans and logs sent per workload (default: ${DEFAULT-VALUE})")
    private long records = 1_000_000;

    @Option(names = "--workloads", paramLabel = "LIST", split = ",", description = "such as spans-protobuf,logs-json-gzip;"
            + " all for every one (default: ${DEFAULT-VALUE})")
    private List<String> workloads = List.of("all");

    @Option(names = "--warm-up", paramLabel = "SECONDS", description = "sending before the measurement, per server "
            + "(default: ${DEFAULT-VALUE})")
    private int warmUpSeconds = 20;

    @Option(names = "--paced", paramLabel = "SECONDS", description = "the most the paced run lasts; 0 skips it "
            + "(default: ${DEFAULT-VALUE})")
    private int pacedSeconds = 10;

    @Option(names = "--pre-encode", description = "make and encode the measured send's requests before its clock starts,"
            + " so that it only posts them: the server's rate without the generator's work on the same cores")
    private boolean preEncode;

    @Option(names = "--server-heap", paramLabel = "SIZE", description = "the server's -Xmx, as NEEDLE_HEAP gives "
            + "./needle serve (default: ${DEFAULT-VALUE})")
    private String serverHeap = "1g";

    @Option(names = "--note", paramLabel = "TEXT", description = "a sentence for the report on the conditions of the run")
    private String note;

    /** Runs the command. */
    public static void main(String[] args) {
        System.exit(OneLineFailure.commandLine(new IngestBenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (records < 1 || warmUpSeconds < 0 || pacedSeconds < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--records must be ≥ 1 and --warm-up, --paced ≥ 0");
        }
        Options options = Options.defaults().withRecords(records, records).withWorkloads(chosen())
                .withWarmUp(Duration.ofSeconds(warmUpSeconds)).withPaced(Duration.ofSeconds(pacedSeconds))
                .withPreEncode(preEncode)
                .withServerJvmArgs(List.of("-Xmx" + serverHeap))
                .withProgress(step -> spec.commandLine().getErr().println("ingest: " + step));
        List<Result> results = IngestBench.run(options);
        String date = LocalDate.now(ZoneOffset.UTC).toString();
        Path dir = Path.of(System.getProperty("needle.results", "bench/results"));
        Files.createDirectories(dir);
        String table = IngestBenchReport.markdown(results);
        Path md = dir.resolve("ingest-" + date + ".md");
        Files.writeString(md, "# Ingest over OTLP/HTTP, " + date + "\n\n" + setup() + "\n\n" + table);
        try (JsonGenerator g = new JsonFactory().createGenerator(dir.resolve("ingest-" + date + ".json").toFile(),
                JsonEncoding.UTF8).useDefaultPrettyPrinter()) {
            IngestBenchReport.writeJson(g, results);
        }
        spec.commandLine().getOut().println(table);
        spec.commandLine().getOut().println("results: " + md);
        return 0;
    }

    private List<Workload> chosen() {
        List<Workload> all = Workload.all();
        if (workloads.equals(List.of("all"))) {
            return all;
        }
        List<Workload> chosen = new ArrayList<>();
        for (String name : workloads) {
            Workload w = all.stream().filter(x -> x.directoryName().equals(name)).findFirst()
                    .orElseThrow(() -> new CommandLine.ParameterException(spec.commandLine(), "unknown workload '" + name
                            + "': expected all or some of " + all.stream().map(Workload::directoryName).toList()));
            chosen.add(w);
        }
        return chosen;
    }

    private String setup() throws IOException {
        long memory = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
        String command = String.join(" ", spec.commandLine().getParseResult().originalArgs());
        return String.format(Locale.ROOT, "Command: `./needle bench ingest %s`. Each workload: a fresh `needle serve` "
                        + "child process (-Xmx%s, fsynced write-ahead log, background compaction on as by default), %d s of "
                        + "warm-up, then %,d records sent by corpus-gen's sender (8 requests in flight, 1,000 records each) "
                        + "on the same cores, %s; the generator's own ceiling is the same send as a dry run.%n"
                        + "Machine: %d cores, %.1f GiB RAM, Java %s, %s.%s",
                command, serverHeap, warmUpSeconds, records, preEncode ? "its requests made and encoded before the "
                        + "measured send (--pre-encode)" : "made and encoded as they are sent", Runtime.getRuntime().availableProcessors(),
                memory / (double) (1L << 30), System.getProperty("java.version"), System.getProperty("os.name"),
                note == null ? "" : "\n" + note);
    }
}
