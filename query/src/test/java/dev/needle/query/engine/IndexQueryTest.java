package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.ForwardingBlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.Retention;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.query.ql.QueryParser;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Queries with the store's index, on the local store and in S3Proxy: the index decides without
 * reading sidecars; a damaged index answers as no index; a block published after the index was
 * read is found through the head that names it, or through a listing; retention never makes an
 * answer partial; the index is read at most once per poll interval.
 */
class IndexQueryTest {

    private static final TenantId TENANT = TenantId.of("acme");
    /** Longer than any test: the engine keeps the index it read first, as it would within one poll. */
    private static final Duration NEVER = Duration.ofHours(1);
    private static final String SEARCH = "{ resource.service.name = \"payment\" }";

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private static int buckets;

    @TempDir
    Path dir;
    private RootAllocator allocator;
    private final List<AutoCloseable> closing = new ArrayList<>();

    @BeforeEach
    void setUp() {
        allocator = new RootAllocator();
    }

    @AfterEach
    void tearDown() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        allocator.close();
    }

    private BlockStore store(String kind) throws Exception {
        if (kind.equals("fs")) {
            return new FsBlockStore(dir.resolve("data"));
        }
        S3BlockStore s3 = new S3BlockStore(server.client(), server.createBucket("query-index-" + ++buckets), "p",
                dir.resolve("staging"), Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE);
        closing.add(s3);
        return s3;
    }

    private QueryEngine engine(BlockStore store, HeadSource head, Duration poll) {
        QueryEngine engine = new QueryEngine(store, head, 1 << 20, 2, QueryLimits.DEFAULTS, poll, NEVER);
        closing.add(0, engine);
        return engine;
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void absentTrace_theIndexDecidesWithoutReadingASidecar(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus corpus = Corpus.write(store, allocator, TENANT, 3, 4, 150);
        Corpus.writeIndex(store, TENANT);
        QueryEngine engine = engine(store, HeadSource.EMPTY, NEVER);
        Bytes absent = corpus.absentTraceId();

        Explain withIndex = engine.trace(TENANT, absent, TimeRange.ALL, Mechanisms.ALL, false).spanPlan();
        Explain without = engine.trace(TENANT, absent, TimeRange.ALL, Mechanisms.ALL.withIndex(false), false).spanPlan();

        assertTrue(withIndex.source().startsWith("the index (" + corpus.spanBlocks.size() + " blocks; read now, "),
                withIndex.source());
        assertEquals("the index (" + corpus.spanBlocks.size() + " blocks; held in memory)", engine.trace(TENANT, absent,
                TimeRange.ALL, Mechanisms.ALL, false).spanPlan().source());
        assertEquals("a listing: the index is turned off", without.source());
        assertEquals(0, withIndex.totals().bytesToDecide(), "the filters were in memory");
        assertTrue(without.totals().bytesToDecide() > 0);
        assertEquals(without.totals().prunedByTraceIdx(), withIndex.totals().prunedByTraceIdx());
        assertTrue(withIndex.blocks().stream().filter(BlockDecision::pruned)
                .allMatch(d -> d.reason().endsWith("(its filter in the index)")), withIndex.blocks().toString());
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void damagedIndex_answersAsNoIndex_andSaysWhy(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus corpus = Corpus.write(store, allocator, TENANT, 5, 3, 120);
        Corpus.writeIndex(store, TENANT);
        List<UnaryOperator<byte[]>> damages = List.of(
                b -> flip(b, b.length / 2), b -> Arrays.copyOf(b, b.length - 7), b -> version(b, BlockIndex.VERSION_CURRENT + 1), b -> new byte[0]);
        for (UnaryOperator<byte[]> damage : damages) {
            for (Signal signal : Signal.values()) {
                IndexObject index = store.readIndex(TENANT, signal, null).orElseThrow();
                store.writeIndex(TENANT, signal, damage.apply(index.bytes()), index.token());
            }
            QueryEngine engine = engine(store, HeadSource.EMPTY, NEVER);
            for (Bytes id : List.of(corpus.traceIds.get(7), corpus.traceIds.get(60), corpus.absentTraceId())) {
                TraceResult damaged = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
                TraceResult listed = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL.withIndex(false), true);
                assertEquals(listed.spans(), damaged.spans());
                assertEquals(listed.logs(), damaged.logs());
                assertFalse(damaged.partial());
                assertTrue(damaged.spanPlan().source().startsWith("a listing: the index is damaged"),
                        damaged.spanPlan().source());
            }
            SearchResult<SpanRecord> found = engine.searchSpans(TENANT, QueryParser.parse(SEARCH, Signal.SPANS),
                    TimeRange.ALL, 100_000, Mechanisms.ALL);
            assertEquals(new HashSet<>(engine.searchSpans(TENANT, QueryParser.parse(SEARCH, Signal.SPANS),
                    TimeRange.ALL, 100_000, Mechanisms.NONE).records()), new HashSet<>(found.records()));
            Corpus.writeIndex(store, TENANT);
        }
    }

    /**
     * A new engine (every cache empty) opens a block that may hold the trace with what the index holds
     * of it, data.arrow's footer included: on a bucket it makes one GET per batch it reads and none of
     * data.arrow's tail, and finds what a listing and the blocks' own files find.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void coldTraceLookup_readsOnlyTheBatches_andAnswersAsAListing(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus corpus = Corpus.write(store, allocator, TENANT, 15, 4, 150);
        Corpus.writeIndex(store, TENANT);
        List<Bytes> ids = new ArrayList<>(corpus.traceIds.subList(0, 30));
        ids.add(corpus.absentTraceId());
        for (Bytes id : ids) {
            TraceResult cold = engine(store, HeadSource.EMPTY, NEVER).trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL,
                    true);
            TraceResult listed = engine(store, HeadSource.EMPTY, NEVER).trace(TENANT, id, TimeRange.ALL,
                    Mechanisms.ALL.withIndex(false), true);
            assertFalse(cold.partial(), cold.problems().toString());
            assertEquals(listed.spans(), cold.spans(), id.toString());
            assertEquals(listed.logs(), cold.logs(), id.toString());
            if (kind.equals("s3")) {
                for (BlockDecision d : cold.spanPlan().blocks()) {
                    assertEquals(d.batchesRead(), d.requests(), "one GET per batch read: " + d);
                }
            }
        }
    }

    /**
     * An index whose copies of data.arrow's footer are wrong — another block's, cut, with a bit
     * flipped, or noise — answers as the blocks' own files do, and never partially: a footer that
     * does not fit its block is not used, and one that fits but places the batches wrongly fails the
     * batches' checksums, after which the block's own footer is read.
     */
    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void wrongFootersInTheIndex_answerAsTheBlocksOwnFiles(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus corpus = Corpus.write(store, allocator, TENANT, 16, 4, 150);
        Corpus.writeIndex(store, TENANT);
        IndexObject original = store.readIndex(TENANT, Signal.SPANS, null).orElseThrow();
        List<BlockIndex.Entry> entries = BlockIndex.decode(original.bytes(), TENANT, Signal.SPANS).entries();
        List<UnaryOperator<List<byte[]>>> damages = List.of(
                footers -> rotated(footers),
                footers -> footers.stream().map(f -> Arrays.copyOf(f, f.length - 1)).toList(),
                footers -> footers.stream().map(f -> flip(f, f.length / 3)).toList(),
                footers -> footers.stream().map(f -> flip(f, f.length - 12)).toList(),
                footers -> footers.stream().map(f -> new byte[f.length]).toList());
        String token = original.token();
        for (UnaryOperator<List<byte[]>> damage : damages) {
            List<byte[]> footers = damage.apply(entries.stream().map(BlockIndex.Entry::dataFooter).toList());
            List<BlockIndex.Entry> forged = new ArrayList<>();
            for (int i = 0; i < entries.size(); i++) {
                BlockIndex.Entry e = entries.get(i);
                forged.add(new BlockIndex.Entry(e.name(), e.meta(), e.traceIdx(), e.attrIdx(), footers.get(i)));
            }
            token = store.writeIndex(TENANT, Signal.SPANS, BlockIndex.of(TENANT, Signal.SPANS, forged).encode(), token);
            for (Bytes id : List.of(corpus.traceIds.get(3), corpus.traceIds.get(90), corpus.absentTraceId())) {
                TraceResult damaged = engine(store, HeadSource.EMPTY, NEVER).trace(TENANT, id, TimeRange.ALL,
                        Mechanisms.ALL, false);
                TraceResult listed = engine(store, HeadSource.EMPTY, NEVER).trace(TENANT, id, TimeRange.ALL,
                        Mechanisms.ALL.withIndex(false), false);
                assertFalse(damaged.partial(), damaged.problems().toString());
                assertEquals(listed.spans(), damaged.spans(), id.toString());
                assertTrue(damaged.spanPlan().source().startsWith("the index ("), damaged.spanPlan().source());
            }
        }
    }

    /** Each block's footer given to the next block. */
    private static List<byte[]> rotated(List<byte[]> footers) {
        List<byte[]> out = new ArrayList<>(footers.subList(1, footers.size()));
        out.add(footers.get(0));
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void blockPublishedAfterTheIndexWasRead_isFoundThroughTheHeadThatNamesIt(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus first = Corpus.write(store, allocator, TENANT, 7, 2, 100);
        Corpus.writeIndex(store, TENANT);
        NamingHead head = new NamingHead();
        QueryEngine engine = engine(store, head, NEVER);
        assertEquals(first.spans.stream().filter(s -> s.traceId().equals(first.traceIds.get(0))).count(),
                engine.trace(TENANT, first.traceIds.get(0), TimeRange.ALL, Mechanisms.ALL, false).spans().size());

        // Published and indexed as ingest does, after the engine read the index.
        Corpus late = Corpus.write(store, allocator, TENANT, 8, 1, 100);
        new BlockIndexWriter(store).add(TENANT, Signal.SPANS, late.spanBlocks);
        Bytes id = late.traceIds.get(0);
        List<SpanRecord> expected = late.spans.stream().filter(s -> s.traceId().equals(id))
                .sorted(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).toList();
        assertEquals(List.of(), engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false).spans(),
                "within one poll the engine's index lacks the block: only the head can name it");

        head.named.addAll(late.spanBlocks);
        TraceResult found = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, false);
        assertEquals(expected, found.spans());
        assertTrue(found.spanPlan().source().endsWith("; " + late.spanBlocks.size()
                + " more the ingest head named as just published"), found.spanPlan().source());
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void blockOutsideTheIndex_isFoundByTheListing(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus.write(store, allocator, TENANT, 9, 2, 100);
        Corpus.writeIndex(store, TENANT);
        Corpus outside = Corpus.write(store, allocator, TENANT, 10, 1, 100);
        QueryEngine engine = engine(store, HeadSource.EMPTY, NEVER);
        TraceResult found = engine.trace(TENANT, outside.traceIds.get(0), TimeRange.ALL, Mechanisms.ALL, false);
        assertEquals(outside.spans.stream().filter(s -> s.traceId().equals(outside.traceIds.get(0))).count(),
                found.spans().size());
        assertTrue(found.spanPlan().source().contains(outside.spanBlocks.size() + " a listing found outside it;"),
                found.spanPlan().source());
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void retentionAfterTheIndexWasRead_neverMakesAnAnswerPartial(String kind) throws Exception {
        BlockStore store = store(kind);
        Corpus corpus = Corpus.write(store, allocator, TENANT, 11, 4, 100);
        Corpus.writeIndex(store, TENANT);
        QueryEngine engine = engine(store, HeadSource.EMPTY, NEVER);
        engine.searchSpans(TENANT, QueryParser.parse(SEARCH, Signal.SPANS), TimeRange.ALL, 100_000, Mechanisms.ALL);

        List<BlockRef> deleted = Retention.deleteOlderThan(store, Corpus.T0 + 2 * Corpus.BLOCK_NANOS, Function.identity());
        assertFalse(deleted.isEmpty());

        SearchResult<SpanRecord> after = engine.searchSpans(TENANT, QueryParser.parse(SEARCH, Signal.SPANS),
                TimeRange.ALL, 100_000, Mechanisms.ALL);
        assertEquals(List.of(), after.problems(), "the deleted blocks are gone, not unreadable");
        assertEquals(new HashSet<>(engine.searchSpans(TENANT, QueryParser.parse(SEARCH, Signal.SPANS), TimeRange.ALL,
                100_000, Mechanisms.NONE).records()), new HashSet<>(after.records()));
        for (Bytes id : List.of(corpus.traceIds.get(0), corpus.traceIds.get(corpus.traceIds.size() - 1))) {
            TraceResult trace = engine.trace(TENANT, id, TimeRange.ALL, Mechanisms.ALL, true);
            assertFalse(trace.partial(), trace.problems().toString());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void manyQueries_readTheIndexOncePerPoll(String kind) throws Exception {
        CountingStore store = new CountingStore(store(kind));
        Corpus corpus = Corpus.write(store, allocator, TENANT, 13, 3, 100);
        Corpus.writeIndex(store, TENANT);
        QueryEngine engine = engine(store, HeadSource.EMPTY, NEVER);
        int before = store.indexReads.get();
        for (int i = 0; i < 20; i++) {
            engine.trace(TENANT, corpus.traceIds.get(i), TimeRange.ALL, Mechanisms.ALL, true);
        }
        assertEquals(before + 2, store.indexReads.get(), "one read of each signal's index");

        QueryEngine polling = engine(store, HeadSource.EMPTY, Duration.ZERO);
        before = store.indexReads.get();
        polling.trace(TENANT, corpus.traceIds.get(0), TimeRange.ALL, Mechanisms.ALL, false);
        polling.trace(TENANT, corpus.traceIds.get(1), TimeRange.ALL, Mechanisms.ALL, false);
        assertEquals(before + 2, store.indexReads.get(), "a poll each query");
    }

    private static byte[] flip(byte[] b, int at) {
        byte[] out = b.clone();
        out[at] ^= 0x10;
        return out;
    }

    private static byte[] version(byte[] b, int version) {
        byte[] out = b.clone();
        out[4] = (byte) version;
        return out;
    }

    /** A head with no records that names the blocks of {@link #named} as just published. */
    private static final class NamingHead implements HeadSource {
        final List<BlockRef> named = new ArrayList<>();

        @Override
        public List<Part<SpanRecord>> spanParts(TenantId tenant) {
            return named.stream().filter(b -> b.signal() == Signal.SPANS)
                    .map(b -> Part.<SpanRecord>published(b.name().id(), b.name().toString())).toList();
        }

        @Override
        public List<Part<LogRecord>> logParts(TenantId tenant) {
            return List.of();
        }
    }

    /** A store that counts the reads of its index. */
    private static final class CountingStore extends ForwardingBlockStore {
        final AtomicInteger indexReads = new AtomicInteger();

        CountingStore(BlockStore store) {
            super(store);
        }

        @Override
        public Optional<IndexObject> readIndex(TenantId tenant, Signal signal, String knownToken) throws IOException {
            indexReads.incrementAndGet();
            return store.readIndex(tenant, signal, knownToken);
        }
    }
}
