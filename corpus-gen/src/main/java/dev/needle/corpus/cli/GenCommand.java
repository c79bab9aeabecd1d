package dev.needle.corpus.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.cli.DataDirectory;
import dev.needle.blocks.cli.OneLineFailure;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import dev.needle.corpus.Manifest;
import dev.needle.corpus.Tally;
import dev.needle.corpus.TraceIdFamily;
import dev.needle.corpus.otlp.FilesReport;
import dev.needle.corpus.otlp.OtlpEncoding;
import dev.needle.corpus.otlp.OtlpFiles;
import dev.needle.corpus.otlp.OtlpSender;
import dev.needle.corpus.otlp.SendOptions;
import dev.needle.corpus.otlp.SendReport;
import dev.needle.corpus.output.Batches;
import dev.needle.corpus.output.BlockOutput;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

/** {@code needle gen}: makes a deterministic corpus as blocks, OTLP request files, or requests sent to a server. */
@Command(name = "gen", mixinStandardHelpOptions = true, versionProvider = NeedleVersion.class,
        usageHelpAutoWidth = true, sortOptions = false,
        description = "Make a deterministic corpus of spans and logs, with manifest.json naming trace ids and "
                + "attribute values that are in it and some that certainly are not.",
        footerHeading = "%nExamples:%n",
        footer = {"  needle gen --spans 25000000 --logs 25000000 --out /tmp/seed",
            "  needle gen --spans 1000000 --start 2026-11-01T01:00:00Z --out /tmp/seed --append",
            "  needle gen --spans 100000 --format otlp-json --out /tmp/requests",
            "  needle gen --spans 5000000 --send http://127.0.0.1:4318 --out /tmp/sent"})
public final class GenCommand implements Callable<Integer> {

    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");

    @Spec
    CommandSpec command;

    @Option(names = "--spans", paramLabel = "N", description = "spans to make, in whole traces (default ${DEFAULT-VALUE})")
    long spans;

    @Option(names = "--logs", paramLabel = "N", description = "log records to make (default ${DEFAULT-VALUE})")
    long logs;

    @Option(names = "--out", paramLabel = "DIR", description = "the directory the corpus is written to: its blocks "
            + "(<DIR>/<tenant>/spans|logs/<block>) or OTLP request files (<DIR>/traces, <DIR>/logs), and manifest.json. "
            + "Required, except with --send, where it is optional and receives manifest.json only.")
    Path out;

    @Option(names = "--format", paramLabel = "FORMAT", description = "blocks, otlp-proto or otlp-json (default ${DEFAULT-VALUE})")
    String format = "blocks";

    @Option(names = "--append", description = "add this run's blocks to the corpus already in --out DIR, whose manifest.json "
            + "then describes every record of both. The run keeps that corpus's seed, families, services, routes, users, "
            + "shares, block rows and probes (leave those options out) and numbers its traces and blocks after the "
            + "earlier ones, so that no id comes twice. Without it, a DIR that holds a corpus is refused.")
    boolean append;

    @Option(names = "--seed", description = "the seed every choice derives from (default ${DEFAULT-VALUE})")
    long seed = 42;

    @Option(names = "--families", paramLabel = "LIST", description = "trace-id families, comma-separated, of "
            + "random, xray, short64, counter; or mix for all four (default ${DEFAULT-VALUE})")
    String families = "mix";

    @Option(names = "--services", description = "services in the fleet (default ${DEFAULT-VALUE})")
    int services = 20;

    @Option(names = "--routes", description = "distinct http.route values (default ${DEFAULT-VALUE})")
    int routes = 60;

    @Option(names = "--users", description = "distinct user.id values, the high-cardinality attribute (default ${DEFAULT-VALUE})")
    int users = 1_000_000;

    @Option(names = "--correlated", paramLabel = "SHARE", description = "share of log records with a trace and span id (default ${DEFAULT-VALUE})")
    double correlated = 0.3;

