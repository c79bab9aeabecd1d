package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link QueryEngine#searchTraces}: the limit counts traces, and each trace comes whole. */
class TraceSearchTest {

    private static final Scope SCOPE = new Scope("trace-search-test", "1", List.of(), 0, "");
    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final Bytes BUSY = Bytes.fromHex("bb000000000000000000000000000001");
    private static final Bytes QUIET = Bytes.fromHex("aa000000000000000000000000000002");
    private static final Bytes OLDEST = Bytes.fromHex("cc000000000000000000000000000003");

    @TempDir
    Path dir;

    /**
     * BUSY: a root (service "edge", not a match) and 50 "db" spans that match, the newest spans of
     * all; QUIET: one "db" span, older; OLDEST: one "db" span, older still, in a block of its own.
     */
    private FsBlockStore write() throws Exception {
        List<SpanRecord> first = new ArrayList<>();
        first.add(span(BUSY, 1, 0, "edge", T0 + 100 * SECOND, 60 * SECOND));
        for (int i = 0; i < 50; i++) {
            first.add(span(BUSY, 100 + i, 1, "db", T0 + 110 * SECOND + i, 1000));
        }
        first.add(span(QUIET, 2, 7, "db", T0 + 50 * SECOND, 2 * SECOND));
        FsBlockStore store = new FsBlockStore(dir);
        try (BufferAllocator allocator = new RootAllocator()) {
            BlockWriter writer = new BlockWriter(store, allocator);
            writer.writeSpans(TenantId.DEFAULT, first);
            writer.writeSpans(TenantId.DEFAULT, List.of(span(OLDEST, 3, 0, "db", T0, SECOND)));
        }
        return store;
    }

    @Test
    void searchTraces_limitCountsTraces_evenWhenOneTraceHoldsManyMoreMatchesThanTheFirstAsk() throws Exception {
        try (QueryEngine engine = new QueryEngine(write(), HeadSource.EMPTY, 1 << 20, 1)) {
            // The first ask is 2 × 10 spans: all of them BUSY's; the engine must ask again to find QUIET.
            TraceSearchResult result = engine.searchTraces(TenantId.DEFAULT,
                    QueryParser.parse("{ resource.service.name = \"db\" }", Signal.SPANS), TimeRange.ALL, 2, Mechanisms.ALL);

            assertEquals(List.of(BUSY, QUIET), result.traces().stream().map(TraceSearchResult.Match::traceId).toList());
            TraceSearchResult.Match busy = result.traces().get(0);
            assertEquals(51, busy.spans().size(), "every span of the trace, its root too");
            assertEquals(50, busy.matched().size());
            assertEquals(List.of(KeyValue.of("service.name", "edge")), busy.root().resource().attributes());
            assertEquals(T0 + 100 * SECOND, busy.startUnixNano());
            assertEquals(60 * SECOND, busy.durationNano(), "the root's, not the matching spans'");
            assertEquals(1 + 2, result.plans().size(), "the search's plan, then one per trace");
            assertEquals(List.of(), result.problems());
        }
    }

    @Test
    void searchTraces_traceFields_judgedOnTheWholeTrace_askingAgainPastRejectedSpans() throws Exception {
        try (QueryEngine engine = new QueryEngine(write(), HeadSource.EMPTY, 1 << 20, 1)) {
            // The root "edge" matches no span condition: rootServiceName is the whole trace's.
            assertEquals(Map.of(BUSY, 50), found(engine, "{ rootServiceName = \"edge\" && resource.service.name = \"db\" }", 5));
            // QUIET has no root span: no root service, which no condition accepts, != included.
            assertEquals(Map.of(OLDEST, 1), found(engine, "{ trace:rootService != \"edge\" }", 5));
            // The newest candidates are BUSY's 51 spans, all rejected: the search must ask again.
            assertEquals(Map.of(OLDEST, 1), found(engine, "{ trace:rootService =~ \"d.\" }", 1));
            assertEquals(Map.of(OLDEST, 1), found(engine, "{ traceDuration < 2s }", 5));
            assertEquals(Map.of(QUIET, 1, OLDEST, 1), found(engine, "{ trace:duration <= 2s }", 5));
            assertEquals(Map.of(BUSY, 51), found(engine, "{ rootName = \"edge work\" && trace:duration >= 1m }", 5));
            assertEquals(Map.of(BUSY, 1, OLDEST, 1),
                    found(engine, "{ trace:duration > 1m || name = \"edge work\" || traceDuration = 1s }", 5));
        }
    }

