package dev.needle.bench.compaction;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code needle bench compaction}: lookups over a corpus of many small blocks before and after
 * {@code needle compact}, and the compaction's throughput; writes {@code compaction-<date>.md} and
 * {@code .json} under the results directory ({@code -Dneedle.results}, default {@code bench/results}).
 */
@Command(name = "bench compaction", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {
            "Ask every trace id (present and absent) and absent span attribute value of a corpus's manifest over the"
                    + " query API's HTTP, warm and cold, with the store's index and without it; compact the corpus IN"
                    + " PLACE with `needle compact`, timing it; ask them all again. Writes the markdown and JSON reports."
                    + " Make the corpus with e.g. `needle gen --spans 25000000 --block-rows 2500 --out DIR`.",
            ""})
public final class CompactionBenchCommand implements Callable<Integer> {

    @Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--corpus", required = true, paramLabel = "DIR",
            description = "a corpus made by `needle gen --out DIR`; it is compacted in place")
    private Path corpus;

    @Option(names = "--warm-runs", paramLabel = "N",
            description = "measured runs of each probe on a warm engine, after one that fills its caches (default: ${DEFAULT-VALUE})")
    private int warmRuns = 3;

    @Option(names = "--cold-probes", paramLabel = "N",
            description = "probes of each kind measured cold, each on a new engine (default: ${DEFAULT-VALUE})")
    private int coldProbes = 10;

    @Option(names = "--block-rows", paramLabel = "N", description = "passed to `needle compact` (default: its own)")
    private Integer blockRows;

    @Option(names = "--note", paramLabel = "TEXT", description = "a sentence for the report on the conditions of the run")
    private String note;

    /** Runs the command. */
    public static void main(String[] args) {
        System.exit(OneLineFailure.commandLine(new CompactionBenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        String script = System.getProperty("needle.script");
        if (script == null) {
            err.println("needle bench compaction: run it as `./needle bench compaction`, which names the needle script");
            return CommandLine.ExitCode.USAGE;
        }
        if (warmRuns < 1 || coldProbes < 0) {
            err.println("needle bench compaction: --warm-runs must be at least 1 and --cold-probes at least 0, got "
                    + warmRuns + " and " + coldProbes);
            return CommandLine.ExitCode.USAGE;
        }
        if (!Files.isRegularFile(corpus.resolve("manifest.json"))) {
            err.println("needle bench compaction: " + corpus + " holds no manifest.json: make a corpus with"
                    + " `needle gen --out " + corpus + "`");
            return CommandLine.ExitCode.USAGE;
        }
        List<String> compact = new ArrayList<>();
        if (blockRows != null) {
            compact.addAll(List.of("--block-rows", blockRows.toString()));
        }
        CompactionBench.Options options = new CompactionBench.Options(corpus, Path.of(script), compact, warmRuns,
                coldProbes);
        CompactionBenchResult result = new CompactionBench(options, line -> {
            err.println("needle bench compaction: " + line);
            err.flush();
        }).run();
        Path results = Path.of(System.getProperty("needle.results", "bench/results"));
        Files.createDirectories(results);
        Path md = results.resolve("compaction-" + result.date() + ".md");
        Files.writeString(md, CompactionBenchReport.markdown(result, setup()));
        Path json = results.resolve("compaction-" + result.date() + ".json");
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), result);
        PrintWriter out = spec.commandLine().getOut();
        out.print(CompactionBenchReport.table(result.lookups()));
        out.println("report: " + md + " (and " + json.getFileName() + ")");
        out.flush();
        return 0;
    }

    /** How the run was made, for the report. */
    private String setup() {
        Runtime rt = Runtime.getRuntime();
        return "`needle bench compaction --corpus " + corpus.toAbsolutePath().normalize().getFileName() + " --warm-runs "
                + warmRuns + " --cold-probes " + coldProbes + (blockRows == null ? "" : " --block-rows " + blockRows)
                + "`, on " + rt.availableProcessors() + " cores, Java " + System.getProperty("java.version") + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ". Every lookup is a GET of the"
                + " query API (`/api/v2/traces/{id}`, `/api/search?q=…&limit=20`) over one kept-alive connection, its"
                + " answer checked against the manifest. **index**: every mechanism; **no index**: `disable=index`, the"
                + " blocks from a listing and each block's own sidecars. **Warm**: an engine made ready as `needle serve`"
                + " makes it (index and sidecars read, one lookup), each probe asked once to fill its caches, then"
                + " measured. **Cold**: a new engine before each lookup (no index read, no listing, no sidecar cached);"
                + " the operating system's page cache is not emptied. Between the two phases the corpus is compacted in"
                + " place by `needle compact`, run as a user runs it." + (note == null ? "" : " " + note);
    }
}