    @Option(names = "--errors", paramLabel = "SHARE", description = "share of spans with an error status (default ${DEFAULT-VALUE})")
    double errors = 0.03;

    @Option(names = "--start", paramLabel = "TIME", description = "start of the time window, ISO-8601 (default 2026-11-01T00:00:00Z)")
    String start;

    @Option(names = "--window", paramLabel = "DURATION", description = "length of the time window, e.g. 90s, 30m, 2h, 1d (default 1h)")
    String window;

    @Option(names = "--rate", paramLabel = "PER_SECOND", description = "spans (or logs, with no spans) per second of event time: "
            + "sets the window instead of --window")
    Double rate;

    @Option(names = "--block-rows", paramLabel = "N", description = "most rows per block, as ingest cuts (default ${DEFAULT-VALUE})")
    int blockRows = 300_000;

    @Option(names = "--probes", paramLabel = "N", description = "present and absent trace ids per family in the manifest (default ${DEFAULT-VALUE})")
    int probes = 100;

    @Option(names = "--zstd", description = "compress blocks' record batches with ZSTD")
    boolean zstd;

    @Option(names = "--tenant", description = "tenant of the blocks, or X-Scope-OrgID when sending (default: the server's default tenant)")
    String tenant;

    @Option(names = "--threads", description = "threads that make and write (default: available processors)")
    int threads = Runtime.getRuntime().availableProcessors();

    @Option(names = "--send", paramLabel = "URL", description = "send over OTLP/HTTP to this base URL instead of writing files, "
            + "e.g. http://127.0.0.1:4318")
    URI send;

    @Option(names = "--encoding", description = "protobuf or json, for --send (default ${DEFAULT-VALUE})")
    String encoding = "protobuf";

    @Option(names = "--gzip", description = "gzip request bodies, for --send")
    boolean gzip;

    @Option(names = "--concurrency", description = "requests in flight, for --send (default ${DEFAULT-VALUE})")
    int concurrency = 8;

    @Option(names = "--batch", paramLabel = "N", description = "records per request or request file (default ${DEFAULT-VALUE})")
    int batch = 1000;

    @Option(names = "--send-rate", paramLabel = "PER_SECOND", description = "most records per second sent; 0 = as fast as accepted (default ${DEFAULT-VALUE})")
    long sendRate;

    @Option(names = "--dry-run", description = "with --send: make and encode every request but send none, to measure the generator's own ceiling")
    boolean dryRun;

    @Option(names = "--json", description = "no progress bar; print a JSON summary")
    boolean json;

    /** Runs {@code needle gen}. */
    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line, whose failures print one line, not a stack trace. */
    static CommandLine commandLine() {
        return OneLineFailure.commandLine(new GenCommand());
    }

