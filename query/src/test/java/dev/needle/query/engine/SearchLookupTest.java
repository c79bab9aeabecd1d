package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pruned equals scanned: random attribute lookups (present and absent values, typed literals,
 * AND/OR, comparisons around zone-map bounds, time ranges, limits) answer exactly what a plain
 * scan of the decoded records finds, under every combination of mechanisms.
 */
class SearchLookupTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    static final String[] SPAN_CONDITIONS = {
        "resource.service.name = \"checkout\"", "resource.service.name = \"billing\"", ".service.name = \"cart\"",
        "span.http.response.status_code = 500", "span.http.response.status_code = 404",
        "span.http.response.status_code = 200.0", "span.sampling.ratio = 0.25", "span.sampling.ratio = 0.5",
        "span.sampling.ratio = 1", "span.cache.hit = true", "span.code = \"200\"", "span.code = 200",
        ".k8s.pod.name = \"cart-1\"", ".k8s.pod.name = \"cart-9\"", "span.retries = 1", "span.retries = 2.0",
        "name = \"op-3\"", "name = \"op-99\"", "status = error", "kind = server", "kind != client",
        "instrumentation.scope.kind = \"http\"", "span.user.id = \"u17\"", "span.user.id = \"u99999\"",
        "duration > 5ms", "duration < 100us", "duration >= 1s", "duration <= 1ms", "duration = 1ms",
        "span.http.response.status_code >= 300", "span.http.route < \"/api/15\"", "span.http.route != \"/api/3\"",
        // Regexes: alternations of values present, absent and mixed, which ATTR_IDX probes one by one,
        // and patterns and !~ that it cannot judge.
        "resource.service.name =~ \"cart|payment\"", "resource.service.name =~ \"billing|shipping\"",
        ".service.name =~ \"billing|checkout\"", "span.user.id =~ \"u17|u99999|u4\"", "span.code =~ \"200\"",
        "span.code =~ \"2.*\"", "span.http.route =~ \"/api/1[0-9]\"", "span.http.route =~ \"/api/1\"",
        "name =~ \"op-3|op-99\"", "name =~ \"op-1.\"", "name !~ \"op-[0-5]\"", ".k8s.pod.name !~ \"cart-1|cart-9\"",
        "span.http.response.status_code =~ \"500\"", "span.http.route =~ \"/API/1\"",
        // Scoped intrinsics, status messages and event names: judged on the rows.
        "span:name = \"op-3\"", "span:status = error", "span:kind = server", "span:duration > 5ms",
        "statusMessage = \"timeout\"", "span:statusMessage =~ \"time.*|refused\"", "statusMessage != \"\"",
        "statusMessage = \"\"", "event:name = \"exception\"", "event:name =~ \"retry|nope\"", "event:name != \"retry\"",
        // Fields of the whole trace: never pruned, judged on the trace looked up whole.
        "traceDuration > 20ms", "trace:duration < 2ms", "rootServiceName = \"cart\"",
        "trace:rootService =~ \"cart|payment\"", "rootName = \"op-3\"", "trace:rootName !~ \"op-1.*\"",
    };
    static final String[] LOG_CONDITIONS = {
        "severity >= 17", "severity < 5", "severity = 9", "severity = 24", "severity != 1", "log.attempt = 2",
        "log.attempt = 2.5", "log.log.source = \"app\"", "log.log.source = \"db\"", "resource.service.name = \"payment\"",
        ".service.name = \"nope\"", "instrumentation.scope.kind = \"rpc\"",
        "log.log.source =~ \"app|db\"", "log.log.source =~ \"db|queue\"", "log.log.source !~ \"side.*\"",
        "resource.service.name =~ \"pay.*|cart\"",
    };

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;
    private Corpus corpus;
    private QueryEngine engine;
    /** The corpus's traces, which decide the conditions on a whole trace. */
    private final Map<Bytes, WholeTrace> traces = new HashMap<>();

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        corpus = Corpus.write(store, allocator, TENANT, 23, 8, 250);
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
        corpus.spans.stream().collect(Collectors.groupingBy(SpanRecord::traceId))
                .forEach((id, spans) -> traces.put(id, new WholeTrace(spans)));
    }

    @AfterEach
    void tearDown() {
        engine.close();
        allocator.close();
    }

    @Test
    void searchSpans_randomQueries_mechanismCombinationsEqualPlainScan() throws Exception {
        Corpus.writeIndex(store, TENANT);
        SplittableRandom random = new SplittableRandom(31);
        for (int q = 0; q < 60; q++) {
            Expr expr = QueryParser.parse(randomQuery(random, SPAN_CONDITIONS), Signal.SPANS);
            TimeRange range = randomRange(random);
            List<SpanRecord> expected = corpus.spans.stream()
                    .filter(s -> Values.matches(expr, Values.of(s, traces.get(s.traceId())))
                            && range.contains(s.startTimeUnixNano()))
                    .toList();
            for (Mechanisms m : someCombinations(random)) {
                SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, range, 100_000, m);
                assertEquals(new HashSet<>(expected), new HashSet<>(result.records()), expr + " " + range + " " + m);
                assertEquals(expected.size(), result.records().size(), expr + " " + m);
            }
            checkLimit(expr, range, expected, SpanRecord::startTimeUnixNano, random, true);
        }
    }

    @Test
    void searchLogs_randomQueries_everyMechanismCombinationEqualsPlainScan() throws Exception {
        Corpus.writeIndex(store, TENANT);
        SplittableRandom random = new SplittableRandom(37);
        for (int q = 0; q < 40; q++) {
            Expr expr = QueryParser.parse(randomQuery(random, LOG_CONDITIONS), Signal.LOGS);
            TimeRange range = randomRange(random);
            List<LogRecord> expected = corpus.logs.stream()
                    .filter(r -> Values.matches(expr, Values.of(r)) && range.contains(r.eventTimeUnixNano())).toList();
            for (Mechanisms m : TraceLookupTest.everyCombination()) {
                SearchResult<LogRecord> result = engine.searchLogs(TENANT, expr, range, 100_000, m);
                assertEquals(new HashSet<>(expected), new HashSet<>(result.records()), expr + " " + m);
                assertEquals(expected.size(), result.records().size(), expr + " " + m);
            }
            checkLimit(expr, range, expected, LogRecord::eventTimeUnixNano, random, false);
        }
    }

    @Test
    void search_comparisonsAtAndAroundZoneMapBounds_equalPlainScan() throws Exception {
        List<String> spanQueries = new ArrayList<>();
        List<String> logQueries = new ArrayList<>();
        for (var ref : store.list(TENANT, Signal.SPANS)) {
            try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                for (BatchMeta b : reader.meta().orElseThrow().batches()) {
                    for (long bound : new long[] {b.minDurationNano(), b.maxDurationNano()}) {
                        for (long x : new long[] {bound - 1, bound, bound + 1}) {
                            for (String op : new String[] {"=", "!=", "<", "<=", ">", ">="}) {
                                spanQueries.add("{ duration " + op + " " + x + "ns }");
                            }
                        }
                    }
                }
            }
        }
        for (var ref : store.list(TENANT, Signal.LOGS)) {
            try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                for (BatchMeta b : reader.meta().orElseThrow().batches()) {
                    if (b.minSeverity() != null) {
                        for (int bound : new int[] {b.minSeverity(), b.maxSeverity()}) {
                            for (int x = Math.max(0, bound - 1); x <= Math.min(24, bound + 1); x++) {
                                for (String op : new String[] {"=", "!=", "<", "<=", ">", ">="}) {
                                    logQueries.add("{ severity " + op + " " + x + " }");
                                }
                            }
                        }
                    }
                }
            }
        }
        for (String q : spanQueries.subList(0, Math.min(400, spanQueries.size()))) {
            Expr expr = QueryParser.parse(q, Signal.SPANS);
            long expected = corpus.spans.stream().filter(s -> Values.matches(expr, Values.of(s))).count();
            assertEquals(expected, engine.searchSpans(TENANT, expr, TimeRange.ALL, 100_000, Mechanisms.ALL).records().size(), q);
        }
        for (String q : logQueries.subList(0, Math.min(400, logQueries.size()))) {
            Expr expr = QueryParser.parse(q, Signal.LOGS);
            long expected = corpus.logs.stream().filter(r -> Values.matches(expr, Values.of(r))).count();
            assertEquals(expected, engine.searchLogs(TENANT, expr, TimeRange.ALL, 100_000, Mechanisms.ALL).records().size(), q);
        }
    }

    @Test
    void searchSpans_absentValue_opensNoBlockButFalsePositives() throws Exception {
        Expr expr = QueryParser.parse("{ resource.service.name = \"billing\" }", Signal.SPANS);
        Explain.Totals t = engine.searchSpans(TENANT, expr, TimeRange.ALL, 20, Mechanisms.ALL).plan().totals();
        assertEquals(t.listed(), t.prunedByAttrIdx() + t.opened());
        assertEquals(t.opened(), t.openedForNothing());
        assertTrue(t.opened() <= 1, t.toString());
    }

    @Test
    void searchSpans_unreadableOldBlock_partialOnlyWhenItCouldChangeTheAnswer() throws Exception {
        var oldest = corpus.spanBlocks.get(0);
        Path data = store.blockDir(oldest).resolve("data.arrow");
        byte[] bytes = java.nio.file.Files.readAllBytes(data);
        java.nio.file.Files.write(data, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        Expr all = QueryParser.parse("{ }", Signal.SPANS);
        SearchResult<SpanRecord> newest = engine.searchSpans(TENANT, all, TimeRange.ALL, 3, Mechanisms.NONE);
        assertEquals(3, newest.records().size());
        assertTrue(!newest.partial(), "the newest 3 spans cannot be in the oldest block: " + newest.problems());
        SearchResult<SpanRecord> everything = engine.searchSpans(TENANT, all, TimeRange.ALL, 100_000, Mechanisms.NONE);
        assertTrue(everything.partial());
        assertTrue(everything.problems().get(0).contains(oldest.name().toString()));
    }

    @Test
    void searchSpans_oneBitFlippedInsideABatch_partialNamingTheBlockOthersAnswered() throws Exception {
        BlockRef broken = corpus.spanBlocks.get(0);
        // The first "checkout" in data.arrow is a resource attribute's value: it still decodes, as another string.
        Corpus.flipOneBit(store.blockDir(broken).resolve("data.arrow"), "checkout".getBytes(StandardCharsets.UTF_8));
        Expr expr = QueryParser.parse("{ resource.service.name = \"checkout\" }", Signal.SPANS);
        SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, TimeRange.ALL, 100_000, Mechanisms.ALL);
        assertTrue(result.partial(), "answered from a batch with a flipped bit: " + result.records().size() + " spans");
        assertEquals(1, result.problems().size(), result.problems().toString());
        String problem = result.problems().get(0);
        assertTrue(problem.contains(broken.name().toString()) && problem.contains("checksum"), problem);
        // Every other block is answered: block 0 holds exactly the spans of the first minute.
        List<SpanRecord> elsewhere = corpus.spans.stream()
                .filter(s -> s.startTimeUnixNano() >= Corpus.T0 + Corpus.BLOCK_NANOS && Values.matches(expr, Values.of(s)))
                .toList();
        assertFalse(elsewhere.isEmpty());
        assertEquals(new HashSet<>(elsewhere), new HashSet<>(result.records()));
    }

    @Test
    void searchSpans_limit_readsNewestBlocksOnly() throws Exception {
        Expr expr = QueryParser.parse("{ }", Signal.SPANS);
        SearchResult<SpanRecord> result = engine.searchSpans(TENANT, expr, TimeRange.ALL, 5, Mechanisms.ALL);
        assertEquals(5, result.records().size());
        assertTrue(result.plan().totals().skippedByLimit() >= 5, result.plan().totals().toString());
    }

    private <R> void checkLimit(Expr expr, TimeRange range, List<R> expected, ToLongFunction<R> time,
                                SplittableRandom random, boolean spans) throws IOException {
        int limit = 1 + random.nextInt(30);
        List<Long> newest = expected.stream().map(time::applyAsLong).sorted((a, b) -> Long.compare(b, a))
                .limit(limit).toList();
        for (Mechanisms m : List.of(Mechanisms.ALL, Mechanisms.NONE)) {
            List<R> got = spans
                    ? castList(engine.searchSpans(TENANT, expr, range, limit, m).records())
                    : castList(engine.searchLogs(TENANT, expr, range, limit, m).records());
            assertEquals(newest, got.stream().map(time::applyAsLong).toList(), expr + " limit " + limit + " " + m);
            assertTrue(expected.containsAll(got));
        }
    }

    /**
     * All mechanisms, none, and four other combinations at random: a span search that names the
     * trace looks each matching trace up whole, which without mechanisms rescans every block, so
     * all 16 per query would cost most of this class's time; over 60 queries each combination
     * is still tried about 17 times.
     */
    private static List<Mechanisms> someCombinations(SplittableRandom random) {
        List<Mechanisms> others = new ArrayList<>(TraceLookupTest.everyCombination());
        List<Mechanisms> chosen = new ArrayList<>(List.of(Mechanisms.ALL, Mechanisms.NONE));
        others.removeAll(chosen);
        for (int i = 0; i < 4; i++) {
            chosen.add(others.remove(random.nextInt(others.size())));
        }
        return chosen;
    }

    @SuppressWarnings("unchecked")
    private static <R> List<R> castList(List<?> list) {
        return (List<R>) list;
    }

    static String randomQuery(SplittableRandom random, String[] conditions) {
        int shape = random.nextInt(5);
        String a = conditions[random.nextInt(conditions.length)];
        String b = conditions[random.nextInt(conditions.length)];
        String c = conditions[random.nextInt(conditions.length)];
        return switch (shape) {
            case 0 -> "{ " + a + " }";
            case 1 -> "{ " + a + " && " + b + " }";
            case 2 -> "{ " + a + " || " + b + " }";
            case 3 -> "{ (" + a + " || " + b + ") && " + c + " }";
            default -> "{ " + a + " && " + b + " || " + c + " }";
        };
    }

    static TimeRange randomRange(SplittableRandom random) {
        if (random.nextInt(3) == 0) {
            return TimeRange.ALL;
        }
        long from = Corpus.T0 + random.nextLong(6 * Corpus.BLOCK_NANOS);
        return new TimeRange(from, from + random.nextLong(3 * Corpus.BLOCK_NANOS));
    }

    static {
        // Every condition must parse: a typo would silently shrink the test.
        for (String c : SPAN_CONDITIONS) {
            parseOrFail("{ " + c + " }", Signal.SPANS);
        }
        for (String c : LOG_CONDITIONS) {
            parseOrFail("{ " + c + " }", Signal.LOGS);
        }
    }

    private static void parseOrFail(String q, Signal signal) {
        try {
            QueryParser.parse(q, signal);
        } catch (QueryParseException e) {
            throw new AssertionError(q + ": " + e.getMessage(), e);
        }
    }

}
