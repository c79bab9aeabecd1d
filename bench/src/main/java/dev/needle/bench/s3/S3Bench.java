package dev.needle.bench.s3;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.bench.CorpusBytes;
import dev.needle.bench.s3.S3BenchResult.CorpusFacts;
import dev.needle.bench.s3.S3BenchResult.LatencyRun;
import dev.needle.bench.s3.S3BenchResult.LookupCost;
import dev.needle.bench.s3.S3BenchResult.Polls;
import dev.needle.bench.server.QueryClient;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.corpus.Manifest;
import dev.needle.ingest.server.NeedleServer;
import dev.needle.ingest.server.Role;
import dev.needle.query.engine.QueryEngine;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Exchange;
import java.io.IOException;
import java.net.URI;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.gaul.s3proxy.S3Proxy;

/**
 * The lookups of a corpus made by {@code needle gen}, answered by a query node over S3: S3Proxy
 * serves the corpus's directory as a bucket (its filesystem store: every file an object) from a
 * temporary directory of hard links to the corpus's files, so that the index objects the bench
 * writes leave the corpus as it was and nothing is copied; a {@link FaultProxy} in front of it holds each request for a fixed latency and logs it,
 * and query nodes read the bucket through the proxy. Per latency: every probe of the manifest under
 * each {@link S3Setting}, warm on a {@code serve --role query} node started in this process, and cold
 * on a {@link FreshEngines} renewed before every lookup; then the warm node's index reads while idle
 * and while busy.
 */
final class S3Bench {

    /** The credentials of the bench's own S3Proxy; the S3 clients find them in the SDK's system properties. */
    static final String ACCESS_KEY = "needle";
    static final String SECRET_KEY = "needle-secret";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * How to run.
     *
     * @param corpus    the corpus directory: manifest.json and {@code <tenant>/<signal>/<block>/}; its name is the bucket's
     * @param latencies the latencies to hold each request for, one run each
     * @param settings  the mechanism settings each probe runs under
     * @param only      for a setting, the words of {@code --only} that name the probes asked under it
     *                  ({@link S3Probe#namedBy}); a setting not named asks every probe
     * @param warm      whether each probe is measured on the warm node
     * @param cold      whether each probe is measured with every cache empty
     * @param warmRuns  measured runs of each probe on the warm node, after one that fills its caches
     * @param idle      how long the warm node is left idle while its requests are counted
     * @param busy      how long it answers lookups back to back while its index reads are counted
     */
    record Options(Path corpus, List<Duration> latencies, List<S3Setting> settings,
                   Map<S3Setting, List<String>> only, boolean warm, boolean cold, int warmRuns, Duration idle,
                   Duration busy) {

        Options {
            only = Map.copyOf(only);
        }

        /** The probes of {@code all} asked under {@code setting}. */
        List<S3Probe> probes(List<S3Probe> all, S3Setting setting) {
            List<String> words = only.get(setting);
            return words == null ? all : all.stream().filter(p -> words.stream().anyMatch(p::namedBy)).toList();
        }
    }

    private final Options options;
    private final Consumer<String> progress;
    private final String bucket;

    S3Bench(Options options, Consumer<String> progress) {
        this.options = options;
        this.progress = progress;
        this.bucket = options.corpus().toAbsolutePath().normalize().getFileName().toString();
        if (!bucket.matches("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")) {
            throw new IllegalArgumentException("the corpus directory's name is the bucket's, which is 3 to 63 lowercase"
                    + " letters, digits, '.' and '-': rename " + options.corpus() + " (got '" + bucket + "')");
        }
    }

    /** Runs every latency on a bucket of links to the corpus, which gets its index objects there. */
    S3BenchResult run() throws Exception {
        Path dir = options.corpus().toAbsolutePath().normalize();
        Manifest manifest = Manifest.readFrom(dir);
        List<S3Probe> probes = S3Probe.all(manifest);
        System.setProperty("aws.accessKeyId", ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", SECRET_KEY);
        System.setProperty("aws.region", "us-east-1");
        Path buckets = Files.createTempDirectory("needle-bench-s3-buckets-");
        // A bench stopped by a signal leaves no bucket of links behind either.
        Thread removeBuckets = new Thread(() -> {
            try {
                deleteTree(buckets);
            } catch (IOException e) {
                System.err.println("needle bench s3: could not remove " + buckets + ": " + e);
            }
        }, "needle-bench-s3-cleanup");
        Runtime.getRuntime().addShutdownHook(removeBuckets);
        try {
            linkFiles(dir, buckets.resolve(bucket));
            S3Proxy s3 = LocalS3Command.start(buckets, "127.0.0.1", 0, bucket, ACCESS_KEY, SECRET_KEY);
            try (FaultProxy proxy = FaultProxy.start(URI.create("http://127.0.0.1:" + s3.getPort()))) {
                S3Location location = new S3Location(bucket, "", proxy.endpoint(), true);
                writeIndex(location);
                List<LatencyRun> runs = new ArrayList<>();
                for (Duration latency : options.latencies()) {
                    proxy.latency(latency);
                    runs.add(run(proxy, location, probes, latency));
                }
                Map<S3Setting, Integer> asked = new EnumMap<>(S3Setting.class);
                options.settings().forEach(setting -> asked.put(setting, options.probes(probes, setting).size()));
                return new S3BenchResult(bucket, LocalDate.now(ZoneOffset.UTC).toString(),
                        facts(dir, manifest, probes.size()), new TreeMap<>(options.only()), asked, runs);
            } finally {
                s3.stop();
            }
        } finally {
            Runtime.getRuntime().removeShutdownHook(removeBuckets);
            deleteTree(buckets);
        }
    }

    /** Makes {@code to} a tree of hard links to every file under {@code from}: a copy that costs no bytes. */
    private static void linkFiles(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.createLink(target, f);
                }
            }
        } catch (UnsupportedOperationException | FileSystemException e) {
            throw new IOException("cannot hard-link the corpus's files into " + to + " (the bench's bucket, in the"
                    + " temporary directory): put the corpus on the temporary directory's file system, or point"
                    + " java.io.tmpdir at the corpus's (NEEDLE_JAVA_OPTS=-Djava.io.tmpdir=DIR): " + e, e);
        }
    }