    @Override
    public Integer call() throws Exception {
        CorpusSpec spec;
        try {
            spec = spec();
            validateOutput();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(command.commandLine(), e.getMessage());
        }
        if (out != null) {
            DataDirectory.createWritable(out);
        }
        Manifest earlier = send == null && format.equals("blocks") ? earlierCorpus() : null;
        if (earlier != null) {
            spec = earlier.spec().withCounts(spec.spans(), spec.logs()).withWindow(spec.startUnixNano(), spec.windowNanos());
        }
        long started = System.nanoTime();
        Corpus corpus = earlier == null ? new Corpus(spec) : Corpus.appendedTo(earlier, spec);
        long total = spec.spans() + spec.logs();
        Summary summary = new Summary();
        try (ProgressBar bar = json ? null : progressBar(total)) {
            LongConsumer progress = bar == null ? n -> { } : bar::stepBy;
            if (send != null) {
                sendAll(corpus, progress, summary);
            } else if (format.equals("blocks")) {
                BlockOutput.Result result = BlockOutput.write(corpus, out, tenantId(), threads,
                        BlockWriter.Options.DEFAULT.withCodec(zstd ? BlockWriter.Codec.ZSTD : BlockWriter.Codec.NONE), progress);
                summary.spans = result.spans();
                summary.logs = result.logs();
                summary.text.add(String.format(Locale.ROOT, "%d %s: %,d bytes of data.arrow, %,d of sidecars",
                        result.blocks(), Units.plural(result.blocks(), "block"), result.dataBytes(), result.sidecarBytes()));
                summary.blocks = result;
            } else {
                writeFiles(corpus, progress, summary);
            }
        }
        Manifest manifest = corpus.manifest(summary.spans, summary.logs);
        if (out != null) {
            manifest.writeTo(out);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        report(spec, manifest, earlier, summary, seconds);
        return summary.failed ? 1 : 0;
    }

    /**
     * The manifest of the corpus {@code --out} holds, with {@code --append}; null when it holds none.
     *
     * @throws IOException when it holds one (or blocks of one) and --append is not given, or --append is given
     *                     and it has no manifest.json to add to
     */
    private Manifest earlierCorpus() throws IOException {
        Path file = out.resolve(Manifest.FILE);
        boolean hasManifest = Files.exists(file);
        boolean hasBlocks = holdsBlocks(out);
        if (!append) {
            if (hasManifest || hasBlocks) {
                throw new IOException(out.toAbsolutePath() + " already holds a corpus" + (hasManifest ? "" : "'s blocks")
                        + "; give another --out, remove what is there, or add --append to add this run to it");
            }
            return null;
        }
        if (!hasManifest) {
            throw new IOException(out.toAbsolutePath() + " has no " + Manifest.FILE + " to append to"
                    + (hasBlocks ? " (it holds blocks of unknown records)" : "") + "; --append adds to a corpus made by needle gen");
        }
        return Manifest.readFrom(out);
    }

    /** Whether {@code dir} holds a tenant's spans or logs blocks. */
    private static boolean holdsBlocks(Path dir) throws IOException {
        try (Stream<Path> tenants = Files.list(dir)) {
            return tenants.anyMatch(t -> Files.isDirectory(t.resolve(Signal.SPANS.dirName()))
                    || Files.isDirectory(t.resolve(Signal.LOGS.dirName())));
        }
    }

    private CorpusSpec spec() {
        List<TraceIdFamily> chosen = new ArrayList<>();
        if (families.equals("mix")) {
            chosen.addAll(List.of(TraceIdFamily.values()));
        } else {
            for (String label : families.split(",")) {
                chosen.add(TraceIdFamily.of(label.trim()));
            }
        }
        long startNanos = CorpusSpec.DEFAULT_START_UNIX_NANO;
        if (start != null) {
            try {
                Instant instant = Instant.parse(start);
                startNanos = instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("--start must be an ISO-8601 instant such as 2026-11-01T00:00:00Z, got '" + start + "'");
            }
        }
        if (window != null && rate != null) {
            throw new IllegalArgumentException("give --window or --rate, not both");
        }
        long windowNanos = 3_600_000_000_000L;
        if (window != null) {
            windowNanos = duration(window);
        } else if (rate != null) {
            if (!(rate > 0)) {
                throw new IllegalArgumentException("--rate must be positive, got " + rate);
            }
            windowNanos = Math.max(1_000_000_000L, (long) ((spans > 0 ? spans : logs) / rate * 1e9));
        }
        return new CorpusSpec(seed, spans, logs, chosen, services, startNanos, windowNanos, routes, users,
                correlated, errors, blockRows, probes);
    }

    private void validateOutput() {
        if (send == null && out == null) {
            throw new IllegalArgumentException("give --out DIR (or --send URL)");
        }
        if (!List.of("blocks", "otlp-proto", "otlp-json").contains(format)) {
            throw new IllegalArgumentException("--format must be blocks, otlp-proto or otlp-json, got '" + format + "'");
        }
        if (!encoding.equals("protobuf") && !encoding.equals("json")) {
            throw new IllegalArgumentException("--encoding must be protobuf or json, got '" + encoding + "'");
        }
        if (dryRun && send == null) {
            throw new IllegalArgumentException("--dry-run goes with --send");
        }
        if (append) {
            if (send != null || !format.equals("blocks")) {
                throw new IllegalArgumentException("--append goes with --format blocks");
            }
            List<String> world = List.of("--seed", "--families", "--services", "--routes", "--users", "--correlated",
                    "--errors", "--block-rows", "--probes");
            List<String> given = world.stream().filter(o -> command.commandLine().getParseResult().hasMatchedOption(o)).toList();
            if (!given.isEmpty()) {
                throw new IllegalArgumentException("--append keeps the corpus's own " + String.join(", ", world)
                        + ": leave out " + String.join(", ", given));
            }
        }
        if (threads < 1 || concurrency < 1 || batch < 1) {
            throw new IllegalArgumentException("--threads, --concurrency and --batch must be ≥ 1");
        }
        tenantId();
    }

    private TenantId tenantId() {
        return tenant == null ? TenantId.DEFAULT : TenantId.of(tenant);
    }

    static long duration(String text) {
        Matcher m = DURATION.matcher(text.trim());
        long nanos = 0;
        int at = 0;
        while (m.find() && m.start() == at) {
            long n = Long.parseLong(m.group(1));
            nanos += switch (m.group(2)) {
                case "ms" -> n * 1_000_000L;
                case "s" -> n * 1_000_000_000L;
                case "m" -> n * 60_000_000_000L;
                case "h" -> n * 3_600_000_000_000L;
                default -> n * 86_400_000_000_000L;
            };
            at = m.end();
        }
        if (at == 0 || at != text.trim().length()) {
            throw new IllegalArgumentException("a duration is digits and a unit (ms, s, m, h, d), e.g. 90s or 1h30m; got '" + text + "'");
        }
        return nanos;
    }

    /** What the outputs reported, gathered for the summary. */
    private static final class Summary {
        Tally spans;
        Tally logs;
        BlockOutput.Result blocks;
        final List<FilesReport> files = new ArrayList<>();
        final List<SendReport> sends = new ArrayList<>();
        final List<String> text = new ArrayList<>();
        boolean failed;
    }

    private void sendAll(Corpus corpus, LongConsumer progress, Summary summary) throws Exception {
        OtlpSender sender = new OtlpSender(new SendOptions(send, concurrency, sendRate,
                encoding.equals("json") ? OtlpEncoding.JSON : OtlpEncoding.PROTOBUF, gzip, tenant,
                SendOptions.DEFAULT_MAX_ATTEMPTS, dryRun));
        summary.sends.addAll(throughBatches(corpus, summary, b -> sender.sendSpans(b, progress), b -> sender.sendLogs(b, progress)));
        for (SendReport report : summary.sends) {
            summary.text.add(report.toText());
            summary.failed |= report.failed() > 0;
        }
    }

    private void writeFiles(Corpus corpus, LongConsumer progress, Summary summary) throws Exception {
        OtlpFiles files = new OtlpFiles(out, format.equals("otlp-json") ? OtlpEncoding.JSON : OtlpEncoding.PROTOBUF, threads);
        summary.files.addAll(throughBatches(corpus, summary, b -> files.writeSpans(b, progress), b -> files.writeLogs(b, progress)));
        for (FilesReport report : summary.files) {
            summary.text.add(report.toText());
        }
    }

    /** Where one signal's batches go: a sender or a file writer. */
    @FunctionalInterface
    private interface Output<R, T> {
        T take(Batches<R> batches) throws Exception;
    }

    /** Feeds the corpus's span batches, then its log batches, made ahead on a pool, to the outputs; returns their reports. */
    private <T> List<T> throughBatches(Corpus corpus, Summary summary, Output<SpanRecord, T> spans, Output<LogRecord, T> logs)
            throws Exception {
        List<T> reports = new ArrayList<>();
        ExecutorService pool = generatorPool();
        try {
            summary.spans = corpus.spanTally();
            summary.logs = corpus.logTally();
            if (corpus.spanChunks() > 0) {
                reports.add(spans.take(new Batches<>(corpus.spanChunks(), corpus::spans, batch, threads, pool, summary.spans)));
            }
            if (corpus.logChunks() > 0) {
                reports.add(logs.take(new Batches<>(corpus.logChunks(), corpus::logs, batch, threads, pool, summary.logs)));
            }
        } finally {
            pool.shutdownNow();
        }
        return reports;
    }

    private ExecutorService generatorPool() {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "needle-gen");
            t.setDaemon(true);
            return t;
        });
    }

    private ProgressBar progressBar(long total) {
        return new ProgressBarBuilder()
                .setTaskName(send != null ? (dryRun ? "encode" : "send") : "gen")
                .setInitialMax(total)
                .setUnit(" records", 1)
                .showSpeed()
                .setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(500)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .build();
    }

    private void report(CorpusSpec spec, Manifest manifest, Manifest earlier, Summary summary, double seconds)
            throws IOException {
        PrintWriter stdout = command.commandLine().getOut();
        Manifest.Counts all = manifest.counts();
        // This run's own numbers: the manifest of an appended run counts the earlier runs' records too.
        Manifest.Counts counts = earlier == null ? all : new Manifest.Counts(all.spans() - earlier.counts().spans(),
                all.traces() - earlier.counts().traces(), all.logs() - earlier.counts().logs(), 0, 0, 0, 0, 0, 0);
        double rate = (counts.spans() + counts.logs()) / seconds;
        if (json) {
            JsonGenerator g = new JsonFactory().createGenerator(stdout);
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("out", out == null ? null : out.toAbsolutePath().toString());
            g.writeNumberField("spans", counts.spans());
            g.writeNumberField("traces", counts.traces());
            g.writeNumberField("logs", counts.logs());
            g.writeNumberField("seconds", seconds);
            g.writeNumberField("records_per_second", rate);
            if (summary.blocks != null) {
                g.writeNumberField("blocks", summary.blocks.blocks());
                g.writeNumberField("data_bytes", summary.blocks.dataBytes());
                g.writeNumberField("sidecar_bytes", summary.blocks.sidecarBytes());
            }
            g.writeArrayFieldStart("files");
            for (FilesReport r : summary.files) {
                r.write(g);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("sent");
            for (SendReport r : summary.sends) {
                r.write(g);
            }
            g.writeEndArray();
            if (earlier != null) {
                g.writeObjectFieldStart("corpus");
                g.writeNumberField("runs", 1 + manifest.appended().size());
                g.writeNumberField("spans", all.spans());
                g.writeNumberField("traces", all.traces());
                g.writeNumberField("logs", all.logs());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.flush();
            stdout.println();
        } else {
            stdout.printf(Locale.ROOT, "%,d %s in %,d %s and %,d log %s (seed %d) in %.1f s: %,.0f records/s%n",
                    counts.spans(), Units.plural(counts.spans(), "span"), counts.traces(),
                    Units.plural(counts.traces(), "trace"), counts.logs(), Units.plural(counts.logs(), "record"),
                    spec.seed(), seconds, rate);
            summary.text.forEach(stdout::println);
            if (earlier != null) {
                stdout.printf(Locale.ROOT, "appended: %s now holds %,d %s in %,d %s and %,d log %s from %d runs%n",
                        out.toAbsolutePath(), all.spans(), Units.plural(all.spans(), "span"), all.traces(),
                        Units.plural(all.traces(), "trace"), all.logs(), Units.plural(all.logs(), "record"),
                        1 + manifest.appended().size());
            }
            if (out != null) {
                stdout.println("manifest: " + out.resolve(Manifest.FILE));
            }
        }
        stdout.flush();
    }
}
