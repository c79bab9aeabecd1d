package dev.needle.bench.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.blocks.store.BlockStore;
import dev.needle.corpus.Manifest;
import dev.needle.corpus.cli.GenCommand;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code needle bench s3} on a small generated corpus whose manifest keeps a few probes of each kind:
 * every probe of the manifest is measured in every latency, setting and cache state; the requests the
 * proxy saw for blocks' files are the requests EXPLAIN counts; a cold engine reads the index exactly
 * once, or lists when the index is off.
 */
class S3BenchCommandTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void run_countsEveryProbe_andItsRequestsAgreeWithExplain() throws Exception {
        Path corpus = dir.resolve("tiny-corpus");
        assertEquals(0, new CommandLine(new GenCommand()).execute("--spans", "3000", "--logs", "3000", "--seed", "5",
                "--zstd", "--probes", "1", "--block-rows", "3000", "--out", corpus.toString(), "--json"));
        Set<String> probes = keepFewProbes(corpus);
        Path results = dir.resolve("results");
        String before = System.getProperty("needle.results");
        System.setProperty("needle.results", results.toString());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code;
        try {
            code = new CommandLine(new S3BenchCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                    .execute("--corpus", corpus.toString(), "--latency", "20ms", "--settings", "all,no-index",
                            "--only", "no-index=trace:random+log", "--warm-runs", "1", "--idle", "1s", "--busy", "1s",
                            "--tag", "small", "--json");
        } finally {
            if (before == null) {
                System.clearProperty("needle.results");
            } else {
                System.setProperty("needle.results", before);
            }
        }
        assertEquals(0, code, err::toString);
        List<Path> written;
        try (Stream<Path> files = Files.list(results)) {
            written = files.sorted().toList();
        }
        assertEquals(2, written.size(), written::toString);
        assertTrue(written.get(1).getFileName().toString().matches("s3-\\d{4}-\\d\\d-\\d\\d-tiny-corpus-small\\.md"),
                written::toString);
        try (Stream<Path> files = Files.walk(corpus)) {
            assertEquals(List.of(), files.filter(f -> f.getFileName().toString().equals(BlockStore.INDEX_OBJECT)).toList(),
                    "the bench writes its index objects beside the corpus, not into it");
        }
        JsonNode result = JSON.readTree(out.toString());
        assertEquals(JSON.readTree(written.get(0).toFile()), result, "--json prints what the .json file holds");
        assertEquals(1, result.path("runs").size());
        for (JsonNode run : result.path("runs")) {
            Map<String, Set<String>> measured = new LinkedHashMap<>();
            int lookups = 0;
            for (JsonNode l : run.path("lookups")) {
                lookups++;
                String where = run.path("latencyMillis").asLong() + " ms, " + l.path("setting").asText() + ", "
                        + (l.path("cold").asBoolean() ? "cold" : "warm");
                measured.computeIfAbsent(where, k -> new TreeSet<>()).add(l.path("probe").asText());
                String name = where + ", " + l.path("probe").asText();
                assertEquals(l.path("explainRequests").asLong(), l.path("blockRequests").asLong(),
                        name + ": the proxy's requests for blocks' files against EXPLAIN's count: " + l);
                assertTrue(l.path("sequential").asInt() <= l.path("requests").asInt(), name + ": " + l);
                assertEquals(l.path("sequential").asInt(), l.path("chain").size(), name);
                // Each request of the chain was held 20 ms before it was answered, and each waited for the one before.
                assertTrue(l.path("millis").asDouble() >= 20 * l.path("sequential").asInt(), name + ": " + l);
                if (l.path("cold").asBoolean()) {
                    boolean index = l.path("setting").asText().equals("ALL");
                    int indexGets = l.path("indexGets").asInt();
                    // A fresh engine reads the index first, and again once per poll interval (1 s) a lookup lasts.
                    assertTrue(index ? indexGets >= 1 && indexGets <= 1 + l.path("millis").asDouble() / 1000 : indexGets == 0,
                            name + ": " + l);
                    assertTrue(index || l.path("lists").asInt() >= 1, name + ": without the index it lists: " + l);
                    // The object-store goals: a cold trace lookup in at most 3 round trips, the listing beside the index GET, not after it.
                    if (index && l.path("group").asText().equals("trace, present")) {
                        assertTrue(l.path("sequential").asInt() <= 3, name + ": " + l);
                    }
                }
                if (l.path("group").asText().endsWith("attribute, absent") && l.path("setting").asText().equals("ALL")) {
                    assertEquals(0, l.path("dataGets").asInt(), name + ": an absent value reads no data.arrow: " + l);
                }
            }
            assertEquals(4, measured.size(), measured::toString);
            Set<String> noSpanSearch = new TreeSet<>(probes);
            noSpanSearch.removeIf(p -> p.startsWith("spans: ") || (p.startsWith("trace ") && !p.contains("(random")));
            for (Map.Entry<String, Set<String>> e : measured.entrySet()) {
                assertEquals(e.getKey().contains("NO_INDEX") ? noSpanSearch : probes, e.getValue(), e.getKey());
            }
            assertEquals(2 * probes.size() + 2 * noSpanSearch.size(), lookups);
        }
        String md = Files.readString(written.get(1));
        int lookups = 2 * probes.size() + 2 * (probes.size() - 8);
        assertTrue(md.contains("in " + lookups + " of " + lookups + " lookups"), md);
        assertTrue(md.contains("| trace, absent | all mechanisms | cold | " + 4 + " |"), md);
        assertTrue(md.contains("with no index only trace lookups of the random family (present and absent) and log searches ("
                + (probes.size() - 8) + " probes)"), md);
        assertTrue(md.contains("--only no-index=trace:random+log"), md);
    }

    /**
     * Rewrites the corpus's manifest with the first present and absent trace id of each family and
     * the first present and absent value of each signal, so that the run stays short; returns
     * the probes' names as the report gives them.
     */
    private static Set<String> keepFewProbes(Path corpus) throws Exception {
        Manifest m = Manifest.readFrom(corpus);
        Map<String, List<Manifest.PresentTrace>> present = new LinkedHashMap<>();
        m.presentTraceIds().forEach((family, ids) -> present.put(family, ids.subList(0, 1)));
        Map<String, List<String>> absent = new LinkedHashMap<>();
        m.absentTraceIds().forEach((family, ids) -> absent.put(family, ids.subList(0, 1)));
        Manifest few = new Manifest(m.spec(), m.counts(), present, absent, firstPerSignal(m.presentAttributes()),
                firstPerSignal(m.absentAttributes()), m.appended());
        few.writeTo(corpus);
        Set<String> names = new HashSet<>();
        S3Probe.all(few).forEach(p -> names.add(p.name()));
        assertEquals(4 + 4 + 2 + 2, names.size(), names::toString);
        return new TreeSet<>(names);
    }

    private static List<Manifest.AttributeProbe> firstPerSignal(List<Manifest.AttributeProbe> probes) {
        return Stream.of("spans", "logs").flatMap(s -> probes.stream().filter(p -> p.signal().equals(s)).limit(1)).toList();
    }
}
