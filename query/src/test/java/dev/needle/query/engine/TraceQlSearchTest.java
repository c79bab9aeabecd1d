package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.Spanset;
import dev.needle.query.traceql.TraceEvaluator;
import dev.needle.query.traceql.TraceQlParser;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link QueryEngine#searchTraces(TenantId, Query.Spans, TimeRange, int, Mechanisms)} with a time range: each
 * trace is judged whole, spans outside the range included, and answered when a span of its spansets starts in
 * the range; the candidates the sidecars and zone maps leave are exactly those a full scan finds.
 */
class TraceQlSearchTest {

    private static final long T0 = 1_764_446_100_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final TimeRange RANGE = new TimeRange(T0 + 10 * SECOND, T0 + 20 * SECOND);
    private static final int ERROR = 2;

    @TempDir
    Path dir;

    @Test
    void tracesStraddlingTheRange_areJudgedWhole_andAnsweredByAReturnedSpanInTheRange() throws Exception {
        Bytes before = trace(1);
        Bytes after = trace(2);
        Bytes both = trace(3);
        List<SpanRecord> spans = List.of(
                // An ancestor before the range, its error descendant in it: answered.
                span(before, 1, 0, "checkout", 5, 0), span(before, 2, 1, "cart", 12, ERROR),
                // The ancestor in the range, the error after it: not answered, whatever span the range holds.
                span(after, 1, 0, "checkout", 12, 0), span(after, 2, 1, "cart", 25, ERROR),
                // Errors in and after the range: answered with both, as Tempo shows a spanset whole.
                span(both, 1, 0, "checkout", 12, 0), span(both, 2, 1, "cart", 15, ERROR),
                span(both, 3, 2, "db", 30, ERROR));
        try (QueryEngine engine = new QueryEngine(write(spans), HeadSource.EMPTY, 1 << 20, 1)) {
            for (Mechanisms mechanisms : List.of(Mechanisms.ALL, Mechanisms.NONE)) {
                TraceQlResult r = engine.searchTraces(TenantId.DEFAULT,
                        spanQuery("{ resource.service.name = \"checkout\" } >> { status = error }"), RANGE, 20, mechanisms);

                assertEquals(List.of(both, before), r.traces().stream().map(m -> m.trace().traceId()).toList());
                TraceQlResult.Match b = r.traces().get(0);
                assertEquals(List.of(2, 3), b.spansets().get(0).spans().stream()
                        .map(m -> (int) m.span().spanId().unsafeArray()[7]).toList());
                assertEquals(List.of(2), b.trace().matched().stream().map(s -> (int) s.spanId().unsafeArray()[7]).toList(),
                        "the returned spans that start in the range");
                assertEquals(3, b.trace().spans().size(), "every span of the trace");
                assertEquals(T0 + 5 * SECOND, r.traces().get(1).trace().startUnixNano(), "the whole trace's start");
            }
        }
    }

