package dev.needle.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.ingest.head.Records;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.QueryLimits;
import dev.needle.query.engine.TimeRange;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pipeline on real files: acknowledged spans are queryable at once, published once, and replayed exactly once after a crash. */
class IngestPipelineTest {

    private static final TenantId TENANT = TenantId.of("acme");
    private static final IngestLimits SMALL = new IngestLimits(50, 1_000_000, 1L << 40, Duration.ofHours(1),
            1L << 30, 1L << 28, 1 << 16);

    @TempDir
    Path dir;

    private static List<SpanRecord> spans(int from, int n) {
        Resource resource = new Resource(List.of(KeyValue.of("service.name", "checkout")), 0, "");
        Scope scope = new Scope("s", "1", List.of(), 0, "");
        List<SpanRecord> out = new ArrayList<>();
        for (int i = from; i < from + n; i++) {
            byte[] trace = new byte[16];
            trace[0] = 1;
            trace[15] = (byte) (i / 10);
            trace[14] = (byte) (i / 2560);
            byte[] span = new byte[8];
            span[0] = 1;
            span[7] = (byte) i;
            span[6] = (byte) (i >> 8);
            long start = 1_764_446_100_000_000_000L + i * 1_000_000L;
            out.add(SpanRecord.builder().resource(resource).scope(scope).traceId(Bytes.wrap(trace))
                    .spanId(Bytes.wrap(span)).flags(1).name("op" + i).kind(2).startTimeUnixNano(start)
                    .endTimeUnixNano(start + 5).attributes(List.of(KeyValue.of("i", i))).build());
        }
        return out;
    }

    private IngestPipeline open(FsBlockStore store) throws IOException {
        return IngestPipeline.open(store, dir.resolve("wal"), SMALL, nanos -> { });
    }

    private List<SpanRecord> everySpan(FsBlockStore store, IngestPipeline pipeline) throws IOException {
        try (QueryEngine engine = new QueryEngine(store, pipeline.head(), 1 << 20, 2)) {
            var expr = dev.needle.query.ql.QueryParser.parse("{ }", Signal.SPANS);
            return engine.searchSpans(TENANT, expr, TimeRange.ALL, 1_000_000, Mechanisms.ALL).records();
        } catch (dev.needle.query.ql.QueryParseException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void accept_spansAreQueryableAtOnceAndAfterPublishing_once() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(store)) {
            List<SpanRecord> sent = spans(0, 120);
            pipeline.acceptSpans(TENANT, sent.subList(0, 60), null, 0);
            pipeline.acceptSpans(TENANT, sent.subList(60, 120), null, 0);
            assertEquals(new HashSet<>(sent), new HashSet<>(everySpan(store, pipeline)));
            pipeline.cutAndPublish();
            assertEquals(0, pipeline.head().rows());
            assertEquals(3, store.list(TENANT, Signal.SPANS).size(), "120 spans in blocks of at most 50");
            assertEquals(sent.size(), everySpan(store, pipeline).size());
            assertTrue(everySpan(store, pipeline).containsAll(sent));
        }
        assertEquals(120, RowsOnDisk.spans(store, TENANT), "each span published once");
    }

