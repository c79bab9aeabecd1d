package dev.needle.bench.peer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.engine.TimeRange;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DuckDbPeerTest {

    static final FlattenedAttribute ROUTE = PeerCorpus.SPAN_COLUMNS.get(2);
    static final FlattenedAttribute STATUS = PeerCorpus.SPAN_COLUMNS.get(3);
    static final FlattenedAttribute RATIO = PeerCorpus.SPAN_COLUMNS.get(4);
    static final FlattenedAttribute ERROR = PeerCorpus.SPAN_COLUMNS.get(5);
    static final FlattenedAttribute USER = PeerCorpus.SPAN_COLUMNS.get(6);
    static final FlattenedAttribute SERVICE = PeerCorpus.SPAN_COLUMNS.get(0);

    @TempDir
    static Path tmp;
    static List<SpanRecord> spans;
    static List<LogRecord> logs;
    static DuckDbPeer peer;
    static DuckDbPeer logPeer;

    @BeforeAll
    static void export() throws Exception {
        ParquetExport.Options options = ParquetExport.Options.defaults().withRowsPerFile(2500).withRowGroupSize(2048);
        spans = PeerCorpus.spans(6000, 7);
        new ParquetExport(PeerCorpus.SPAN_COLUMNS, options)
                .exportSpans(PeerCorpus.chunks(spans, 1000).iterator(), tmp.resolve("spans"));
        logs = PeerCorpus.logs(3000, 11);
        new ParquetExport(PeerCorpus.LOG_COLUMNS, options)
                .exportLogs(PeerCorpus.chunks(logs, 1000).iterator(), tmp.resolve("logs"));
        peer = DuckDbPeer.open(tmp.resolve("spans"), Signal.SPANS);
        logPeer = DuckDbPeer.open(tmp.resolve("logs"), Signal.LOGS);
    }

    @AfterAll
    static void close() throws Exception {
        peer.close();
        logPeer.close();
    }

    @Test
    void traceById_onABlobColumnWithBloomFilters_returnsExactlyTheTracesSpans() throws Exception {
        // DuckDB 1.5.0-1.5.6 returned no rows here: BLOB equality against a file with Bloom filters.
        assertTrue(peer.columnChunks().stream().filter(c -> c.column().equals("trace_id"))
                .allMatch(c -> c.bloomFilterLength() > 0));
        // The first trace, one in the middle, one cut across the first two files, and the last.
        for (int i : new int[] {0, 3000, 2499, spans.size() - 1}) {
            Bytes traceId = spans.get(i).traceId();
            DuckDbPeer.PeerAnswer answer = peer.run(Lookup.trace(traceId));
            assertEquals(expected(s -> s.traceId().equals(traceId)), keys(answer), "trace of span " + i);
        }
    }

    @Test
    void traceById_presentId_readsFewerRowGroupsAndRowsThanTheFilesHold() throws Exception {
        Lookup lookup = Lookup.trace(spans.get(3000).traceId());
        DuckDbPeer.PeerAnswer answer = peer.run(lookup);
        DuckDbPeer.Plan plan = peer.plan(lookup);
        assertEquals(answer.rows().size(), answer.stats().rowsEmitted());
        assertEquals(plan.scanned(), answer.stats().rowGroupsScanned(), plan + " vs " + answer.stats());
        assertTrue(plan.scanned() >= 1 && plan.scanned() < plan.rowGroups(), plan.toString());
        assertTrue(plan.rowsInScanned() < plan.rows(), plan.toString());
        assertEquals(spans.size(), plan.rows());
    }

    @Test
    void traceById_absentIdInsideRowGroupsMinMax_returnsNothingAndTheBloomFiltersRuleItOut() throws Exception {
        Lookup lookup = Lookup.trace(absentTraceId());
        DuckDbPeer.PeerAnswer answer = peer.run(lookup);
        DuckDbPeer.Plan plan = peer.plan(lookup);
        assertEquals(List.of(), answer.rows());
        // Each file's row groups split the id space between them, so statistics keep about one per file.
        assertTrue(plan.prunedByBloom() >= 1, "statistics cannot rule out the row groups whose range holds it: " + plan);
        assertEquals(plan.rowGroups() - plan.prunedByStatistics(), plan.prunedByBloom(), plan.toString());
        assertEquals(0, answer.stats().rowGroupsScanned(), answer.stats().toString());
    }

    @Test
    void traceById_withATimeRange_keepsOnlyTheSpansThatStartInIt() throws Exception {
        Bytes traceId = spans.get(3000).traceId();
        List<SpanRecord> trace = spans.stream().filter(s -> s.traceId().equals(traceId)).toList();
        TimeRange range = new TimeRange(trace.get(1).startTimeUnixNano(), trace.get(3).startTimeUnixNano());
        DuckDbPeer.PeerAnswer answer = peer.run(new Lookup.TraceById(traceId, range));
        assertEquals(expected(s -> s.traceId().equals(traceId) && range.contains(s.startTimeUnixNano())), keys(answer));
        assertEquals(3, answer.rows().size());
    }

    @Test
    void attributeEquals_returnsExactlyTheRowsWithThatValue_forEveryColumnType() throws Exception {
        String user = attribute(spans.get(1234), "user.id");
        check(Lookup.attribute(ROUTE, AnyValue.of("/health")), s -> "/health".equals(attribute(s, "http.route")));
        check(Lookup.attribute(USER, AnyValue.of(user)), s -> user.equals(attribute(s, "user.id")));
        check(Lookup.attribute(STATUS, AnyValue.of(500)), s -> s.statusCode() == 2);
        check(Lookup.attribute(STATUS, AnyValue.of(500.0)), s -> s.statusCode() == 2);
        check(Lookup.attribute(RATIO, AnyValue.of(0.25)), s -> s.attributes().contains(new KeyValue("sampling.ratio", AnyValue.of(0.25))));
        check(Lookup.attribute(RATIO, AnyValue.of(1)), s -> s.attributes().contains(new KeyValue("sampling.ratio", AnyValue.of(1.0))));
        check(Lookup.attribute(ERROR, AnyValue.of(true)), s -> s.statusCode() == 2);
        check(Lookup.attribute(SERVICE, AnyValue.of("payment")),
                s -> s.resource().attributes().contains(KeyValue.of("service.name", "payment")));
    }

    @Test
    void attributeEquals_absentValueInsideTheColumnsMinMax_readsNoRowGroup() throws Exception {
        // Users are drawn from even numbers: an odd one lies between present values in every row group.
        Lookup lookup = Lookup.attribute(USER, AnyValue.of(PeerCorpus.user(50_001)));
        DuckDbPeer.PeerAnswer answer = peer.run(lookup);
        DuckDbPeer.Plan plan = peer.plan(lookup);
        assertEquals(List.of(), answer.rows());
        assertEquals(0, plan.prunedByStatistics(), plan.toString());
        assertEquals(plan.rowGroups(), plan.prunedByBloom(), plan.toString());
        assertEquals(0, answer.stats().rowGroupsScanned(), answer.stats().toString());
        assertTrue(plan.bloomBytes() > 0, plan.toString());
    }

    @Test
    void attributeEquals_withALimit_returnsTheNewestMatches() throws Exception {
        DuckDbPeer.PeerAnswer answer = peer.run(new Lookup.AttributeEquals(ROUTE, AnyValue.of("/health"), TimeRange.ALL, 5));
        List<DuckDbPeer.RowKey> newest = spans.stream().filter(s -> "/health".equals(attribute(s, "http.route")))
                .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano).reversed()).limit(5).map(DuckDbPeerTest::key)
                .toList();
        assertEquals(newest, answer.rows());
    }

    @Test
    void plan_agreesWithWhatDuckDbSaysItScanned() throws Exception {
        List<Lookup> lookups = List.of(Lookup.trace(spans.get(10).traceId()), Lookup.trace(absentTraceId()),
                Lookup.attribute(USER, AnyValue.of(attribute(spans.get(99), "user.id"))),
                Lookup.attribute(STATUS, AnyValue.of(404)), Lookup.attribute(ROUTE, AnyValue.of("/api/cart")));
        for (Lookup lookup : lookups) {
            DuckDbPeer.Plan plan = peer.plan(lookup);
            DuckDbPeer.ScanStats stats = peer.run(lookup).stats();
            assertEquals(plan.scanned(), stats.rowGroupsScanned(), lookup + ": " + plan + " vs " + stats);
            assertEquals(plan.rowGroups(), plan.prunedByTime() + plan.prunedByStatistics() + plan.prunedByBloom()
                    + plan.scanned());
        }
    }

    @Test
    void logs_traceAndAttributeLookups_returnExactlyTheMatchingRecords() throws Exception {
        LogRecord correlated = logs.stream().filter(l -> !l.traceId().isEmpty()).skip(100).findFirst().orElseThrow();
        DuckDbPeer.PeerAnswer trace = logPeer.run(Lookup.trace(correlated.traceId()));
        assertEquals(Set.of(new DuckDbPeer.RowKey(correlated.traceId(), correlated.spanId(), correlated.eventTimeUnixNano())),
                new HashSet<>(trace.rows()));
        FlattenedAttribute user = PeerCorpus.LOG_COLUMNS.get(1);
        KeyValue kv = logs.get(2000).attributes().get(0);
        DuckDbPeer.PeerAnswer answer = logPeer.run(Lookup.attribute(user, kv.value()));
        Set<DuckDbPeer.RowKey> expected = new HashSet<>();
        logs.stream().filter(l -> l.attributes().contains(kv))
                .forEach(l -> expected.add(new DuckDbPeer.RowKey(l.traceId(), l.spanId(), l.eventTimeUnixNano())));
        assertEquals(expected, new HashSet<>(answer.rows()));
        assertEquals(expected.size(), answer.rows().size());
    }

    @Test
    void warmAndCold_runAsManyTimesAsAsked() throws Exception {
        Lookup lookup = Lookup.trace(spans.get(42).traceId());
        assertEquals(3, peer.warm(lookup, 1, 3).count());
        DuckDbPeer.Cold cold = DuckDbPeer.cold(tmp.resolve("spans"), Signal.SPANS, DuckDbPeer.Settings.defaults(), lookup, 2);
        assertEquals(2, cold.open().count());
        assertEquals(2, cold.firstQuery().count());
    }

    @Test
    void warm_withASpentBudget_stopsAfterThreeRuns() throws Exception {
        Lookup lookup = Lookup.trace(spans.get(42).traceId());
        assertEquals(3, peer.warm(lookup, 1, 50, 0).count());
        assertEquals(2, peer.warm(lookup, 0, 2, 0).count(), "fewer than three only when fewer are asked for");
    }

    @Test
    void lookup_refusesALiteralThatCanNeverEqualTheColumnsType() {
        assertThrows(IllegalArgumentException.class, () -> Lookup.attribute(ROUTE, AnyValue.of(5)));
        assertThrows(IllegalArgumentException.class, () -> Lookup.attribute(STATUS, AnyValue.of(2.5)));
        assertThrows(IllegalArgumentException.class, () -> Lookup.trace(Bytes.fromHex("0102")));
    }

    /** A trace id absent from the corpus that sorts between two present ids of the first row group. */
    static Bytes absentTraceId() {
        List<Bytes> ids = spans.subList(0, 2500).stream().map(SpanRecord::traceId).distinct().sorted().toList();
        Set<Bytes> present = new HashSet<>(spans.stream().map(SpanRecord::traceId).toList());
        byte[] id = ids.get(ids.size() / 4).toByteArray();
        id[15] ^= 1;
        Bytes absent = Bytes.wrap(id);
        assertFalse(present.contains(absent));
        return absent;
    }

    private static void check(Lookup lookup, Predicate<SpanRecord> matches) throws Exception {
        DuckDbPeer.PeerAnswer answer = peer.run(lookup);
        Set<DuckDbPeer.RowKey> expected = expected(matches);
        assertFalse(expected.isEmpty(), lookup.toString());
        assertEquals(expected, keys(answer), lookup.toString());
    }

    private static Set<DuckDbPeer.RowKey> expected(Predicate<SpanRecord> matches) {
        Set<DuckDbPeer.RowKey> keys = new HashSet<>();
        spans.stream().filter(matches).forEach(s -> keys.add(key(s)));
        return keys;
    }

    /** The answer's rows as a set, after checking none came twice. */
    private static Set<DuckDbPeer.RowKey> keys(DuckDbPeer.PeerAnswer answer) {
        Set<DuckDbPeer.RowKey> keys = new HashSet<>(answer.rows());
        assertEquals(answer.rows().size(), keys.size(), "a row returned twice");
        return keys;
    }

    private static DuckDbPeer.RowKey key(SpanRecord s) {
        return new DuckDbPeer.RowKey(s.traceId(), s.spanId(), s.startTimeUnixNano());
    }

    private static String attribute(SpanRecord s, String key) {
        return s.attributes().stream().filter(kv -> kv.key().equals(key))
                .map(kv -> ((AnyValue.Str) kv.value()).value()).findFirst().orElse(null);
    }
}
