package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.compact.Compactor;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.BlockWriter.Codec;
import dev.needle.blocks.write.BlockWriter.Options;
import dev.needle.query.ql.Expr;
import dev.needle.sidecar.BloomSidecar;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Trace-by-id lookups: every combination of mechanisms answers exactly what a plain scan finds. */
class TraceLookupTest {

    private static final TenantId TENANT = TenantId.of("team-a");

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private FsBlockStore store;
    private Corpus corpus;
    private QueryEngine engine;

    @BeforeEach
    void setUp() throws IOException {
        allocator = new RootAllocator();
        store = new FsBlockStore(dir);
        corpus = Corpus.write(store, allocator, TENANT, 11, 8, 300);
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
    }

    @AfterEach
    void tearDown() {
        engine.close();
        allocator.close();
    }

    /**
     * Every combination of the four pruning mechanisms, half of them with the index (those turning an
     * even number on, ALL among them), so that each pruning mechanism runs with and without it.
     */
    static List<Mechanisms> everyCombination() {
        List<Mechanisms> all = new ArrayList<>();
        for (int bits = 0; bits < 16; bits++) {
            all.add(new Mechanisms((bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0,
                    Integer.bitCount(bits) % 2 == 0));
        }
        return all;
    }

    @Test
    void trace_everyMechanismCombination_equalsPlainScan() throws IOException {
        Corpus.writeIndex(store, TENANT);
        SplittableRandom random = new SplittableRandom(5);
        List<Bytes> probes = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            probes.add(corpus.traceIds.get(random.nextInt(corpus.traceIds.size())));
            probes.add(corpus.absentTraceId());
        }
        for (Bytes id : probes) {
            TimeRange range = random.nextBoolean() ? TimeRange.ALL
                    : new TimeRange(Corpus.T0 + random.nextLong(4 * Corpus.BLOCK_NANOS),
                            Corpus.T0 + 4 * Corpus.BLOCK_NANOS + random.nextLong(6 * Corpus.BLOCK_NANOS));
            List<SpanRecord> expectedSpans = corpus.spans.stream()
                    .filter(s -> s.traceId().equals(id) && range.contains(s.startTimeUnixNano()))
                    .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
            List<LogRecord> expectedLogs = corpus.logs.stream()
                    .filter(r -> r.traceId().equals(id) && range.contains(r.eventTimeUnixNano()))
                    .sorted(Comparator.comparingLong(LogRecord::eventTimeUnixNano)).toList();
            for (Mechanisms m : everyCombination()) {
                TraceResult result = engine.trace(TENANT, id, range, m, true);
                assertEquals(expectedSpans, result.spans(), id + " " + m);
                assertEquals(expectedLogs, result.logs(), id + " " + m);
                assertFalse(result.partial());
                assertEquals(m.index(), result.spanPlan().source().startsWith("the index"), result.spanPlan().source());
            }
        }
    }

    @Test
    void trace_zstdBlock_findsEverySpanOfTheTrace() throws IOException {
        FsBlockStore zstd = new FsBlockStore(dir.resolve("zstd"));
        new BlockWriter(zstd, allocator, new Options(500, Codec.ZSTD)).writeSpans(TENANT, corpus.spans);
        try (QueryEngine zstdEngine = new QueryEngine(zstd, HeadSource.EMPTY, 1 << 20, 2)) {
            SplittableRandom random = new SplittableRandom(6);
            for (int i = 0; i < 12; i++) {
                Bytes id = corpus.traceIds.get(random.nextInt(corpus.traceIds.size()));
                List<SpanRecord> expected = corpus.spans.stream().filter(s -> s.traceId().equals(id))
                        .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
                TraceResult result = zstdEngine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
                assertFalse(result.partial(), result.problems().toString());
                assertEquals(expected, result.spans(), id.toString());
            }
        }
    }

    @Test
    void trace_absentId_opensOnlyFalsePositives() throws IOException {
        int opened = 0;
        int listed = 0;
        for (int i = 0; i < 50; i++) {
            Explain.Totals t = engine.trace(TENANT, corpus.absentTraceId(), TimeRange.ALL, Mechanisms.ALL, false)
                    .spanPlan().totals();
            listed += t.listed();
            opened += t.opened();
            assertEquals(t.opened(), t.openedForNothing());
            assertEquals(t.listed(), t.prunedByTraceIdx() + t.opened());
            assertEquals(0, t.matched());
        }
        assertTrue(opened * 20 < listed, "absent ids opened " + opened + " of " + listed + " blocks");
    }

    @Test
    void trace_presentId_readsOneBatchPerBlockHoldingIt() throws IOException {
        Bytes id = corpus.traceIds.get(3);
        TraceResult result = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
        for (BlockDecision d : result.spanPlan().blocks()) {
            if (d.matched() > 0) {
                assertTrue(d.batchesRead() <= 2, d.toString());
                assertTrue(d.batchesSkipped() > 0, d.toString());
            }
        }
    }