    @Test
    void publish_addsTheBlocksToTheIndex_andTheHeadNamesThemToAnEngineWhoseIndexIsOlder() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(store);
             QueryEngine engine = new QueryEngine(store, pipeline.head(), 1 << 20, 2, QueryLimits.DEFAULTS, Duration.ofHours(1),
                     Duration.ofHours(1))) {
            List<SpanRecord> sent = spans(0, 120);
            pipeline.acceptSpans(TENANT, sent.subList(0, 40), null, 0);
            pipeline.cutAndPublish();
            var all = dev.needle.query.ql.QueryParser.parse("{ }", Signal.SPANS);
            // The engine reads the index now, and keeps it for an hour.
            assertEquals(40, engine.searchSpans(TENANT, all, TimeRange.ALL, 1_000, Mechanisms.ALL).records().size());

            pipeline.acceptSpans(TENANT, sent.subList(40, 120), null, 0);
            pipeline.cutAndPublish();
            assertEquals(0, pipeline.head().rows());
            assertEquals(store.list(TENANT, Signal.SPANS), indexed(store));
            var found = engine.searchSpans(TENANT, all, TimeRange.ALL, 1_000, Mechanisms.ALL);
            assertEquals(new HashSet<>(sent), new HashSet<>(found.records()), "the head names what the old index lacks");
            assertTrue(found.plan().source().contains("the ingest head named as just published"), found.plan().source());
        }
    }

    @Test
    void open_reconcilesTheIndexWithTheListing() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(store)) {
            pipeline.acceptSpans(TENANT, spans(0, 120), null, 0);
            pipeline.cutAndPublish();
        }
        IndexObject index = store.readIndex(TENANT, Signal.SPANS, null).orElseThrow();
        store.writeIndex(TENANT, Signal.SPANS, new byte[] {1, 2, 3}, index.token());
        try (IngestPipeline pipeline = open(new FsBlockStore(dir.resolve("data")))) {
            assertEquals(store.list(TENANT, Signal.SPANS), indexed(store), "a damaged index is built again at start");
        }
    }

    private static List<BlockRef> indexed(FsBlockStore store) throws IOException {
        return BlockIndex.decode(store.readIndex(TENANT, Signal.SPANS, null).orElseThrow().bytes(), TENANT, Signal.SPANS)
                .entries().stream().map(e -> new BlockRef(TENANT, Signal.SPANS, e.name())).toList();
    }

    @Test
    void open_afterCrashBetweenPublishAndCheckpoint_replaysNothingTwice() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        List<SpanRecord> sent = spans(0, 120);
        Path snapshot = dir.resolve("wal-before-checkpoint");
        try (IngestPipeline pipeline = open(store)) {
            pipeline.acceptSpans(TENANT, sent, null, 0);
            copyTree(dir.resolve("wal"), snapshot);
            pipeline.cutAndPublish();
        }
        replaceTree(snapshot, dir.resolve("wal"));
        FsBlockStore reopened = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(reopened)) {
            assertEquals(0, pipeline.head().rows(), "the published cut's entries are not replayed");
            assertEquals(sent.size(), everySpan(reopened, pipeline).size());
        }
        assertEquals(sent.size(), RowsOnDisk.spans(reopened, TENANT), "nothing published twice");
    }

    @Test
    void open_afterCrashInTheMiddleOfACut_deletesItsBlocksAndReplaysThem() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        List<SpanRecord> sent = spans(0, 120);
        Path snapshot = dir.resolve("wal-before-checkpoint");
        try (IngestPipeline pipeline = open(store)) {
            pipeline.acceptSpans(TENANT, sent, null, 0);
            copyTree(dir.resolve("wal"), snapshot);
            pipeline.cutAndPublish();
        }
        List<BlockRef> blocks = store.list(TENANT, Signal.SPANS);
        store.delete(blocks.get(1));
        replaceTree(snapshot, dir.resolve("wal"));
        FsBlockStore reopened = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(reopened)) {
            assertEquals(0, reopened.list(TENANT, Signal.SPANS).size(), "the partial cut's blocks are gone");
            assertEquals(120, pipeline.head().rows(), "and its records are back in the head");
            pipeline.cutAndPublish();
            List<SpanRecord> found = everySpan(reopened, pipeline);
            assertEquals(sent.size(), found.size());
            assertTrue(found.containsAll(sent));
        }
        assertEquals(sent.size(), RowsOnDisk.spans(reopened, TENANT), "the partial cut's blocks were replaced, not doubled");
    }

    @Test
    void open_aCheckpointedCutWithABlockDeleted_keepsTheRest() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        List<SpanRecord> sent = spans(0, 120);
        try (IngestPipeline pipeline = open(store)) {
            pipeline.acceptSpans(TENANT, sent, null, 0);
            pipeline.cutAndPublish();
        }
        List<BlockRef> blocks = store.list(TENANT, Signal.SPANS);
        assertEquals(3, blocks.size(), "one cut of 120 spans in blocks of at most 50");
        // What retention (or, later, compaction) may do to a cut long since checkpointed.
        store.delete(blocks.get(0));
        FsBlockStore reopened = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(reopened)) {
            assertEquals(blocks.subList(1, 3), reopened.list(TENANT, Signal.SPANS), "the rest of the cut is live data");
            assertEquals(0, pipeline.head().rows(), "nothing is replayed: the log was checkpointed past the cut");
        }
        assertEquals(70, RowsOnDisk.spans(reopened, TENANT));
    }

    @Test
    void retention_deletesTheBlocksOfACutOnlyTogether() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        List<SpanRecord> old = spans(0, 50);
        List<SpanRecord> recent = spans(1_000, 50);
        try (IngestPipeline pipeline = open(store)) {
            pipeline.acceptSpans(TENANT, old, null, 0);
            pipeline.acceptSpans(TENANT, recent, null, 0);
            pipeline.cutAndPublish();
            long between = recent.get(0).startTimeUnixNano() - 1;
            assertEquals(List.of(), pipeline.applyRetention(between), "one block of the cut is older, the other is not");
            assertEquals(2, store.list(TENANT, Signal.SPANS).size());
            assertEquals(2, pipeline.applyRetention(Long.MAX_VALUE).size(), "once all of it is older, the whole cut goes");
        }
    }

    @Test
    void close_publishesTheHead_andReopenFindsEverythingOnce() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        List<SpanRecord> sent = spans(0, 30);
        try (IngestPipeline pipeline = open(store)) {
            pipeline.acceptSpans(TENANT, sent, null, 0);
        }
        FsBlockStore reopened = new FsBlockStore(dir.resolve("data"));
        try (IngestPipeline pipeline = open(reopened)) {
            assertEquals(0, pipeline.head().rows());
            assertEquals(new HashSet<>(sent), new HashSet<>(everySpan(reopened, pipeline)));
        }
        assertEquals(sent.size(), RowsOnDisk.spans(reopened, TENANT));
    }

    @Test
    void accept_overTheHeadBound_withNoWait_isRefusedWith429() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        IngestLimits tiny = new IngestLimits(50, 1_000_000, 1L << 40, Duration.ofHours(1), 2_000, Duration.ZERO,
                1L << 28, 1 << 16);
        try (IngestPipeline pipeline = IngestPipeline.open(store, dir.resolve("wal"), tiny, nanos -> { })) {
            IngestRefusedException e;
            // The publisher cuts under the pipeline's monitor: held here, it cannot make room.
            synchronized (pipeline) {
                pipeline.acceptSpans(TENANT, spans(0, 5), null, 0);
                e = assertThrows(IngestRefusedException.class, () -> {
                    for (int i = 0; i < 100; i++) {
                        pipeline.acceptSpans(TENANT, spans(i * 5, 5), null, 0);
                    }
                });
            }
            assertEquals(429, e.httpStatus());
            assertEquals(5, e.retryAfterSeconds(), "a full head asks for 5 s");
        }
    }

    @Test
    void accept_overTheHeadBound_waitsForThePublisherToMakeRoom_andIsTaken() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        // Each request alone passes the bound: every one after the first waits for the cut before it.
        IngestLimits tiny = new IngestLimits(50, 1_000_000, 1L << 40, Duration.ofMillis(200), 2_000,
                Duration.ofMinutes(1), 1L << 28, 1 << 16);
        List<SpanRecord> sent = new ArrayList<>();
        try (IngestPipeline pipeline = IngestPipeline.open(store, dir.resolve("wal"), tiny, nanos -> { })) {
            for (int i = 0; i < 10; i++) {
                List<SpanRecord> request = spans(i * 5, 5);
                assertTrue(Records.of(SignalKind.SPANS, request).heapBytes() > tiny.maxHeadBytes());
                pipeline.acceptSpans(TENANT, request, null, 0);
                sent.addAll(request);
                assertTrue(pipeline.head().rows() <= 5, "the head held only this request when it was taken");
            }
        }
        assertEquals(sent.size(), RowsOnDisk.spans(store, TENANT));
    }

    @Test
    void busy_onceARequestTakesTheHeadOverHalfItsBound() throws Exception {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        IngestLimits bounded = new IngestLimits(50, 1_000_000, 1L << 40, Duration.ofHours(1), 64 << 10, 1L << 28, 1 << 16);
        try (IngestPipeline pipeline = IngestPipeline.open(store, dir.resolve("wal"), bounded, nanos -> { })) {
            // The publisher cuts under the pipeline's monitor: held here, the head keeps what it took.
            synchronized (pipeline) {
                int sent = 0;
                while (!pipeline.busy()) {
                    assertTrue(pipeline.head().heapBytes() <= bounded.maxHeadBytes() / 2,
                            "not busy at " + pipeline.head().heapBytes() + " bytes, over half the bound");
                    pipeline.acceptSpans(TENANT, spans(sent, 5), null, 0);
                    sent += 5;
                }
                assertTrue(sent > 5, "a request that leaves the head under half its bound does not count");
                assertTrue(pipeline.head().heapBytes() > bounded.maxHeadBytes() / 2);
            }
        }
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : paths.toList()) {
                Files.copy(p, to.resolve(from.relativize(p).toString()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    private static void replaceTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(to)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        copyTree(from, to);
    }
}
