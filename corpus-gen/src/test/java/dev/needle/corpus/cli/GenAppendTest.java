package dev.needle.corpus.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.corpus.FullScan;
import dev.needle.corpus.Manifest;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code needle gen --out DIR} into a DIR that holds a corpus: refused without {@code --append}, leaving
 * the corpus as it was; with it, a second run's blocks beside the first's and a manifest that a full scan
 * of DIR holds true: counts of both runs, present probes of both with their counts, absent probes absent
 * from all data, and no trace id or span id made twice (the same seed and time window as the first run,
 * the case most prone to collide).
 */
class GenAppendTest {

    private static final String[] FIRST = {"--spans", "3000", "--logs", "2000", "--block-rows", "700", "--probes", "10",
        "--services", "8", "--routes", "20", "--users", "3000", "--threads", "2", "--json"};

    @TempDir
    Path dir;

    private record Run(int exit, String out, String err) {
    }

    private static Run run(Path out, String[] first, String... more) {
        String[] args = Stream.concat(Stream.concat(Stream.of(first), Stream.of(more)), Stream.of("--out", out.toString()))
                .toArray(String[]::new);
        StringWriter stdout = new StringWriter();
        StringWriter stderr = new StringWriter();
        CommandLine cli = GenCommand.commandLine();
        cli.setOut(new PrintWriter(stdout));
        cli.setErr(new PrintWriter(stderr));
        int exit = cli.execute(args);
        return new Run(exit, stdout.toString(), stderr.toString());
    }

    @Test
    void outHoldingACorpus_refusedNamingItAndAppend_andLeftAsItWas() throws Exception {
        assertEquals(0, run(dir, FIRST).exit);
        List<Path> blocks = blocks(dir);

        Run again = run(dir, new String[] {"--spans", "100", "--json"});

        assertEquals(1, again.exit, again.err);
        assertEquals("needle gen: " + dir.toAbsolutePath() + " already holds a corpus; give another --out, remove what is"
                + " there, or add --append to add this run to it", again.err.strip());
        assertEquals(blocks, blocks(dir), "no block added");
        assertEquals(3000, Manifest.readFrom(dir).counts().spans());

        Run world = run(dir, new String[] {"--spans", "100", "--seed", "7", "--append"});
        assertEquals(2, world.exit, world.err);
        assertTrue(world.err.contains("--append keeps the corpus's own") && world.err.contains("leave out --seed"), world.err);
        Run otlp = run(dir.resolve("otlp"), new String[] {"--spans", "100", "--format", "otlp-json", "--append"});
        assertEquals(2, otlp.exit, otlp.err);
        assertTrue(otlp.err.contains("--append goes with --format blocks"), otlp.err);
        Run nothing = run(dir.resolve("empty"), new String[] {"--spans", "100", "--append"});
        assertEquals(1, nothing.exit, nothing.err);
        assertTrue(nothing.err.contains(dir.resolve("empty").toAbsolutePath() + " has no manifest.json to append to"),
                nothing.err);
        assertEquals(blocks, blocks(dir), "no block added");
    }

    @Test
    void append_manifestDescribesEveryRecordInTheDirectory() throws Exception {
        assertEquals(0, run(dir, FIRST).exit);
        Manifest first = Manifest.readFrom(dir);
        int firstBlocks = blocks(dir).size();

        Run appended = run(dir, new String[] {"--spans", "2000", "--logs", "1500", "--threads", "2", "--append", "--json"});

        assertEquals(0, appended.exit, appended.err);
        Manifest manifest = Manifest.readFrom(dir);
        assertEquals(first.spec(), manifest.spec());
        assertEquals(1, manifest.appended().size());
        assertEquals(manifest.counts().spanBlocks() + manifest.counts().logBlocks(), blocks(dir).size(),
                "both runs' blocks, none overwritten");
        assertTrue(blocks(dir).size() > firstBlocks);

        FullScan scan = FullScan.of(dir, TenantId.DEFAULT);
        Map<String, Long> spansByTrace = new HashMap<>();
        Map<String, Long> logsByTrace = new HashMap<>();
        Map<String, Long> attributes = new HashMap<>();
        Set<String> spanIds = new HashSet<>();
        for (SpanRecord s : scan.spans) {
            spansByTrace.merge(s.traceId().hex(), 1L, Long::sum);
            assertTrue(spanIds.add(s.traceId().hex() + "/" + s.spanId().hex()), "a span made twice: " + s);
            count(attributes, "spans", "resource", s.resource().attributes());
            count(attributes, "spans", "span", s.attributes());
        }
        Set<LogRecord> logs = new HashSet<>(scan.logs);
        assertEquals(scan.logs.size(), logs.size(), "a log record made twice");
        for (LogRecord r : scan.logs) {
            if (!r.traceId().isEmpty()) {
                logsByTrace.merge(r.traceId().hex(), 1L, Long::sum);
            }
            count(attributes, "logs", "resource", r.resource().attributes());
            count(attributes, "logs", "log", r.attributes());
        }

        Manifest.Counts counts = manifest.counts();
        assertEquals(5000, counts.spans());
        assertEquals(3500, counts.logs());
        assertEquals(counts.spans(), scan.spans.size());
        assertEquals(counts.logs(), scan.logs.size());
        assertEquals(counts.traces(), spansByTrace.size(), "no trace id shared by the two runs");
        assertEquals(counts.correlatedLogs(), scan.logs.stream().filter(r -> !r.traceId().isEmpty()).count());
        assertEquals(counts.spanErrors(), scan.spans.stream().filter(s -> s.statusCode() == 2).count());

        for (List<Manifest.PresentTrace> family : manifest.presentTraceIds().values()) {
            assertEquals(20, family.size(), "both runs' probes");
            for (Manifest.PresentTrace trace : family) {
                assertEquals(trace.spans(), spansByTrace.getOrDefault(trace.id(), 0L), trace.id());
                assertEquals(trace.logs(), logsByTrace.getOrDefault(trace.id(), 0L), trace.id());
            }
        }
        for (List<String> family : manifest.absentTraceIds().values()) {
            for (String id : family) {
                assertFalse(spansByTrace.containsKey(id) || logsByTrace.containsKey(id), "absent " + id + " is in the data");
            }
        }
        for (Manifest.AttributeProbe p : manifest.presentAttributes()) {
            assertEquals(p.count(), attributes.getOrDefault(key(p.signal(), p.scope(), p.key(), p.value()), 0L), p.toString());
        }
        for (Manifest.AttributeProbe p : manifest.absentAttributes()) {
            assertEquals(0L, attributes.getOrDefault(key(p.signal(), p.scope(), p.key(), p.value()), 0L), p.toString());
        }
    }

    private static void count(Map<String, Long> counts, String signal, String scope, List<KeyValue> attributes) {
        for (KeyValue kv : attributes) {
            counts.merge(key(signal, scope, kv.key(), kv.value()), 1L, Long::sum);
        }
    }

    private static String key(String signal, String scope, String key, AnyValue value) {
        return signal + "/" + scope + "/" + key + "/" + value;
    }

    private static List<Path> blocks(Path dir) throws Exception {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().equals("data.arrow")).sorted().toList();
        }
    }
}