    @Test
    void trace_damagedSidecars_failOpenWithReasonAndSameAnswer() throws IOException {
        List<BlockRef> blocks = corpus.spanBlocks;
        Path[] files = new Path[4];
        for (int i = 0; i < 4; i++) {
            files[i] = store.blockDir(blocks.get(i)).resolve(BloomSidecar.TRACE_IDX);
        }
        Files.delete(files[0]);
        byte[] bytes = Files.readAllBytes(files[1]);
        Files.write(files[1], Arrays.copyOf(bytes, bytes.length / 2));
        bytes = Files.readAllBytes(files[2]);
        bytes[40] ^= 0x10;
        Files.write(files[2], bytes);
        bytes = Files.readAllBytes(files[3]);
        bytes[8] = (byte) 0xFF;
        bytes[9] = (byte) 0xFF;
        bytes[10] = (byte) 0xFF;
        Files.write(files[3], bytes);

        QueryEngine fresh = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
        try {
            Bytes absent = corpus.absentTraceId();
            TraceResult result = fresh.trace(TENANT, absent, TimeRange.ALL, Mechanisms.ALL, false);
            assertTrue(result.spans().isEmpty());
            Explain.Totals t = result.spanPlan().totals();
            assertEquals(1, t.failedOpen().get("missing"));
            assertEquals(1, t.failedOpen().get("length"));
            assertEquals(1, t.failedOpen().get("crc"));
            assertEquals(1, t.failedOpen().get("words"));
            Bytes present = corpus.traceIds.get(0);
            assertEquals(engine.trace(TENANT, present, TimeRange.ALL, Mechanisms.NONE, false).spans(),
                    fresh.trace(TENANT, present, TimeRange.ALL, Mechanisms.ALL, false).spans());
        } finally {
            fresh.close();
        }
    }

