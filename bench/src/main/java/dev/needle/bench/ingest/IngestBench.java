package dev.needle.bench.ingest;

import com.sun.management.OperatingSystemMXBean;
import dev.needle.bench.StoreFacts;
import dev.needle.bench.server.JavaLaunch;
import dev.needle.bench.server.ServerProcess;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import dev.needle.corpus.otlp.EncodedRequests;
import dev.needle.corpus.otlp.OtlpEncoding;
import dev.needle.corpus.otlp.OtlpSender;
import dev.needle.corpus.otlp.SendOptions;
import dev.needle.corpus.otlp.SendReport;
import dev.needle.corpus.output.Batches;
import dev.needle.ingest.server.ServeCommand;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The ingest benchmark: records per second that a running {@code needle serve} acknowledges over
 * OTLP/HTTP, with request latency, per signal and encoding, loaded by corpus-gen's sender.
 *
 * <p>For each {@link Workload}, in order:
 * <ol>
 *   <li><b>A fresh server.</b> {@code needle serve} in a child JVM, as deployed, on an empty data
 *       directory, with ports it picks itself; ready once {@code /ready} answers 200.</li>
 *   <li><b>Warm-up</b>, not measured: the same workload from a corpus with another seed, sent again
 *       and again until {@link Options#warmUp()} has passed, to tenant {@value #WARM_UP_TENANT}, so that
 *       both JITs are warm and the measured tenant starts empty (with {@link Options#preEncode()}, its
 *       requests encoded ahead too, and the last pass sent whole).</li>
 *   <li><b>The measurement.</b> Every record of the corpus, {@link Options#concurrency()} requests
 *       in flight, as fast as the server acknowledges, to the default tenant. The rate is records
 *       acknowledged per second of wall time from the first batch taken to the last reply; the
 *       generator runs during it, so its CPU is taken from the server's on a shared machine, unless
 *       {@link Options#preEncode()}: then every request is made and encoded before the clock starts
 *       and the send only posts them, as a collector elsewhere would. The
 *       latency of a request runs from sending it to reading its whole reply, so it includes the
 *       write-ahead log fsync the server waits for before it acknowledges. The server's {@code /metrics}
 *       are scraped before, every {@value #SAMPLE_MILLIS} ms during, and after it ({@link ServerSample}):
 *       its CPU and garbage-collection time per million records, and its head over time. This
 *       process's own CPU time over the send is the sender's (generator, encoder and HTTP client) per
 *       million records: the two processes share the cores, so the rate is bounded by both.</li>
 *   <li><b>A paced run</b>, when {@link Options#paced()} is not zero: the corpus again, to tenant
 *       {@value #PACED_TENANT}, offered at 80% of the workload's goal ({@link Workload#goalPerSecond()})
 *       for at most that long (with {@link Options#preEncode()}, the measured send's requests again): the
 *       latency a server has below its ceiling, where the measurement above gives the latency of a
 *       saturated one.</li>
 *   <li><b>The check.</b> SIGTERM: the server publishes its head and must exit 0. The default
 *       tenant's blocks must then hold every acknowledged record (exactly those, unless a request
 *       got no reply or failed): a run that loses or duplicates records fails instead of reporting
 *       a rate.</li>
 *   <li><b>Generator ceiling.</b> The same corpus made, encoded (and gzipped) by the same sender
 *       with the same concurrency and batch size, but sent nowhere (a dry run), once the server is
 *       gone: the most this process can offer with the whole machine to itself. Accepted/s near it
 *       says the generator, not the server, was the limit.</li>
 * </ol>
 *
 * <p>Usable from a test or a runner: {@link #run}, then {@link IngestBenchReport#markdown} and
 * {@link IngestBenchReport#writeJson}.
 */
public final class IngestBench {

    /** The tenant of the warm-up, so that the measured (default) tenant holds exactly the measured records. */
    public static final String WARM_UP_TENANT = "warm-up";
    /** The tenant of the paced run. */
    public static final String PACED_TENANT = "paced";
    /** The share of the goal rate that the paced run offers. */
    public static final double PACED_SHARE = 0.8;
    /** How often the server's metrics are scraped while the measured records are sent. */
    static final long SAMPLE_MILLIS = 500;
    /** A dry run connects nowhere; its options still need a well-formed URL. */
    private static final URI DRY_RUN_URL = URI.create("http://127.0.0.1:4318");
    /** Generator threads and chunks made ahead, as {@code needle gen} has by default. */
    private static final int GENERATOR_THREADS = Runtime.getRuntime().availableProcessors();
    /** This process's CPU time: the sender's, as the server's comes from its own metrics. */
    private static final OperatingSystemMXBean PROCESS =
            (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private IngestBench() {
    }

    /** One signal sent in one encoding, gzipped or not. */
    public record Workload(Signal signal, OtlpEncoding encoding, boolean gzip) {

        public Workload {
            Objects.requireNonNull(signal, "signal");
            Objects.requireNonNull(encoding, "encoding");
        }

        /** Spans, then logs, each as protobuf, JSON, protobuf with gzip and JSON with gzip. */
        public static List<Workload> all() {
            List<Workload> all = new ArrayList<>();
            for (Signal signal : List.of(Signal.SPANS, Signal.LOGS)) {
                for (boolean gzip : new boolean[] {false, true}) {
                    for (OtlpEncoding encoding : List.of(OtlpEncoding.PROTOBUF, OtlpEncoding.JSON)) {
                        all.add(new Workload(signal, encoding, gzip));
                    }
                }
            }
            return List.copyOf(all);
        }

        /** {@code protobuf}, {@code json}, {@code protobuf+gzip} or {@code json+gzip}. */
        public String encodingLabel() {
            return encoding.label() + (gzip ? "+gzip" : "");
        }

        /** The name of its directory under {@link Options#dataRootOrNull()}, such as {@code spans-protobuf-gzip}. */
        public String directoryName() {
            return signal.dirName() + "-" + encodingLabel().replace('+', '-');
        }

        /** Such as {@code spans protobuf+gzip}. */
        public String label() {
            return signal.dirName() + " " + encodingLabel();
        }

        /** The ingest goal for it, records a second on two cores: 250,000 over protobuf, 150,000 over JSON. */
        public long goalPerSecond() {
            return encoding == OtlpEncoding.PROTOBUF ? 250_000 : 150_000;
        }

        /** The rate the paced run offers: {@value #PACED_SHARE} of the goal. */
        public long pacedPerSecond() {
            return Math.round(goalPerSecond() * PACED_SHARE);
        }
    }

    /**
     * What to run.
     *
     * @param spans          spans sent per span workload (and in the corpus the logs are made from)
     * @param logs           log records sent per log workload
     * @param workloads      what to send, in order; each gets its own server
     * @param concurrency    requests in flight
     * @param batch          records per request
     * @param warmUp         how long to send before measuring, per server; zero for none
     * @param paced          how long the paced run may last, per server; zero for none
     * @param preEncode      whether the measured send's requests are made and encoded before its clock
     *                       starts, so that it only posts them
     * @param classPath      the class path of the server's JVM: one that holds needle's ingest module
     * @param serverJvmArgs  options for the server's JVM, such as {@code -Xmx1g}; none gives the JVM's defaults
     * @param dataRootOrNull where each workload's data directory and server log are kept, in
     *                       {@code <root>/}{@link Workload#directoryName()}{@code /data} and {@code /server.log};
     *                       null for a temporary directory, deleted after each workload
     * @param progress       told one line at each step
     */
    public record Options(long spans, long logs, List<Workload> workloads, int concurrency, int batch,
                          Duration warmUp, Duration paced, boolean preEncode, String classPath, List<String> serverJvmArgs,
                          Path dataRootOrNull, Consumer<String> progress) {

        public Options {
            workloads = List.copyOf(workloads);
            serverJvmArgs = List.copyOf(serverJvmArgs);
            Objects.requireNonNull(warmUp, "warmUp");
            Objects.requireNonNull(paced, "paced");
            Objects.requireNonNull(classPath, "classPath");
            Objects.requireNonNull(progress, "progress");
            if (spans < 0 || logs < 0 || spans + logs == 0) {
                throw new IllegalArgumentException("spans and logs must be ≥ 0 and not both 0, got " + spans + " and " + logs);
            }
            if (workloads.isEmpty()) {
                throw new IllegalArgumentException("no workloads to run");
            }
            for (Workload w : workloads) {
                if ((w.signal() == Signal.SPANS ? spans : logs) == 0) {
                    throw new IllegalArgumentException("workload " + w.label() + " has no records to send: "
                            + w.signal().dirName() + " is 0");
                }
            }
            if (workloads.stream().distinct().count() != workloads.size()) {
                // Each workload's data directory is named after it.
                throw new IllegalArgumentException("workloads repeat: " + workloads);
            }
            if (concurrency < 1 || batch < 1) {
                throw new IllegalArgumentException("concurrency and batch must be ≥ 1, got " + concurrency + " and " + batch);
            }
            if (warmUp.isNegative() || paced.isNegative()) {
                throw new IllegalArgumentException("the warm-up and the paced run must not be negative, got "
                        + warmUp + " and " + paced);
            }
        }

        /**
         * The real run: 2,000,000 spans and 2,000,000 logs in every workload, 8 requests of 1,000
         * records in flight, 20 s of warm-up (a fresh server's JIT compiles through 5 s and the million
         * records after), a paced run of at most 10 s, records encoded as they are sent, the server on this JVM's
         * class path with the heap {@code ./needle serve} gives it (1 GiB), data in a temporary
         * directory, progress on standard error.
         */
        public static Options defaults() {
            return new Options(2_000_000, 2_000_000, Workload.all(), 8, 1000, Duration.ofSeconds(20),
                    Duration.ofSeconds(10), false, System.getProperty("java.class.path"), List.of("-Xmx1g"), null,
                    System.err::println);
        }

        /** These options with other record counts. */
        public Options withRecords(long spans, long logs) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with other workloads. */
        public Options withWorkloads(List<Workload> workloads) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with another warm-up. */
        public Options withWarmUp(Duration warmUp) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with another limit on the paced run. */
        public Options withPaced(Duration paced) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with the measured send's requests encoded before it, or as it sends. */
        public Options withPreEncode(boolean preEncode) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with other options for the server's JVM. */
        public Options withServerJvmArgs(List<String> serverJvmArgs) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with the server on another class path. */
        public Options withClassPath(String classPath) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }

        /** These options with data directories kept under {@code root}. */
        public Options withDataRoot(Path root) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, Objects.requireNonNull(root, "root"), progress);
        }

        /** These options with progress told to {@code progress}. */
        public Options withProgress(Consumer<String> progress) {
            return new Options(spans, logs, workloads, concurrency, batch, warmUp, paced, preEncode, classPath,
                    serverJvmArgs, dataRootOrNull, progress);
        }
    }

    /**
     * One workload's outcome.
     *
     * @param workload      what was sent
     * @param send          the measured send
     * @param ceiling       the same send as a dry run: the generator's and encoder's own rate
     * @param warmUpRecords records the server acknowledged during the warm-up, to another tenant
     * @param storedRecords records in the measured tenant's blocks after the server stopped
     * @param samples       the server's metrics before, during and after the measured send, in time order
     * @param pacedOrNull   the paced run, or null when there was none
     * @param senderCpuSeconds this (the sending) process's CPU time over the measured send, every thread
     * @param preEncoded    whether the measured send's requests were encoded before it (it only posted them)
     */
    public record Result(Workload workload, SendReport send, SendReport ceiling, long warmUpRecords,
                         long storedRecords, List<ServerSample> samples, SendReport pacedOrNull,
                         double senderCpuSeconds, boolean preEncoded) {

        public Result {
            Objects.requireNonNull(workload, "workload");
            Objects.requireNonNull(send, "send");
            Objects.requireNonNull(ceiling, "ceiling");
            samples = List.copyOf(samples);
            if (samples.size() < 2) {
                throw new IllegalArgumentException("a result needs the samples before and after the send, got "
                        + samples.size());
            }
        }

        /** The server's CPU seconds per million records accepted in the measured send. */
        public double cpuSecondsPerMillion() {
            return perMillion(last().cpuSeconds() - samples.get(0).cpuSeconds());
        }

        /** The sending process's CPU seconds per million records accepted in the measured send. */
        public double senderCpuSecondsPerMillion() {
            return perMillion(senderCpuSeconds);
        }

        /** The seconds its collectors took per million records accepted in the measured send. */
        public double gcSecondsPerMillion() {
            return perMillion(last().gcSeconds() - samples.get(0).gcSeconds());
        }

        /** The seconds its JIT compilers took per million records accepted in the measured send; NaN when not counted. */
        public double jitSecondsPerMillion() {
            return perMillion(last().jitSeconds() - samples.get(0).jitSeconds());
        }

        /** The most records its head held at a sample. */
        public long headMaxRows() {
            return samples.stream().mapToLong(ServerSample::headRows).max().orElseThrow();
        }

        /** The records its head held once the measured send was over. */
        public long headEndRows() {
            return last().headRows();
        }

        private ServerSample last() {
            return samples.get(samples.size() - 1);
        }

        private double perMillion(double seconds) {
            return send.accepted() > 0 ? seconds * 1e6 / send.accepted() : 0;
        }

        /** Records acknowledged per second as a share of the generator's ceiling: near 1, the generator was the limit. */
        public double ofCeiling() {
            return ceiling.recordsPerSecond() > 0 ? send.acceptedPerSecond() / ceiling.recordsPerSecond() : 0;
        }
    }

    /** Runs every workload of {@code options}, each against its own server, and returns their results in order. */
    public static List<Result> run(Options options) throws IOException, InterruptedException {
        Corpus corpus = new Corpus(CorpusSpec.defaults(options.spans(), options.logs()));
        Corpus warmUpCorpus = new Corpus(corpus.spec().withSeed(corpus.spec().seed() + 1));
        boolean temporary = options.dataRootOrNull() == null;
        Path root = temporary ? Files.createTempDirectory("needle-ingest-bench-")
                : Files.createDirectories(options.dataRootOrNull());
        try {
            List<Result> results = new ArrayList<>();
            for (Workload w : options.workloads()) {
                Path dir = root.resolve(w.directoryName());
                try {
                    results.add(runWorkload(w, corpus, warmUpCorpus, dir, options));
                } finally {
                    if (temporary) {
                        deleteTree(dir);
                    }
                }
            }
            return List.copyOf(results);
        } finally {
            if (temporary) {
                deleteTree(root);
            }
        }
    }

    private static Result runWorkload(Workload w, Corpus corpus, Corpus warmUpCorpus, Path dir, Options options)
            throws IOException, InterruptedException {
        Consumer<String> progress = options.progress();
        Files.createDirectories(dir);
        try (Stream<Path> entries = Files.list(dir)) {
            if (entries.findAny().isPresent()) {
                throw new FileAlreadyExistsException(dir.toString(), null,
                        "holds an earlier run's data; a measured server starts on an empty directory");
            }
        }
        Path data = dir.resolve("data");
        long warmUpRecords = 0;
        Measured measured;
        SendReport paced = null;
        try (ServerProcess server = ServerProcess.start(JavaLaunch.classPath(options.classPath(), ServeCommand.class),
                options.serverJvmArgs(), data, dir.resolve("server.log"))) {
            progress.accept(format("%s: needle serve ready, pid %d, OTLP on %s", w.label(), server.pid(), server.otlp()));
            // The whole time, not one corpus: a fresh server's JIT compiles through its first millions of records.
            EncodedRequests warmUpRequests = options.preEncode() && !options.warmUp().isZero()
                    ? encodeAhead(warmUpCorpus, w, options, server, "warm-up") : null;
            long warmUntil = System.nanoTime() + options.warmUp().toNanos();
            for (long left = options.warmUp().toNanos(); left > 0; left = warmUntil - System.nanoTime()) {
                SendReport warm = post(warmUpCorpus, warmUpRequests, w, options, server, WARM_UP_TENANT,
                        Duration.ofNanos(left), 0);
                warmUpRecords += warm.accepted();
                progress.accept(format("%s: warm-up %,d records in %.1f s, %,.0f records/s%s", w.label(),
                        warm.accepted(), warm.elapsedSeconds(), warm.acceptedPerSecond(),
                        warm.firstError() == null ? "" : "; " + warm.firstError()));
                if (warm.accepted() == 0) {
                    break;
                }
            }
            warmUpRequests = null;
            EncodedRequests requests = options.preEncode() ? encodeAhead(corpus, w, options, server, "measured send") : null;
            measured = measure(corpus, requests, w, options, server);
            SendReport m = measured.send();
            progress.accept(format("%s: %,d of %,d records accepted in %.1f s, %,.0f records/s, p50 %.1f ms, p99 %.1f ms",
                    w.label(), m.accepted(), m.recordsSent(), m.elapsedSeconds(), m.acceptedPerSecond(),
                    m.latencyP50Millis(), m.latencyP99Millis()));
            if (!options.paced().isZero()) {
                paced = post(corpus, requests, w, options, server, PACED_TENANT, options.paced(), w.pacedPerSecond());
                progress.accept(format("%s: paced at %,d records/s: %,d accepted in %.1f s, %,.0f records/s, "
                                + "p50 %.1f ms, p99 %.1f ms", w.label(), w.pacedPerSecond(), paced.accepted(),
                        paced.elapsedSeconds(), paced.acceptedPerSecond(), paced.latencyP50Millis(),
                        paced.latencyP99Millis()));
            }
            server.stop();
        }
        SendReport send = measured.send();
        long stored = StoreFacts.of(data, TenantId.DEFAULT, w.signal()).rows();
        // A batch can be stored twice only when an attempt got no reply (the server may have taken it) and was
        // retried, and a failed one may or may not be stored; the statuses name such attempts by their exception.
        boolean exact = send.failed() == 0
                && send.statuses().keySet().stream().allMatch(status -> status.chars().allMatch(Character::isDigit));
        if (stored < send.accepted() || (exact && stored != send.accepted())) {
            throw new IllegalStateException(format("%s: the server acknowledged %,d records (%,d records failed, "
                            + "replies %s) but its blocks hold %,d after a clean stop (data in %s)", w.label(),
                    send.accepted(), send.failed(), send.statuses(), stored, data));
        }
        progress.accept(format("%s: stopped; its blocks hold the %,d records", w.label(), stored));
        // After the server is gone, with this JVM's encoders as warm as they were for the measurement.
        SendReport ceiling = send(corpus, w, options, DRY_RUN_URL, true, null, null, 0);
        progress.accept(format("%s: generator ceiling %,.0f records/s (%,d records made and encoded, nothing sent)",
                w.label(), ceiling.recordsPerSecond(), ceiling.recordsSent()));
        Result result = new Result(w, send, ceiling, warmUpRecords, stored, measured.samples(), paced,
                measured.senderCpuSeconds(), options.preEncode());
        progress.accept(format("%s: server CPU %.1f s, GC %.2f s and JIT %.2f s per million records, head at most %,d "
                        + "records; sender CPU %.1f s per million records", w.label(), result.cpuSecondsPerMillion(),
                result.gcSecondsPerMillion(), result.jitSecondsPerMillion(), result.headMaxRows(),
                result.senderCpuSecondsPerMillion()));
        return result;
    }

    /** The measured send: its report, the server's samples over it and this process's CPU seconds. */
    private record Measured(SendReport send, List<ServerSample> samples, double senderCpuSeconds) {
    }

    /**
     * Sends every record of {@code corpus} to the default tenant, or {@code requestsOrNull}, its requests
     * encoded ahead, with the server's metrics scraped and this process's CPU time taken over the send.
     */
    private static Measured measure(Corpus corpus, EncodedRequests requestsOrNull, Workload w, Options options,
                                    ServerProcess server) throws IOException, InterruptedException {
        try (Sampler sampler = new Sampler(server.query())) {
            long cpuBefore = PROCESS.getProcessCpuTime();
            SendReport send = post(corpus, requestsOrNull, w, options, server, null, null, 0);
            double senderCpuSeconds = (PROCESS.getProcessCpuTime() - cpuBefore) / 1e9;
            return new Measured(send, sampler.finish(), senderCpuSeconds);
        }
    }

    /**
     * The workload's requests of {@code corpus}, made and encoded now and held (a million JSON spans
     * are half a gigabyte), so that a send of them only posts.
     */
    private static EncodedRequests encodeAhead(Corpus corpus, Workload w, Options options, ServerProcess server,
                                               String what) throws InterruptedException {
        OtlpSender sender = sender(w, options, server.otlp(), false, null, 0);
        EncodedRequests requests = batches(corpus, w, options, null, sender::encodeSpans, sender::encodeLogs);
        options.progress().accept(format("%s: %,d requests of the %s encoded ahead, %,.1f MiB", w.label(),
                requests.bodies().size(), what, requests.bytes() / (1024.0 * 1024.0)));
        // Moved to the old generation now, not by the send's first young collections: copying the
        // held requests is the encoding's cost, not the sending's.
        System.gc();
        return requests;
    }

    /**
     * Sends to the server, to {@code tenantOrNull}, at most {@code perSecond} records a second (0 for no
     * limit): {@code requestsOrNull}, encoded ahead, when given (those that {@code limitOrNull} holds at that
     * rate, when both are given), else the records of {@code corpus} made as they are sent, for at most
     * {@code limitOrNull}.
     */
    private static SendReport post(Corpus corpus, EncodedRequests requestsOrNull, Workload w, Options options,
                                   ServerProcess server, String tenantOrNull, Duration limitOrNull, long perSecond)
            throws InterruptedException {
        if (requestsOrNull == null) {
            return send(corpus, w, options, server.otlp(), false, tenantOrNull, limitOrNull, perSecond);
        }
        EncodedRequests requests = limitOrNull != null && perSecond > 0
                ? within(requestsOrNull, limitOrNull, perSecond) : requestsOrNull;
        return sender(w, options, server.otlp(), false, tenantOrNull, perSecond).send(requests, n -> { });
    }

    /** The first of {@code requests} that take at most {@code limit} at {@code perSecond} records a second. */
    static EncodedRequests within(EncodedRequests requests, Duration limit, long perSecond) {
        double records = limit.toNanos() / 1e9 * perSecond;
        int n = 0;
        for (long sum = 0; n < requests.bodies().size(); n++) {
            sum += requests.bodies().get(n).records();
            if (sum > records) {
                break;
            }
        }
        return new EncodedRequests(requests.signal(), requests.encoding(), requests.gzip(),
                requests.bodies().subList(0, Math.max(1, n)));
    }

    /**
     * Sends (or in a dry run, only makes and encodes) the workload's records of {@code corpus}, to
     * {@code tenantOrNull}, for at most {@code limitOrNull} when given, at most {@code perSecond}
     * records a second (0 for no limit).
     */
    private static SendReport send(Corpus corpus, Workload w, Options options, URI url, boolean dryRun,
                                   String tenantOrNull, Duration limitOrNull, long perSecond) throws InterruptedException {
        OtlpSender sender = sender(w, options, url, dryRun, tenantOrNull, perSecond);
        return batches(corpus, w, options, limitOrNull, b -> sender.sendSpans(b, n -> { }), b -> sender.sendLogs(b, n -> { }));
    }

    private static OtlpSender sender(Workload w, Options options, URI url, boolean dryRun, String tenantOrNull,
                                     long perSecond) {
        return new OtlpSender(new SendOptions(url, options.concurrency(), perSecond, w.encoding(), w.gzip(),
                tenantOrNull, SendOptions.DEFAULT_MAX_ATTEMPTS, dryRun));
    }

    /** What is done with a workload's batches of records: sent, or encoded ahead. */
    private interface BatchUse<T, R> {
        R use(Iterator<List<T>> batches) throws InterruptedException;
    }

    /**
     * Hands the workload's batches of {@code corpus}, made by a generator pool as they are taken and
     * ending {@code limitOrNull} after the first when given, to {@code spans} or {@code logs}.
     */
    private static <R> R batches(Corpus corpus, Workload w, Options options, Duration limitOrNull,
                                 BatchUse<SpanRecord, R> spans, BatchUse<LogRecord, R> logs) throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(GENERATOR_THREADS, r -> {
            Thread t = new Thread(r, "needle-bench-gen");
            t.setDaemon(true);
            return t;
        });
        try {
            if (w.signal() == Signal.SPANS) {
                return spans.use(ready(new Batches<>(corpus.spanChunks(), corpus::spans, options.batch(),
                        GENERATOR_THREADS, pool, corpus.spanTally()), limitOrNull));
            }
            return logs.use(ready(new Batches<>(corpus.logChunks(), corpus::logs, options.batch(),
                    GENERATOR_THREADS, pool, corpus.logTally()), limitOrNull));
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * {@code batches} once their first chunk is made, ending {@code limitOrNull} from then when given.
     * The sender's clock starts when it is handed the batches: waiting here keeps the generator's
     * start-up, when nothing can be sent yet, out of the measured time.
     */
    private static <R> Iterator<List<R>> ready(Iterator<List<R>> batches, Duration limitOrNull) {
        batches.hasNext();
        return limitOrNull == null ? batches : new Until<>(batches, System.nanoTime() + limitOrNull.toNanos());
    }

    /**
     * Scrapes a server's metrics from its start, every {@value #SAMPLE_MILLIS} ms, until {@link #finish};
     * a scrape that fails ends the run with its error, as a server that cannot report cannot be measured.
     */
    private static final class Sampler implements AutoCloseable {
        private final URI query;
        private final long started = System.nanoTime();
        private final List<ServerSample> samples = new ArrayList<>();
        private final Thread thread;
        private volatile boolean done;
        private volatile Exception failure;

        Sampler(URI query) throws IOException, InterruptedException {
            this.query = query;
            samples.add(scrape());
            thread = new Thread(this::loop, "needle-bench-metrics");
            thread.setDaemon(true);
            thread.start();
        }

        private void loop() {
            try {
                while (!done) {
                    Thread.sleep(SAMPLE_MILLIS);
                    ServerSample sample = scrape();
                    synchronized (samples) {
                        samples.add(sample);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException | RuntimeException e) {
                failure = e;
            }
        }

        private ServerSample scrape() throws IOException, InterruptedException {
            return ServerSample.scrape(query, (System.nanoTime() - started) / 1e9);
        }

        /** Stops sampling and returns every sample, with one taken now. */
        List<ServerSample> finish() throws IOException, InterruptedException {
            done = true;
            thread.join();
            if (failure != null) {
                throw new IOException("scraping the server's metrics during the run failed: " + failure, failure);
            }
            samples.add(scrape());
            return List.copyOf(samples);
        }

        @Override
        public void close() throws InterruptedException {
            done = true;
            thread.join();
        }
    }

    /** Batches until a deadline (in {@link System#nanoTime()}): a warm-up sends for a while, not a count. */
    private static final class Until<R> implements Iterator<List<R>> {
        private final Iterator<List<R>> batches;
        private final long deadline;

        Until(Iterator<List<R>> batches, long deadline) {
            this.batches = batches;
            this.deadline = deadline;
        }

        @Override
        public boolean hasNext() {
            return System.nanoTime() - deadline < 0 && batches.hasNext();
        }

        /** Not limited again: the deadline may pass between a caller's hasNext and this. */
        @Override
        public List<R> next() {
            return batches.next();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }

    private static String format(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }
}