    /** Random traces over three blocks by time, random structural queries and ranges: pruned and unpruned answer as a full scan does. */
    @Test
    void randomStructuralQueries_answerWhatAFullScanOfEveryTraceAnswers() throws Exception {
        Random random = new Random(20261203);
        List<SpanRecord> spans = new ArrayList<>();
        for (int t = 1; t <= 80; t++) {
            int n = 1 + random.nextInt(6);
            for (int i = 1; i <= n; i++) {
                spans.add(span(trace(t), i, i == 1 ? 0 : 1 + random.nextInt(i - 1), SERVICES[random.nextInt(SERVICES.length)],
                        random.nextInt(30), random.nextInt(3)));
            }
        }
        Map<Bytes, List<SpanRecord>> traces = spans.stream().collect(Collectors.groupingBy(SpanRecord::traceId,
                TreeMap::new, Collectors.toList()));
        int answered = 0;
        try (QueryEngine engine = new QueryEngine(write(spans), HeadSource.EMPTY, 1 << 20, 1)) {
            for (int round = 0; round < 60; round++) {
                String q = "{ " + condition(random) + " } " + OPS[random.nextInt(OPS.length)] + " { " + condition(random) + " }";
                long from = T0 + random.nextInt(30) * SECOND;
                TimeRange range = new TimeRange(from, from + random.nextInt(15) * SECOND);
                Query.Spans query = spanQuery(q);
                Set<Bytes> expected = new TreeSet<>();
                traces.forEach((id, trace) -> {
                    List<Spanset> sets = TraceEvaluator.evaluate(query.expr(), sorted(trace));
                    if (sets.stream().anyMatch(s -> s.spans().stream().anyMatch(m -> range.contains(m.span().startTimeUnixNano())))) {
                        expected.add(id);
                    }
                });
                answered += expected.size();
                for (Mechanisms mechanisms : List.of(Mechanisms.ALL, Mechanisms.NONE)) {
                    TraceQlResult r = engine.searchTraces(TenantId.DEFAULT, query, range, 1000, mechanisms);
                    assertEquals(expected, r.traces().stream().map(m -> m.trace().traceId())
                            .collect(Collectors.toCollection(TreeSet::new)), q + " in " + range + " with " + mechanisms);
                }
            }
        }
        assertTrue(answered > 100, "the queries answer traces: " + answered);
    }

    private static final String[] SERVICES = {"checkout", "cart", "db", "edge"};
    private static final String[] OPS = {">>", ">", "~", "&&", "<", "<<", "!>>", "&>", "||"};

    private static String condition(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> "resource.service.name = \"" + SERVICES[r.nextInt(SERVICES.length)] + "\"";
            case 1 -> "status = error";
            case 2 -> "resource.service.name = \"" + SERVICES[r.nextInt(SERVICES.length)] + "\" && status != error";
            default -> "name = \"op" + r.nextInt(3) + "\"";
        };
    }

    private static List<SpanRecord> sorted(List<SpanRecord> trace) {
        List<SpanRecord> out = new ArrayList<>(trace);
        out.sort((a, b) -> Long.compare(a.startTimeUnixNano(), b.startTimeUnixNano()));
        return out;
    }

    /** The spans in three blocks: those before the range's start, within it, after it, so that traces straddle blocks. */
    private FsBlockStore write(List<SpanRecord> spans) throws Exception {
        FsBlockStore store = new FsBlockStore(dir);
        try (BufferAllocator allocator = new RootAllocator()) {
            BlockWriter writer = new BlockWriter(store, allocator);
            Map<Integer, List<SpanRecord>> byPart = spans.stream().collect(Collectors.groupingBy(s ->
                    s.startTimeUnixNano() < RANGE.fromUnixNano() ? 0 : s.startTimeUnixNano() <= RANGE.toUnixNano() ? 1 : 2));
            for (List<SpanRecord> part : byPart.values()) {
                writer.writeSpans(TenantId.DEFAULT, part);
            }
        }
        return store;
    }

    private static Bytes trace(int n) {
        return Bytes.fromHex(String.format("%016x%016x", 0xabcL * n, n));
    }

    private static SpanRecord span(Bytes trace, int id, int parent, String service, int second, int status) {
        return SpanRecord.builder().traceId(trace).spanId(Bytes.fromHex(String.format("%016x", id)))
                .parentSpanId(parent == 0 ? Bytes.EMPTY : Bytes.fromHex(String.format("%016x", parent)))
                .resource(new Resource(List.of(KeyValue.of("service.name", service)), 0, ""))
                .name("op" + (id % 3)).startTimeUnixNano(T0 + second * SECOND)
                .endTimeUnixNano(T0 + second * SECOND + 1000).statusCode(status).build();
    }

    private static Query.Spans spanQuery(String q) throws QueryParseException {
        return (Query.Spans) TraceQlParser.parse(q);
    }
}
