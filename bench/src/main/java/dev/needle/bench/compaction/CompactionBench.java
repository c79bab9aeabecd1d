package dev.needle.bench.compaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.bench.CorpusBytes;
import dev.needle.bench.compaction.CompactionBenchResult.Blocks;
import dev.needle.bench.compaction.CompactionBenchResult.Compaction;
import dev.needle.bench.compaction.CompactionBenchResult.Lookup;
import dev.needle.bench.s3.S3Probe;
import dev.needle.bench.server.QueryClient;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.corpus.Manifest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lookups over a corpus of many small blocks before and after {@code needle compact}: every trace
 * id (present and absent) and absent span attribute value of the manifest, asked over HTTP, warm and
 * cold, with the store's index and without it; and the compaction's throughput. The corpus is
 * compacted in place.
 */
final class CompactionBench {

    /** The probes' groups measured: a trace by id, and an attribute value no span holds. */
    static final List<String> GROUPS = List.of("trace, present", "trace, absent", "span attribute, absent");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern MERGED = Pattern.compile(
            "merged (\\d+) blocks \\((\\d+) rows\\) into (\\d+) in ([0-9.]+) s");

    /** With the index (every mechanism), or without it: {@code disable=index}. */
    enum Setting {
        INDEX("index", ""),
        NO_INDEX("no index", "disable=index");

        final String label;
        final String parameter;

        Setting(String label, String parameter) {
            this.label = label;
            this.parameter = parameter;
        }
    }

    /**
     * How to run.
     *
     * @param corpus     the corpus directory, made by {@code needle gen --out DIR}
     * @param script     the {@code needle} script, whose {@code compact} is run
     * @param compact    the arguments given to {@code needle compact} after {@code --data DIR}
     * @param warmRuns   measured runs of each probe on a warm engine, after one that fills its caches
     * @param coldProbes the probes of each group measured cold (each on a new engine): the first ones
     */
    record Options(Path corpus, Path script, List<String> compact, int warmRuns, int coldProbes) {
    }

    private final Options options;
    private final Consumer<String> progress;

    CompactionBench(Options options, Consumer<String> progress) {
        this.options = options;
        this.progress = progress;
    }

    CompactionBenchResult run() throws IOException, InterruptedException {
        Path dir = options.corpus().toAbsolutePath().normalize();
        List<S3Probe> probes = S3Probe.all(Manifest.readFrom(dir)).stream().filter(p -> GROUPS.contains(p.group()))
                .toList();
        writeIndex(dir);
        Blocks before = blocks(dir);
        List<Lookup> lookups = new ArrayList<>(measure("before", dir, probes));
        Compaction compaction = compact(dir);
        Blocks after = blocks(dir);
        lookups.addAll(measure("after", dir, probes));
        return new CompactionBenchResult(dir.getFileName().toString(), LocalDate.now(ZoneOffset.UTC).toString(), before,
                after, compaction, lookups);
    }

    /** Adds the blocks no index lists yet to their tenant's index, as a server does when it starts. */
    private void writeIndex(Path dir) throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        BlockIndexWriter writer = new BlockIndexWriter(store);
        for (TenantId tenant : store.tenants()) {
            BlockIndexWriter.Reconciled r = writer.reconcile(tenant, Signal.SPANS);
            if (!r.agreed()) {
                progress.accept("index of " + tenant.value() + "/spans: " + r.added().size() + " blocks added");
            }
        }
    }

    private List<Lookup> measure(String phase, Path dir, List<S3Probe> probes) throws IOException {
        List<Lookup> out = new ArrayList<>();
        try (LocalEngines engines = new LocalEngines(dir)) {
            QueryClient client = new QueryClient(engines.endpoint());
            for (Setting setting : Setting.values()) {
                progress.accept(phase + ", " + setting.label + ", warm: " + probes.size() + " probes, "
                        + options.warmRuns() + " runs each");
                engines.renew(true);
                for (S3Probe probe : probes) {
                    lookUp(client, probe, setting);
                    for (int i = 0; i < options.warmRuns(); i++) {
                        out.add(new Lookup(phase, setting.label, false, probe.group(), probe.name(),
                                lookUp(client, probe, setting)));
                    }
                }
                progress.accept(phase + ", " + setting.label + ", cold: " + options.coldProbes() + " probes of each group");
                Map<String, Integer> taken = new HashMap<>();
                for (S3Probe probe : probes) {
                    if (taken.merge(probe.group(), 1, Integer::sum) <= options.coldProbes()) {
                        engines.renew(false);
                        out.add(new Lookup(phase, setting.label, true, probe.group(), probe.name(),
                                lookUp(client, probe, setting)));
                    }
                }
            }
        }
        return out;
    }

    /** One lookup as a user asks it, its answer checked against the manifest; returns its time in ms. */
    private static double lookUp(QueryClient client, S3Probe probe, Setting setting) throws IOException {
        String path = probe.path() + (setting.parameter.isEmpty() ? ""
                : (probe.path().contains("?") ? "&" : "?") + setting.parameter);
        QueryClient.Reply reply = client.get(path);
        // An absent trace is a 404, as Tempo answers it.
        boolean absentTrace = probe.kind() == S3Probe.Kind.TRACE && probe.maxFound() == 0;
        if (reply.status() != (absentTrace ? 404 : 200)) {
            throw new IOException(probe.name() + " (" + setting.label + "): status " + reply.status() + ": " + reply.text());
        }
        if (!absentTrace) {
            JsonNode root = JSON.readTree(reply.body());
            long found = probe.found(root);
            if (found < probe.minFound() || found > probe.maxFound()) {
                throw new IOException(probe.name() + " (" + setting.label + "): found " + found + ", the manifest says "
                        + probe.minFound() + " to " + probe.maxFound());
            }
        }
        return reply.elapsedNanos() / 1e6;
    }

    /** Runs {@code needle compact --data DIR} as a user does, and reads its report. */
    private Compaction compact(Path dir) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(options.script().toString(), "compact", "--data", dir.toString()));
        command.addAll(options.compact());
        progress.accept("running " + String.join(" ", command));
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int exit = process.waitFor();
        double wall = (System.nanoTime() - started) / 1e9;
        Matcher m = MERGED.matcher(output);
        if (exit != 0 || !m.find()) {
            throw new IOException("needle compact exited with " + exit + " and did not say what it merged: " + output);
        }
        long rows = Long.parseLong(m.group(2));
        double seconds = Double.parseDouble(m.group(4));
        progress.accept(m.group() + "; " + Math.round(wall) + " s in all");
        return new Compaction(String.join(" ", command.subList(1, command.size())).replace(dir.toString(), "DIR"),
                seconds, wall, Long.parseLong(m.group(1)), rows, Long.parseLong(m.group(3)), rows / seconds);
    }

    /** The span blocks of every tenant of {@code dir}, and their bytes. */
    private static Blocks blocks(Path dir) throws IOException {
        FsBlockStore store = new FsBlockStore(dir);
        long blocks = 0;
        for (TenantId tenant : store.tenants()) {
            blocks += store.list(tenant, Signal.SPANS).size();
        }
        CorpusBytes bytes = CorpusBytes.of(dir);
        return new Blocks(blocks, bytes.data(), bytes.sidecars());
    }
}
