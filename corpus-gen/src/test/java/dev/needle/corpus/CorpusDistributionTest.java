package dev.needle.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The records are shaped as {@link CorpusSpec} and docs/CLI.md's corpus description say, within stated bounds. */
class CorpusDistributionTest {

    static final CorpusSpec SPEC = CorpusSpec.defaults(200_000, 100_000).withBlockRows(50_000);
    static Corpus corpus;
    static List<SpanRecord> spans = new ArrayList<>();
    static List<LogRecord> logs = new ArrayList<>();
    static Map<Bytes, List<SpanRecord>> traces;

    @BeforeAll
    static void generate() {
        corpus = new Corpus(SPEC);
        for (int c = 0; c < corpus.spanChunks(); c++) {
            spans.addAll(corpus.spans(c).records());
        }
        for (int c = 0; c < corpus.logChunks(); c++) {
            logs.addAll(corpus.logs(c).records());
        }
        traces = spans.stream().collect(Collectors.groupingBy(SpanRecord::traceId));
    }

    @Test
    void exactCountsAndChunksNoLargerThanABlock() {
        assertEquals(200_000, spans.size());
        assertEquals(100_000, logs.size());
        for (int c = 0; c < corpus.spanChunks(); c++) {
            assertTrue(corpus.spans(c).records().size() <= SPEC.blockRows());
        }
        assertEquals(2, corpus.logChunks());
    }

    @Test
    void spansPerTraceAreLongTailedBetweenOneAndThreeHundred() {
        int[] sizes = traces.values().stream().mapToInt(List::size).toArray();
        double mean = Arrays.stream(sizes).average().orElseThrow();
        assertTrue(mean >= 10 && mean <= 20, "mean spans per trace " + mean);
        assertTrue(Arrays.stream(sizes).min().orElseThrow() >= 1);
        assertTrue(Arrays.stream(sizes).max().orElseThrow() <= TracePlan.MAX_SPANS);
        long single = Arrays.stream(sizes).filter(n -> n == 1).count();
        long over100 = Arrays.stream(sizes).filter(n -> n > 100).count();
        assertTrue(single > sizes.length * 0.02 && single < sizes.length * 0.12, "single-span traces " + single);
        assertTrue(over100 > sizes.length * 0.003 && over100 < sizes.length * 0.03, "traces over 100 spans " + over100);
    }

    @Test
    void everyTraceIsOneTreeInsideItsRootsTime() {
        for (List<SpanRecord> trace : traces.values()) {
            Map<Bytes, SpanRecord> byId = new HashMap<>();
            trace.forEach(s -> byId.put(s.spanId(), s));
            assertEquals(trace.size(), byId.size(), "span ids are unique in a trace");
            long roots = trace.stream().filter(s -> s.parentSpanId().isEmpty()).count();
            assertEquals(1, roots);
            for (SpanRecord s : trace) {
                assertTrue(s.endTimeUnixNano() >= s.startTimeUnixNano());
                if (!s.parentSpanId().isEmpty()) {
                    SpanRecord parent = byId.get(s.parentSpanId());
                    assertTrue(parent != null, "parent of " + s.spanId() + " is in the trace");
                    assertTrue(s.startTimeUnixNano() >= parent.startTimeUnixNano() && s.endTimeUnixNano() <= parent.endTimeUnixNano(),
                            "child inside parent");
                }
            }
        }
    }

    @Test
    void errorShareIsTheSpecs() {
        double share = spans.stream().filter(s -> s.statusCode() == 2).count() / (double) spans.size();
        assertEquals(SPEC.errorShare(), share, SPEC.errorShare() * 0.1);
        assertTrue(spans.stream().filter(s -> s.statusCode() == 2).allMatch(s -> s.events().stream().anyMatch(e -> e.name().equals("exception"))));
    }

