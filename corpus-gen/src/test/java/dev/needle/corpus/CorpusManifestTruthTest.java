package dev.needle.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.corpus.output.BlockOutput;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifest is true: a full scan of the written blocks, not the generator's own counts, finds
 * every present probe as often as the manifest says and never finds an absent one.
 */
class CorpusManifestTruthTest {

    @TempDir
    static Path dir;
    static Manifest manifest;
    static FullScan scan;
    static Map<String, Long> spansByTrace = new HashMap<>();
    static Map<String, Long> logsByTrace = new HashMap<>();
    /** "signal/scope/key/type/value" → records carrying it. */
    static Map<String, Long> attributeCounts = new HashMap<>();

    @BeforeAll
    static void generateAndScan() throws Exception {
        CorpusSpec spec = CorpusSpec.defaults(60_000, 40_000).withBlockRows(9_000).withProbes(20)
                .withCardinality(12, 30, 5_000);
        Corpus corpus = new Corpus(spec);
        BlockOutput.Result result = BlockOutput.write(corpus, dir, TenantId.DEFAULT, 2, BlockWriter.Options.DEFAULT, n -> { });
        Manifest written = corpus.manifest(result.spans(), result.logs());
        written.writeTo(dir);
        manifest = Manifest.readFrom(dir);
        assertEquals(written, manifest, "the manifest reads back as written");
        scan = FullScan.of(dir, TenantId.DEFAULT);
        for (SpanRecord s : scan.spans) {
            spansByTrace.merge(s.traceId().hex(), 1L, Long::sum);
            count("spans", "resource", s.resource().attributes());
            count("spans", "span", s.attributes());
        }
        for (LogRecord r : scan.logs) {
            if (!r.traceId().isEmpty()) {
                logsByTrace.merge(r.traceId().hex(), 1L, Long::sum);
            }
            count("logs", "resource", r.resource().attributes());
            count("logs", "log", r.attributes());
        }
    }

    private static void count(String signal, String scope, List<KeyValue> attributes) {
        for (KeyValue kv : attributes) {
            attributeCounts.merge(key(signal, scope, kv.key(), kv.value()), 1L, Long::sum);
        }
    }

    private static String key(String signal, String scope, String key, AnyValue value) {
        return signal + "/" + scope + "/" + key + "/" + value;
    }

    @Test
    void countsMatchTheScan() {
        Manifest.Counts counts = manifest.counts();
        assertEquals(60_000, scan.spans.size());
        assertEquals(40_000, scan.logs.size());
        assertEquals(counts.spans(), scan.spans.size());
        assertEquals(counts.logs(), scan.logs.size());
        assertEquals(counts.traces(), spansByTrace.size());
        assertEquals(counts.correlatedLogs(), scan.logs.stream().filter(r -> !r.traceId().isEmpty()).count());
        assertEquals(counts.spanErrors(), scan.spans.stream().filter(s -> s.statusCode() == 2).count());
        assertEquals(counts.spanLinks(), scan.spans.stream().mapToLong(s -> s.links().size()).sum());
        assertEquals(counts.spanEvents(), scan.spans.stream().mapToLong(s -> s.events().size()).sum());
    }

    @Test
    void presentTraceIdsAreFoundWithTheirSpanAndLogCounts() {
        assertEquals(Set.of("random", "xray", "short64", "counter"), manifest.presentTraceIds().keySet());
        for (var family : manifest.presentTraceIds().entrySet()) {
            assertEquals(20, family.getValue().size(), family.getKey());
            for (Manifest.PresentTrace trace : family.getValue()) {
                assertEquals(trace.spans(), spansByTrace.getOrDefault(trace.id(), 0L), family.getKey() + " " + trace.id());
                assertEquals(trace.logs(), logsByTrace.getOrDefault(trace.id(), 0L), family.getKey() + " " + trace.id());
            }
        }
        long withLogs = manifest.presentTraceIds().values().stream().flatMap(List::stream).filter(t -> t.logs() > 0).count();
        assertTrue(withLogs > 10, "probes with correlated logs: " + withLogs);
    }

    @Test
    void absentTraceIdsAreNowhere() {
        for (var family : manifest.absentTraceIds().entrySet()) {
            assertEquals(20, family.getValue().size());
            assertEquals(20, new HashSet<>(family.getValue()).size(), "absent ids are distinct");
            for (String id : family.getValue()) {
                assertFalse(spansByTrace.containsKey(id), id);
                assertFalse(logsByTrace.containsKey(id), id);
            }
        }
    }

    @Test
    void absentTraceIdsLieAmongPresentOnesInByteOrder() {
        List<String> present = spansByTrace.keySet().stream().sorted().toList();
        for (var family : manifest.absentTraceIds().entrySet()) {
            for (String id : family.getValue()) {
                assertTrue(id.compareTo(present.get(0)) > 0 && id.compareTo(present.get(present.size() - 1)) < 0,
                        family.getKey() + " " + id + " is outside the ids' range, so a zone map could rule it out");
            }
        }
    }

    @Test
    void presentAttributesAreCountedExactly() {
        assertTrue(manifest.presentAttributes().size() > 100, "probes: " + manifest.presentAttributes().size());
        for (Manifest.AttributeProbe p : manifest.presentAttributes()) {
            assertTrue(p.count() > 0, p.toString());
            assertEquals(p.count(), attributeCounts.getOrDefault(key(p.signal(), p.scope(), p.key(), p.value()), 0L), p.toString());
        }
        Set<String> kinds = new HashSet<>();
        manifest.presentAttributes().forEach(p -> kinds.add(p.signal() + "/" + p.scope() + "/" + p.type()));
        assertTrue(kinds.containsAll(Set.of("spans/resource/string", "spans/span/string", "spans/span/int", "spans/span/double",
                "spans/span/bool", "logs/resource/string", "logs/log/string", "logs/log/int", "logs/log/double", "logs/log/bool")), kinds.toString());
    }

    @Test
    void absentAttributesAreNowhereButTheirKeysOccur() {
        assertTrue(manifest.absentAttributes().size() > 30);
        for (Manifest.AttributeProbe p : manifest.absentAttributes()) {
            assertEquals(0L, attributeCounts.getOrDefault(key(p.signal(), p.scope(), p.key(), p.value()), 0L), p.toString());
            assertTrue(attributeCounts.keySet().stream().anyMatch(k -> k.startsWith(p.signal() + "/" + p.scope() + "/" + p.key() + "/")),
                    "key of " + p + " occurs");
        }
    }
}
