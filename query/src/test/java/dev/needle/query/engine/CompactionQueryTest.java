package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.TwoStores;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.QueryParser;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Compaction is invisible to answers: random trace lookups (present and absent ids), attribute
 * searches of spans and logs and time ranges answer the same, record for record, before a compaction,
 * while its new blocks and the blocks they replace are both there, and after those are deleted; from
 * the index and from a listing, on a local directory and on a bucket (S3Proxy).
 */
class CompactionQueryTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    /** Everything, and everything but the index: the blocks then come from a listing. */
    private static final List<Mechanisms> MECHANISMS = List.of(Mechanisms.ALL,
            new Mechanisms(true, true, true, true, false));

    private static final int QUERIES = 8;

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();

    @TempDir
    Path dir;

    /** One query and its answer, its records as text in the order the engine gave them. */
    private record Answer(String query, List<String> records) {
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void queries_beforeDuringAndAfterCompaction_sameAnswers(String kind) throws Exception {
        try (TwoStores stores = TwoStores.open(kind, dir, server); RootAllocator allocator = new RootAllocator()) {
            BlockStore store = stores.get(0);
            Corpus corpus = Corpus.write(store, allocator, TENANT, 41, 6, 100);
            Corpus.writeIndex(store, TENANT);
            int blocksBefore = store.list(TENANT, Signal.SPANS).size();
            List<Bytes> ids = new ArrayList<>();
            SplittableRandom random = new SplittableRandom(5);
            for (int i = 0; i < QUERIES; i++) {
                ids.add(i % 4 == 0 ? corpus.absentTraceId() : corpus.traceIds.get(random.nextInt(corpus.traceIds.size())));
            }
            List<Answer> before;
            // Reads the index at every query: the grace that covers a slower poll is not under test here.
            try (QueryEngine engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2, QueryLimits.DEFAULTS, Duration.ZERO, Duration.ZERO);
                 Compactor compactor = new Compactor(stores.get(1), new Compactor.Options(400,
                         BlockWriter.Options.DEFAULT.withBatchRows(64), Duration.ZERO, "", b -> true))) {
                before = answers(engine, ids);

                Compactor.Pass merged = compactor.run(false);
                assertTrue(merged.merges().size() >= 3, "spans and logs merged: " + merged.merges());
                assertSame(before, answers(engine, ids), "new blocks published, the old ones still there");

                Compactor.Pass deleted = compactor.run(false);
                assertTrue(store.list(TENANT, Signal.SPANS).size() < blocksBefore, "fewer blocks");
                assertTrue(!deleted.deleted().isEmpty());
                assertSame(before, answers(engine, ids), "the old blocks deleted");
            }
            try (QueryEngine fresh = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2)) {
                assertSame(before, answers(fresh, ids), "a fresh engine");
            }
        }
    }

    /** Each answer equal to the one before, the first that is not named with the records it gained and lost. */
    private static void assertSame(List<Answer> expected, List<Answer> actual, String when) {
        assertEquals(expected.size(), actual.size());
        for (int i = 0; i < expected.size(); i++) {
            List<String> lost = new ArrayList<>(expected.get(i).records());
            lost.removeAll(actual.get(i).records());
            List<String> gained = new ArrayList<>(actual.get(i).records());
            gained.removeAll(expected.get(i).records());
            assertEquals(expected.get(i), actual.get(i), when + ": " + expected.get(i).query() + " had "
                    + expected.get(i).records().size() + " records, now " + actual.get(i).records().size()
                    + "; lost " + lost + "; gained " + gained);
        }
    }

    /** Trace lookups of {@code ids}, each with a random search of spans and one of logs, in random time ranges. */
    private static List<Answer> answers(QueryEngine engine, List<Bytes> ids) throws Exception {
        List<Answer> answers = new ArrayList<>();
        SplittableRandom random = new SplittableRandom(7);
        for (Bytes id : ids) {
            TimeRange range = SearchLookupTest.randomRange(random);
            Expr spans = QueryParser.parse(SearchLookupTest.randomQuery(random, SearchLookupTest.SPAN_CONDITIONS), Signal.SPANS);
            Expr logs = QueryParser.parse(SearchLookupTest.randomQuery(random, SearchLookupTest.LOG_CONDITIONS), Signal.LOGS);
            for (Mechanisms m : MECHANISMS) {
                TraceResult trace = engine.trace(TENANT, id, range, m, true);
                answers.add(new Answer("trace " + id.hex() + " " + range + " " + m,
                        text(trace.spans(), trace.logs())));
                answers.add(new Answer(spans + " " + range + " " + m,
                        text(engine.searchSpans(TENANT, spans, range, 100_000, m).records(), List.of())));
                answers.add(new Answer(logs + " " + range + " " + m,
                        text(List.of(), engine.searchLogs(TENANT, logs, range, 100_000, m).records())));
            }
        }
        return answers;
    }

    /** Every record's text, sorted: two answers are the same records exactly when these are equal. */
    static List<String> text(List<SpanRecord> spans, List<LogRecord> logs) {
        List<String> text = new ArrayList<>();
        spans.forEach(s -> text.add(s.toString()));
        logs.forEach(l -> text.add(l.toString()));
        text.sort(null);
        return text;
    }
}