    @Test
    void trace_corruptDataFile_partialNamingTheBlockOthersAnswered() throws IOException {
        Bytes id = corpus.traceIds.get(0);
        BlockRef broken = corpus.spanBlocks.get(0);
        Path data = store.blockDir(broken).resolve("data.arrow");
        byte[] bytes = Files.readAllBytes(data);
        Files.write(data, Arrays.copyOf(bytes, bytes.length - 100));
        TraceResult result = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.NONE, false);
        assertTrue(result.partial());
        assertTrue(result.problems().get(0).contains(broken.name().toString()), result.problems().toString());
        List<SpanRecord> elsewhere = corpus.spans.stream()
                .filter(s -> s.traceId().equals(id) && !broken.name().mayOverlap(s.startTimeUnixNano(), s.startTimeUnixNano()))
                .toList();
        assertTrue(result.spans().containsAll(elsewhere));
    }

    @Test
    void trace_oneBitFlippedInsideABatch_partialNamingTheBlockOthersAnswered() throws IOException {
        // Trace 0 has spans in the first block and one late span in the last.
        Bytes id = corpus.traceIds.get(0);
        BlockRef broken = corpus.spanBlocks.get(0);
        // The first copy of the id in data.arrow is a value of the trace-id column: it still decodes, as another id.
        Corpus.flipOneBit(store.blockDir(broken).resolve("data.arrow"), id.unsafeArray());
        TraceResult result = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
        assertTrue(result.partial(), "answered from a batch with a flipped bit: " + result.spans().size() + " spans");
        assertEquals(1, result.problems().size(), result.problems().toString());
        String problem = result.problems().get(0);
        assertTrue(problem.contains(broken.name().toString()) && problem.contains("checksum"), problem);
        List<SpanRecord> elsewhere = corpus.spans.stream()
                .filter(s -> s.traceId().equals(id) && s.startTimeUnixNano() >= Corpus.T0 + Corpus.BLOCK_NANOS)
                .toList();
        assertFalse(elsewhere.isEmpty(), "the trace must have spans in another block");
        assertEquals(elsewhere, result.spans());
    }

    /** A head of the given parts for {@link #TENANT}, nothing for anyone else. */
    private static HeadSource head(List<HeadSource.Part<SpanRecord>> parts) {
        return new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                return tenant.equals(TENANT) ? parts : List.of();
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of();
            }
        };
    }

    @Test
    void trace_aSpanSentAgainAfterItWasPublished_returnsItOnce() throws IOException {
        Bytes id = corpus.traceIds.get(7);
        List<SpanRecord> inBlocks = corpus.spans.stream().filter(s -> s.traceId().equals(id)).toList();
        SpanRecord unpublished = SpanRecord.builder().resource(inBlocks.get(0).resource())
                .scope(inBlocks.get(0).scope()).traceId(id).spanId(Bytes.fromHex("0102030405060708")).name("late")
                .kind(1).startTimeUnixNano(Corpus.T0).endTimeUnixNano(Corpus.T0 + 5).build();
        // A client's retry: the same trace and span id again, in the active head.
        HeadSource head = head(List.of(new HeadSource.Part<>(null, List.of(unpublished, inBlocks.get(0)))));
        try (QueryEngine withHead = new QueryEngine(store, head, 1 << 20, 2)) {
            TraceResult result = withHead.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
            assertEquals(inBlocks.size() + 1, result.spans().size());
            assertTrue(result.spans().contains(unpublished));
            assertEquals(2, result.spanPlan().headMatched());
            assertTrue(withHead.trace(TenantId.of("other"), id, TimeRange.ALL, Mechanisms.ALL, false).spans().isEmpty());
        }
    }

    @Test
    void trace_aHeadPartWhoseBlockIsListed_isReadFromTheBlockOnly() throws IOException {
        Bytes id = corpus.traceIds.get(3);
        List<SpanRecord> inBlocks = corpus.spans.stream().filter(s -> s.traceId().equals(id)).toList();
        SpanRecord published = withSpanId(inBlocks.get(0), "0a0b0c0d0e0f0001");
        SpanRecord publishing = withSpanId(inBlocks.get(0), "0a0b0c0d0e0f0002");
        // The head says the first part is the listed block (so the engine reads it there, not here),
        // the second a block not listed yet (so it is read here).
        HeadSource head = head(List.of(new HeadSource.Part<>(corpus.spanBlocks.get(0).name().id(), List.of(published)),
                new HeadSource.Part<>("not-listed-yet", List.of(publishing))));
        try (QueryEngine withHead = new QueryEngine(store, head, 1 << 20, 2)) {
            TraceResult result = withHead.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
            assertEquals(inBlocks.size() + 1, result.spans().size());
            assertTrue(result.spans().contains(publishing));
            assertFalse(result.spans().contains(published), "a listed block's part is never scanned in the head");
            assertEquals(1, result.spanPlan().headMatched());
        }
    }

    @Test
    void search_aHeadPartWhoseBlockACompactionReplaced_isReadFromTheNewBlockOnly() throws IOException {
        // Log records have no id to tell a second copy by: every copy read would count.
        BlockRef first = corpus.logBlocks.get(0);
        List<LogRecord> inFirst = corpus.logs.stream().filter(r -> r.eventTimeUnixNano() < Corpus.T0 + Corpus.BLOCK_NANOS)
                .toList();
        assertFalse(inFirst.isEmpty(), "the first log block holds records");
        // The first log block is merged into a new one, which replaces it; the old one is still there.
        try (Compactor compactor = new Compactor(store, new Compactor.Options(1_000_000, BlockWriter.Options.DEFAULT,
                Duration.ofHours(1), "", b -> b.signal() == Signal.LOGS))) {
            assertEquals(1, compactor.run(false).merges().size());
        }
        // A head that has not yet let go of the first block's records, and names it just published.
        HeadSource head = new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                return List.of();
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of(new Part<>(first.name().id(), inFirst), Part.published(first.name().id(), first.name().toString()));
            }
        };
        try (QueryEngine withHead = new QueryEngine(store, head, 1 << 20, 2)) {
            for (Mechanisms m : List.of(Mechanisms.ALL, Mechanisms.NONE)) {
                SearchResult<LogRecord> result = withHead.searchLogs(TENANT, new Expr.MatchAll(), TimeRange.ALL, 100_000, m);
                assertEquals(corpus.logs.size(), result.records().size(), "each record once, " + m);
            }
        }
    }

    @Test
    void trace_aHeadPartNamingAProblem_makesTheAnswerPartial_andTheRestIsAnswered() throws IOException {
        Bytes id = corpus.traceIds.get(5);
        List<SpanRecord> inBlocks = corpus.spans.stream().filter(s -> s.traceId().equals(id)).toList();
        HeadSource head = head(List.of(HeadSource.Part.unreadable("ingest node http://10.0.0.9:3200 did not answer")));
        try (QueryEngine withHead = new QueryEngine(store, head, 1 << 20, 2)) {
            TraceResult result = withHead.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
            assertEquals(inBlocks.size(), result.spans().size());
            assertEquals(List.of("ingest node http://10.0.0.9:3200 did not answer"), result.problems());
            assertTrue(result.partial());
            assertEquals(List.of("ingest node http://10.0.0.9:3200 did not answer"),
                    withHead.searchSpans(TENANT, new Expr.MatchAll(), TimeRange.ALL, 5, Mechanisms.ALL)
                            .problems());
        }
    }

    private static SpanRecord withSpanId(SpanRecord s, String spanId) {
        return s.toBuilder().spanId(Bytes.fromHex(spanId)).droppedAttributesCount(0).droppedEventsCount(0)
                .droppedLinksCount(0).build();
    }
}
