package dev.needle.bench.s3;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.corpus.Manifest;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code needle bench s3}: every probe of a corpus, asked over HTTP of a query node that reads the
 * corpus from S3 with a latency injected per request; writes {@code s3-<date>-<corpus>.md} and
 * {@code .json} under the results directory ({@code -Dneedle.results}, default {@code bench/results}).
 */
@Command(name = "bench s3", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = {
            "Serve a corpus made by `needle gen` from a local S3-compatible server (S3Proxy; the bucket is a temporary"
                    + " directory of hard links to the corpus's files, nothing is copied or changed), hold each request"
                    + " to it for a fixed latency (a simulation of S3's"
                    + " first-byte latency), and ask a query node every probe of the corpus's manifest over HTTP, cold"
                    + " and warm, under each mechanism setting: latency, requests, bytes and sequential round trips per"
                    + " lookup, and the index reads per poll interval. Writes the markdown and JSON reports.",
            ""})
public final class S3BenchCommand implements Callable<Integer> {

    @Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--corpus", required = true, paramLabel = "DIR",
            description = "a corpus made by `needle gen --out DIR` (blocks and manifest.json); its name is the bucket's")
    private Path corpus;

    @Option(names = "--latency", paramLabel = "LIST", split = ",",
            description = "latencies held before each request to the store, e.g. 0ms,30ms (default: ${DEFAULT-VALUE})")
    private List<String> latencies = List.of("0ms", "30ms");

    @Option(names = "--settings", paramLabel = "LIST", split = ",",
            description = "mechanism settings: all, no-sidecars, no-index, neither (default: ${DEFAULT-VALUE})")
    private List<String> settings = List.of("all", "no-sidecars", "no-index", "neither");

    @Option(names = "--only", paramLabel = "SETTING=KINDS",
            description = "ask only these probes under a setting, '+' between them: trace, span, log (a search of"
                    + " spans or of logs), trace:FAMILY (the trace ids of one family of the manifest, e.g. trace:random);"
                    + " e.g. --only neither=trace:random+log, for a setting whose every probe would take too long; the"
                    + " report says which were asked. Repeatable")
    private Map<String, String> only = new LinkedHashMap<>();

    @Option(names = "--caches", paramLabel = "LIST", split = ",",
            description = "cold (every cache empty), warm, or both (default: ${DEFAULT-VALUE})")
    private List<String> caches = List.of("cold", "warm");

    @Option(names = "--warm-runs", paramLabel = "N",
            description = "measured runs of each probe on the warm node, after one that fills its caches (default: ${DEFAULT-VALUE})")
    private int warmRuns = 3;

    @Option(names = "--idle", paramLabel = "DURATION", description = "how long the warm node is left idle while its requests"
            + " are counted (default: ${DEFAULT-VALUE})")
    private String idle = "5s";

    @Option(names = "--busy", paramLabel = "DURATION", description = "how long it answers lookups back to back while its"
            + " index reads are counted (default: ${DEFAULT-VALUE})")
    private String busy = "5s";

    @Option(names = "--tag", paramLabel = "WORD",
            description = "added to the reports' names, s3-<date>-<corpus>-WORD, so that runs of one day are kept apart")
    private String tag;

    @Option(names = "--note", paramLabel = "TEXT", description = "a sentence for the report on the conditions of the run")
    private String note;

    @Option(names = "--json", description = "print the results as JSON instead of the goals table")
    private boolean json;

    /** Runs the command. */
    public static void main(String[] args) {
        System.exit(OneLineFailure.commandLine(new S3BenchCommand()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        PrintWriter err = spec.commandLine().getErr();
        S3Bench.Options options;
        try {
            List<Duration> parsed = new ArrayList<>();
            for (String l : latencies) {
                parsed.add(duration(l));
            }
            if (warmRuns < 1) {
                throw new IllegalArgumentException("--warm-runs must be at least 1, got " + warmRuns);
            }
            if (!Files.isRegularFile(corpus.resolve("manifest.json"))) {
                throw new IllegalArgumentException(corpus + " holds no manifest.json: make a corpus with"
                        + " `needle gen --out " + corpus + "`");
            }
            for (String c : caches) {
                if (!c.equals("cold") && !c.equals("warm")) {
                    throw new IllegalArgumentException("--caches: expected cold, warm or both, got '" + c + "'");
                }
            }
            if (tag != null && !tag.matches("[a-z0-9][a-z0-9-]*")) {
                throw new IllegalArgumentException("--tag: lowercase letters, digits and '-', got '" + tag + "'");
            }
            List<S3Setting> run = settings.stream().map(S3Setting::of).distinct().toList();
            options = new S3Bench.Options(corpus, parsed, run, asked(run, Manifest.readFrom(corpus)), caches.contains("warm"),
                    caches.contains("cold"), warmRuns, duration(idle), duration(busy));
        } catch (IllegalArgumentException e) {
            err.println("needle bench s3: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        S3Bench bench = new S3Bench(options, line -> {
            err.println("needle bench s3: " + line);
            err.flush();
        });
        S3BenchResult result = bench.run();
        Path results = Path.of(System.getProperty("needle.results", "bench/results"));
        Files.createDirectories(results);
        String base = "s3-" + result.date() + "-" + result.corpus() + (tag == null ? "" : "-" + tag);
        Path md = results.resolve(base + ".md");
        Files.writeString(md, S3BenchReport.markdown(result, setup(options)));
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Path jsonFile = results.resolve(base + ".json");
        mapper.writeValue(jsonFile.toFile(), result);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(mapper.writeValueAsString(result));
        } else {
            for (S3BenchReport.Goal g : S3BenchReport.goals(result)) {
                out.println(g.met().map(m -> m ? "met     " : "MISSED  ").orElse("-       ") + g.goal() + ": " + g.measured());
            }
            out.println("report: " + md + " (and " + jsonFile.getFileName() + ")");
        }
        out.flush();
        return 0;
    }

    /** {@link #only} read: for each setting it names, one of {@code run}, the words that name the probes asked. */
    private Map<S3Setting, List<String>> asked(List<S3Setting> run, Manifest manifest) {
        Map<S3Setting, List<String>> out = new EnumMap<>(S3Setting.class);
        for (Map.Entry<String, String> e : only.entrySet()) {
            S3Setting setting = S3Setting.of(e.getKey());
            if (!run.contains(setting)) {
                throw new IllegalArgumentException("--only " + e.getKey() + ": that setting is not run (--settings "
                        + String.join(",", settings) + ")");
            }
            List<String> words = new ArrayList<>();
            for (String word : e.getValue().split("\\+")) {
                String w = word.trim();
                boolean known = w.startsWith("trace:") ? manifest.presentTraceIds().containsKey(w.substring(6))
                        : Arrays.stream(S3Probe.Kind.values()).anyMatch(k -> k.word().equals(w));
                if (!known) {
                    throw new IllegalArgumentException("--only " + e.getKey() + "=" + e.getValue() + ": '" + w
                            + "' names no probes; expected trace, span, log or trace:FAMILY with a family of the"
                            + " manifest (" + String.join(", ", manifest.presentTraceIds().keySet()) + ")");
                }
                words.add(w);
            }
            out.put(setting, List.copyOf(words));
        }
        return out;
    }

    /** How the run was made, for the report. */
    private String setup(S3Bench.Options options) {
        Runtime rt = Runtime.getRuntime();
        return "`needle bench s3 --corpus " + options.corpus().getFileName() + " --latency " + String.join(",", latencies)
                + " --settings " + String.join(",", settings)
                + only.entrySet().stream().map(e -> " --only " + e.getKey() + "=" + e.getValue()).collect(Collectors.joining())
                + " --caches " + String.join(",", caches)
                + " --warm-runs " + options.warmRuns() + "`, on "
                + rt.availableProcessors() + " cores, Java " + System.getProperty("java.version") + ", "
                + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ". "
                + "S3Proxy 4.1.0 serves the corpus directory through its filesystem store (each file an object, hard"
                + " links in a temporary directory, where the bench writes the index objects); a proxy"
                + " in front of it (FaultProxy) holds every request for the latency of the run before forwarding it, a"
                + " simulation of S3's first-byte latency, and logs when each request arrived and when its answer was"
                + " sent. Every lookup goes over HTTP to the query API, with `explain=true`, and its answer is checked"
                + " against the manifest. **Warm**: a `serve --role query --store s3://…` node started in the bench's"
                + " process (it reads the index and sidecars and makes a lookup before it is ready); each probe is asked"
                + " once to fill its caches, then measured. **Cold**: before each lookup a new query engine over a newly"
                + " opened store serves the same API: no index read, no listing, an empty sidecar cache, an empty range"
                + " cache and a new S3 client with no connection open (the bucket check a store makes on opening is"
                + " not counted). **Sequential round trips**: the length of the longest chain of the lookup's requests"
                + " in which each was sent only after the one before it had been answered in full (the proxy's arrival"
                + " and answer times); requests outside the chain overlapped one in it. The goals, at 30 ms per request: a cold lookup of a present"
                + " trace id in at most 3 sequential round trips and 150 ms (median), no data GET for an absent attribute"
                + " value, and at most one GET of the index per poll interval."
                + (note == null ? "" : " " + note);
    }

    /** {@code 30ms}, {@code 5s}, {@code 0}. */
    static Duration duration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        try {
            if (t.endsWith("ms")) {
                return checked(Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2))), text);
            } else if (t.endsWith("s")) {
                return checked(Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1))), text);
            } else if (t.equals("0")) {
                return Duration.ZERO;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("a duration is a whole number of ms or s, such as 30ms or 5s, got '" + text + "'");
    }

    private static Duration checked(Duration d, String text) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("a duration cannot be negative, got '" + text + "'");
        }
        return d;
    }
}