    /** Deletes the bucket's links and the index objects written there; the corpus's files stay. */
    private static void deleteTree(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    /** Adds the blocks no index lists yet to their tenant's index, as a writer does when it starts. */
    private void writeIndex(S3Location location) throws IOException {
        Path staging = Files.createTempDirectory("needle-bench-s3-");
        try (S3BlockStore store = S3BlockStore.open(location, staging)) {
            BlockIndexWriter writer = new BlockIndexWriter(store);
            for (TenantId tenant : store.tenants()) {
                for (Signal signal : Signal.values()) {
                    BlockIndexWriter.Reconciled r = writer.reconcile(tenant, signal);
                    if (!r.agreed()) {
                        progress.accept("index of " + tenant.value() + "/" + signal.dirName() + ": " + r.added().size()
                                + " blocks added");
                    }
                }
            }
        } finally {
            Files.deleteIfExists(staging);
        }
    }

    private LatencyRun run(FaultProxy proxy, S3Location location, List<S3Probe> probes, Duration latency)
            throws Exception {
        String at = latency.toMillis() + " ms per request";
        List<LookupCost> costs = new ArrayList<>();
        Polls polls;
        Path data = Files.createTempDirectory("needle-bench-s3-node-");
        NeedleServer.Config config = NeedleServer.Config.DEFAULTS.withData(data).withPorts(0, 0)
                .withRole(Role.QUERY, List.of()).withS3(location);
        progress.accept(at + ": starting a query node (serve --role query) on the bucket");
        try (NeedleServer warm = NeedleServer.start(config)) {
            QueryClient client = new QueryClient(URI.create("http://127.0.0.1:" + warm.queryAddress().getPort()));
            for (S3Setting setting : options.warm() ? options.settings() : List.<S3Setting>of()) {
                List<S3Probe> asked = options.probes(probes, setting);
                int done = 0;
                for (S3Probe probe : asked) {
                    measure(proxy, client, probe, setting, false);
                    for (int i = 0; i < options.warmRuns(); i++) {
                        costs.add(measure(proxy, client, probe, setting, false));
                    }
                    step(at + ", warm, " + setting.label(), ++done, asked.size());
                }
            }
            polls = polls(proxy, client, probes.get(0));
        } finally {
            Files.deleteIfExists(data);
        }
        try (FreshEngines fresh = new FreshEngines(location)) {
            QueryClient client = new QueryClient(fresh.endpoint());
            for (S3Setting setting : options.cold() ? options.settings() : List.<S3Setting>of()) {
                List<S3Probe> asked = options.probes(probes, setting);
                int done = 0;
                for (S3Probe probe : asked) {
                    fresh.renew();
                    costs.add(measure(proxy, client, probe, setting, true));
                    step(at + ", cold, " + setting.label(), ++done, asked.size());
                }
            }
        }
        return new LatencyRun(latency.toMillis(), costs, polls);
    }

    private void step(String what, int done, int of) {
        if (done == of || done % 100 == 0) {
            progress.accept(what + ": " + done + " of " + of + " probes");
        }
    }

    /** One lookup over HTTP with EXPLAIN, its answer checked against the manifest, its requests taken from the proxy's log. */
    private LookupCost measure(FaultProxy proxy, QueryClient client, S3Probe probe, S3Setting setting, boolean cold)
            throws IOException {
        proxy.takeLog();
        String path = probe.path() + (probe.path().contains("?") ? "&" : "?") + "explain=true" + setting.parameters();
        QueryClient.Reply reply = client.get(path);
        List<Exchange> log = proxy.takeLog();
        // An absent trace is a 404, as Tempo answers it; its body still holds the plan.
        int expected = probe.kind() == S3Probe.Kind.TRACE && probe.maxFound() == 0 ? 404 : 200;
        if (reply.status() != expected) {
            throw new IOException(probe.name() + " (" + setting.label() + "): status " + reply.status() + ", expected "
                    + expected + ": " + reply.text());
        }
        JsonNode root = JSON.readTree(reply.body());
        if (!"COMPLETE".equals(root.path("status").asText("COMPLETE"))) {
            throw new IOException(probe.name() + " (" + setting.label() + "): the answer is " + root.path("status").asText()
                    + ": " + root.path("message").asText());
        }
        long found = probe.found(root);
        if (found < probe.minFound() || found > probe.maxFound()) {
            throw new IOException(probe.name() + " (" + setting.label() + "): found " + found + ", the manifest says "
                    + (probe.minFound() == probe.maxFound() ? probe.minFound() : probe.minFound() + " to " + probe.maxFound()));
        }
        long explainRequests = 0;
        for (JsonNode plan : root.path("explain")) {
            explainRequests += plan.path("totals").path("requests").asLong();
        }
        int dataGets = 0;
        int indexGets = 0;
        int lists = 0;
        int blockRequests = 0;
        long bytes = 0;
        for (Exchange e : log) {
            String label = RequestChain.label(e, bucket);
            dataGets += label.startsWith("data.arrow") ? 1 : 0;
            indexGets += label.startsWith(BlockStore.INDEX_OBJECT) ? 1 : 0;
            lists += label.equals("LIST") ? 1 : 0;
            blockRequests += RequestChain.ofBlock(e, bucket) ? 1 : 0;
            bytes += e.bodyBytes();
        }
        List<String> chain = RequestChain.longest(log).stream().map(e -> RequestChain.label(e, bucket)).toList();
        return new LookupCost(probe.group(), probe.name(), setting, cold, reply.elapsedNanos() / 1e6, log.size(), dataGets,
                indexGets, lists, bytes, chain.size(), chain, blockRequests, explainRequests);
    }

    /** The warm node's requests while idle, and its index GETs and listings while it answers {@code probe} back to back. */
    private Polls polls(FaultProxy proxy, QueryClient client, S3Probe probe) throws IOException, InterruptedException {
        progress.accept("counting index reads: " + options.idle().toSeconds() + " s idle, " + options.busy().toSeconds()
                + " s busy");
        proxy.takeLog();
        Thread.sleep(options.idle().toMillis());
        int idleRequests = proxy.takeLog().size();
        long start = System.nanoTime();
        long end = start + options.busy().toNanos();
        int lookups = 0;
        while (System.nanoTime() < end) {
            QueryClient.Reply reply = client.get(probe.path());
            if (reply.status() != 200) {
                throw new IOException(probe.name() + ": status " + reply.status() + ": " + reply.text());
            }
            lookups++;
        }
        double busySeconds = (System.nanoTime() - start) / 1e9;
        int indexGets = 0;
        int lists = 0;
        for (Exchange e : proxy.takeLog()) {
            String label = RequestChain.label(e, bucket);
            indexGets += label.startsWith(BlockStore.INDEX_OBJECT) ? 1 : 0;
            lists += label.equals("LIST") ? 1 : 0;
        }
        return new Polls(QueryEngine.INDEX_POLL.toMillis() / 1e3, options.idle().toMillis() / 1e3, idleRequests,
                busySeconds, lookups, indexGets, lists);
    }

    private static CorpusFacts facts(Path dir, Manifest manifest, int probes) throws IOException {
        CorpusBytes bytes = CorpusBytes.of(dir);
        Manifest.Counts c = manifest.counts();
        return new CorpusFacts(c.spans(), c.logs(), c.spanBlocks(), c.logBlocks(), bytes.data(), bytes.sidecars(), probes);
    }
}