    @Test
    void kindsAndTypedAttributesAllOccur() {
        assertEquals(Set.of(1, 2, 3, 4, 5), spans.stream().map(SpanRecord::kind).collect(Collectors.toSet()));
        Set<String> types = new HashSet<>();
        for (SpanRecord s : spans) {
            for (KeyValue kv : s.attributes()) {
                types.add(kv.key() + ":" + kv.value().getClass().getSimpleName());
            }
        }
        assertTrue(types.containsAll(Set.of("http.request.method:Str", "http.response.status_code:Int", "http.route:Str",
                "db.system:Str", "server.port:Int", "sampling.ratio:Dbl", "cache.hit:Bool", "user.id:Str")), types.toString());
        assertTrue(spans.stream().anyMatch(s -> !s.links().isEmpty()));
        Set<String> resourceKeys = spans.get(0).resource().attributes().stream().map(KeyValue::key).collect(Collectors.toSet());
        assertTrue(resourceKeys.containsAll(Set.of("service.name", "service.version", "k8s.pod.name", "k8s.namespace.name",
                "host.name", "cloud.region")), resourceKeys.toString());
    }

    @Test
    void cardinalitiesAreBoundedByTheSpec() {
        assertEquals(SPEC.services(), distinct(spans, "resource", "service.name"));
        assertTrue(distinct(spans, "span", "http.route") <= SPEC.routes());
        long users = distinct(spans, "span", "user.id");
        assertTrue(users > 10_000 && users <= SPEC.users(), "distinct users " + users);
    }

    @Test
    void logsMixSeveritiesAndCorrelateWithRealSpans() {
        Map<String, Long> severities = logs.stream().collect(Collectors.groupingBy(LogRecord::severityText, Collectors.counting()));
        assertEquals(Set.of("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"), severities.keySet());
        assertTrue(severities.get("INFO") > logs.size() / 2, severities.toString());
        double correlated = logs.stream().filter(r -> !r.traceId().isEmpty()).count() / (double) logs.size();
        assertEquals(SPEC.correlatedLogs(), correlated, 0.02);
        for (LogRecord r : logs) {
            if (!r.traceId().isEmpty()) {
                assertTrue(traces.get(r.traceId()).stream().anyMatch(s -> s.spanId().equals(r.spanId())), "log points at a span");
            }
        }
        long bodies = logs.stream().map(r -> ((AnyValue.Str) r.body()).value()).distinct().count();
        assertTrue(bodies > logs.size() / 2, "bodies have variable parts: " + bodies + " distinct");
    }

    @Test
    void traceIdFamiliesAreMixedAndShapedAsNamed() {
        int[] families = new int[4];
        for (Map.Entry<Bytes, List<SpanRecord>> e : traces.entrySet()) {
            byte[] id = e.getKey().toByteArray();
            long startSecond = e.getValue().stream().mapToLong(SpanRecord::startTimeUnixNano).min().orElseThrow() / 1_000_000_000L;
            long bytes0to3 = ((id[0] & 0xffL) << 24) | ((id[1] & 0xff) << 16) | ((id[2] & 0xff) << 8) | (id[3] & 0xff);
            boolean zeroHigh = Arrays.equals(Arrays.copyOf(id, 8), new byte[8]);
            if (id[0] == 0x4e && id[1] == 0x65 && id[8] == 0x6c) {
                families[3]++;
            } else if (zeroHigh) {
                families[2]++;
            } else if (bytes0to3 == startSecond) {
                families[1]++;
            } else {
                families[0]++;
            }
        }
        for (int f : families) {
            assertEquals(0.25, f / (double) traces.size(), 0.03, Arrays.toString(families));
        }
    }

    private static long distinct(List<SpanRecord> records, String scope, String key) {
        return records.stream()
                .flatMap(s -> (scope.equals("resource") ? s.resource().attributes() : s.attributes()).stream())
                .filter(kv -> kv.key().equals(key)).map(KeyValue::value).distinct().count();
    }
}