    /**
     * On blocks whose traces cross blocks, with the whole-trace lookups running at once: the traces
     * whose newest matching span is newest, in that order, each with exactly its spans and its
     * matches, as a scan of every span in memory finds them; the search's plan, then each trace's.
     */
    @Test
    void searchTraces_lookingTracesUpAtOnce_answersAsAScanOfEverySpan() throws Exception {
        try (BufferAllocator allocator = new RootAllocator()) {
            FsBlockStore store = new FsBlockStore(dir);
            Corpus corpus = Corpus.write(store, allocator, TenantId.DEFAULT, 7, 6, 200);
            try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 4)) {
                for (String query : List.of("{ resource.service.name = \"cart\" }",
                        "{ span.http.response.status_code = 500 }", "{ name = \"op-3\" && span.cache.hit = true }")) {
                    Expr expr = QueryParser.parse(query, Signal.SPANS);
                    for (int limit : List.of(3, 25)) {
                        TraceSearchResult result = engine.searchTraces(TenantId.DEFAULT, expr, TimeRange.ALL, limit,
                                Mechanisms.ALL);
                        assertEquals(scanned(corpus.spans, expr, limit), described(result.traces()),
                                query + ", limit " + limit);
                        assertEquals(1 + result.traces().size(), result.plans().size(), query);
                    }
                }
            }
        }
    }

    /** Each trace a scan of {@code spans} finds for {@code expr}: its id, its spans' ids and its matches' ids, by start time. */
    private static List<String> scanned(List<SpanRecord> spans, Expr expr, int limit) {
        List<SpanRecord> newestFirst = new ArrayList<>(spans.stream()
                .filter(s -> Values.matches(expr, Values.of(s))).toList());
        newestFirst.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano).reversed());
        Set<Bytes> traces = new LinkedHashSet<>();
        newestFirst.forEach(s -> {
            if (traces.size() < limit) {
                traces.add(s.traceId());
            }
        });
        List<String> out = new ArrayList<>();
        for (Bytes id : traces) {
            List<SpanRecord> whole = new ArrayList<>(spans.stream().filter(s -> s.traceId().equals(id)).toList());
            whole.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano));
            out.add(described(id, whole, whole.stream().filter(s -> Values.matches(expr, Values.of(s))).toList()));
        }
        return out;
    }

    private static List<String> described(List<TraceSearchResult.Match> traces) {
        return traces.stream().map(m -> described(m.traceId(), m.spans(), m.matched())).toList();
    }

    private static String described(Bytes traceId, List<SpanRecord> spans, List<SpanRecord> matched) {
        return traceId.hex() + " spans " + spans.stream().map(s -> s.spanId().hex()).toList()
                + " matched " + matched.stream().map(s -> s.spanId().hex()).toList();
    }

    /** The traces a search answers, with how many spans of each matched. */
    private static Map<Bytes, Integer> found(QueryEngine engine, String query, int limit) throws Exception {
        Expr expr = QueryParser.parse(query, Signal.SPANS);
        Map<Bytes, Integer> found = new HashMap<>();
        for (TraceSearchResult.Match m : engine.searchTraces(TenantId.DEFAULT, expr, TimeRange.ALL, limit,
                Mechanisms.ALL).traces()) {
            found.put(m.traceId(), m.matched().size());
        }
        // The span search answers the same spans.
        assertEquals(found.values().stream().mapToInt(Integer::intValue).sum(),
                engine.searchSpans(TenantId.DEFAULT, expr, TimeRange.ALL, 1000, Mechanisms.NONE).records().size(), query);
        return found;
    }

    @Test
    void searchTraces_wholeTraceWhateverTheRange_matchesOnlyInRange() throws Exception {
        try (QueryEngine engine = new QueryEngine(write(), HeadSource.EMPTY, 1 << 20, 1)) {
            TimeRange lateOnly = new TimeRange(T0 + 110 * SECOND + 45, Long.MAX_VALUE);
            TraceSearchResult result = engine.searchTraces(TenantId.DEFAULT,
                    QueryParser.parse("{ }", Signal.SPANS), lateOnly, 5, Mechanisms.ALL);

            assertEquals(1, result.traces().size());
            TraceSearchResult.Match busy = result.traces().get(0);
            assertEquals(51, busy.spans().size());
            assertEquals(5, busy.matched().size(), "the spans from +45 ns to +49 ns");
            assertEquals(T0 + 100 * SECOND, busy.startUnixNano(), "the root lies before the range, and still counts");
        }
    }

    @Test
    void match_withoutARootSpan_hasNoRoot() throws Exception {
        try (QueryEngine engine = new QueryEngine(write(), HeadSource.EMPTY, 1 << 20, 1)) {
            TraceSearchResult result = engine.searchTraces(TenantId.DEFAULT,
                    QueryParser.parse("{ }", Signal.SPANS), new TimeRange(T0 + 49 * SECOND, T0 + 51 * SECOND), 5,
                    Mechanisms.ALL);

            assertEquals(List.of(QUIET), result.traces().stream().map(TraceSearchResult.Match::traceId).toList());
            assertNull(result.traces().get(0).root(), "QUIET's one span has a parent that never arrived");
            assertEquals(2_000L, result.traces().get(0).durationNano() / 1_000_000);
        }
    }

    @Test
    void searchTraces_limitBelowOne_isRefused() throws Exception {
        try (QueryEngine engine = new QueryEngine(write(), HeadSource.EMPTY, 1 << 20, 1)) {
            assertThrows(IllegalArgumentException.class, () -> engine.searchTraces(TenantId.DEFAULT,
                    QueryParser.parse("{ }", Signal.SPANS), TimeRange.ALL, 0, Mechanisms.ALL));
        }
    }

    /** A span; {@code parent} 0 makes it a root. */
    private static SpanRecord span(Bytes traceId, long id, long parent, String service, long start, long duration) {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", service)), 0, "");
        return SpanRecord.builder().resource(resource).scope(SCOPE).traceId(traceId).spanId(spanId(id))
                .parentSpanId(parent == 0 ? Bytes.EMPTY : spanId(parent)).flags(1).name(service + " work").kind(2)
                .startTimeUnixNano(start).endTimeUnixNano(start + duration).build();
    }

    private static Bytes spanId(long id) {
        return Bytes.fromHex(String.format("%016x", id));
    }
}
