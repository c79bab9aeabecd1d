package dev.needle.blocks.compact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.LiveBlocks;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.TwoStores;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.write.BlockWriter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The compactor on a local directory and on a bucket (S3Proxy): merges, does nothing twice, and a
 * compaction cut short at any step (publish, index, delete) leaves every record answered once and is
 * finished by the next compactor, as after a restart.
 */
class CompactorTest {

    private static final TenantId ACME = TenantId.of("acme");
    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();

    @TempDir
    Path dir;

    private static Compactor.Options options(int blockRows, Predicate<BlockRef> eligible) {
        return new Compactor.Options(blockRows, BlockWriter.Options.DEFAULT, Duration.ZERO, "", eligible);
    }

    /** Five spans blocks and three logs blocks of 40 records each, and one spans block of 400. */
    private static List<String> fill(BlockStore store) throws IOException {
        RandomRecords random = new RandomRecords(16);
        List<String> records = new ArrayList<>();
        try (RootAllocator allocator = new RootAllocator()) {
            BlockWriter writer = new BlockWriter(store, allocator);
            for (int i = 0; i < 5; i++) {
                var spans = random.spans(40);
                spans.forEach(s -> records.add(s.toString()));
                writer.writeSpans(ACME, spans);
            }
            for (int i = 0; i < 3; i++) {
                var logs = random.logs(40);
                logs.forEach(l -> records.add(l.toString()));
                writer.writeLogs(ACME, logs);
            }
        }
        records.sort(Comparator.naturalOrder());
        return records;
    }

    /** Every record of the blocks that answer queries (those no visible block replaces), each as text, sorted. */
    static List<String> answered(BlockStore store) throws IOException {
        List<String> records = new ArrayList<>();
        LiveBlocks live = new LiveBlocks(store);
        try (RootAllocator allocator = new RootAllocator()) {
            for (Signal signal : Signal.values()) {
                for (BlockRef ref : live.live(store.list(ACME, signal))) {
                    try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
                        for (int b = 0; b < reader.batchCount(); b++) {
                            try (VectorSchemaRoot root = reader.readAll(b)) {
                                for (int row = 0; row < root.getRowCount(); row++) {
                                    records.add(signal == Signal.SPANS ? new SpanColumns(root).read(row).toString()
                                            : new LogColumns(root).read(row).toString());
                                }
                            }
                        }
                    }
                }
            }
        } catch (dev.needle.blocks.read.CorruptBlockException | dev.needle.blocks.codec.CorruptValueException e) {
            throw new IOException(e);
        }
        records.sort(Comparator.naturalOrder());
        return records;
    }

    private static List<BlockName> indexed(BlockStore store, Signal signal) throws IOException {
        return BlockIndex.decode(store.readIndex(ACME, signal, null).orElseThrow().bytes(), ACME, signal).entries()
                .stream().map(BlockIndex.Entry::name).toList();
    }

    private static List<BlockName> names(BlockStore store, Signal signal) throws IOException {
        return store.list(ACME, signal).stream().map(BlockRef::name).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void run_smallBlocks_mergedIntoOnePerSignal_sameRecords_oldDeletedOnTheNextPass(String kind) throws IOException {
        try (TwoStores stores = TwoStores.open(kind, dir, server);
             Compactor compactor = new Compactor(stores.get(0), options(1000, b -> true))) {
            BlockStore store = stores.get(0);
            List<String> records = fill(store);
            new BlockIndexWriter(store).reconcile(ACME, Signal.SPANS);

            Compactor.Pass pass = compactor.run(false);

            assertEquals(2, pass.merges().size());
            Compactor.Merge spans = pass.merges().get(0);
            assertEquals(5, spans.inputs().size());
            assertEquals(200, spans.rows());
            assertEquals(records, answered(store), "every record once, the old blocks still there");
            assertEquals(6, store.list(ACME, Signal.SPANS).size());
            assertEquals(List.of(spans.output()), indexed(store, Signal.SPANS), "the index names the new block alone");
            BlockMeta meta;
            try (RootAllocator allocator = new RootAllocator();
                 BlockReader reader = BlockReader.open(store, new BlockRef(ACME, Signal.SPANS, spans.output()), allocator)) {
                meta = reader.meta().orElseThrow();
            }
            assertEquals(spans.inputs(), meta.replaces());
            assertEquals(BlockMeta.WRITER_VERSION_CURRENT, meta.writerVersion());
            for (BlockName input : spans.inputs()) {
                assertTrue(spans.output().startUnixMilli() <= input.startUnixMilli()
                        && spans.output().endUnixMilli() >= input.endUnixMilli(), "the name covers " + input);
            }

            Compactor.Pass second = compactor.run(false);

            assertEquals(List.of(), second.merges());
            assertEquals(8, second.deleted().size());
            assertEquals(List.of(spans.output()), names(store, Signal.SPANS));
            assertEquals(1, store.list(ACME, Signal.LOGS).size());
            assertEquals(records, answered(store));
            assertEquals(2, compactor.compactions());
            assertEquals(8, compactor.blocksRewritten());
            assertEquals(320, compactor.rowsRewritten());
        }
    }

    @Test
    void run_underAStreamOfSmallBlocks_writesEachRowAgainAFewTimes_notOncePerPass() throws IOException {
        BlockStore store = new dev.needle.blocks.store.fs.FsBlockStore(dir);
        RandomRecords random = new RandomRecords(17);
        List<String> records = new ArrayList<>();
        long ingested = 0;
        try (RootAllocator allocator = new RootAllocator();
             Compactor compactor = new Compactor(store, options(10_000, b -> true))) {
            BlockWriter writer = new BlockWriter(store, allocator);
            // Three blocks of 10 spans a pass, as a cut every few seconds makes them, sixteen passes.
            for (int pass = 0; pass < 16; pass++) {
                for (int i = 0; i < 3; i++) {
                    var spans = random.spans(10);
                    spans.forEach(s -> records.add(s.toString()));
                    writer.writeSpans(ACME, spans);
                    ingested += spans.size();
                }
                compactor.run(false);
            }
            records.sort(Comparator.naturalOrder());
            assertEquals(records, answered(store));
            // Merging the growing block at every pass would write 30 + 60 + ... + 480 rows: 4,080, 8.5 times the 480.
            assertTrue(compactor.rowsRewritten() <= 4 * ingested, compactor.rowsRewritten() + " rows written again for "
                    + ingested + ", " + names(store, Signal.SPANS).size() + " blocks left");
        }
    }

    @Test
    void run_again_changesNothing() throws IOException {
        BlockStore store = new dev.needle.blocks.store.fs.FsBlockStore(dir);
        List<String> records = fill(store);
        try (Compactor compactor = new Compactor(store, options(1000, b -> true))) {
            compactor.run(false);
            compactor.run(false);
            List<BlockName> after = names(store, Signal.SPANS);

            Compactor.Pass third = compactor.run(false);

            assertEquals(List.of(), third.merges());
            assertEquals(List.of(), third.deleted());
            assertEquals(0, third.finished());
            assertEquals(after, names(store, Signal.SPANS));
            assertEquals(records, answered(store));
        }
    }

    @Test
    void run_blocksTooLargeOrNotEligible_leftAlone_andBacklogCounted() throws IOException {
        BlockStore store = new dev.needle.blocks.store.fs.FsBlockStore(dir);
        fill(store);
        List<BlockName> spans = names(store, Signal.SPANS);
        // 40 rows is more than half of 60: no block is small.
        try (Compactor compactor = new Compactor(store, options(60, b -> true))) {
            assertEquals(List.of(), compactor.run(false).merges());
        }
        // The second and fourth spans block are kept back: no two eligible blocks are adjacent.
        Set<BlockName> kept = Set.of(spans.get(1), spans.get(3));
        try (Compactor compactor = new Compactor(store, options(1000,
                b -> b.signal() == Signal.SPANS && !kept.contains(b.name())))) {
            Compactor.Pass dry = compactor.run(true);
            assertEquals(List.of(), dry.merges());
            assertEquals(new Compactor.SignalState(ACME, Signal.SPANS, 5, 0), dry.signals().get(0));
        }
        try (Compactor compactor = new Compactor(store, options(100, b -> true))) {
            Compactor.Pass dry = compactor.run(true);
            assertEquals(3, dry.merges().size(), "runs of at most 100 rows: spans in two of two blocks, the fifth"
                    + " alone, logs in one of two, the third alone");
            assertEquals(new Compactor.SignalState(ACME, Signal.SPANS, 5, 4), dry.signals().get(0));
            assertEquals(spans, names(store, Signal.SPANS), "a dry run changes nothing");
        }
        assertEquals(spans, names(store, Signal.SPANS));
    }

    @Test
    void run_deferred_leavesItsMergesToTheNextPass_askedWithTheBacklogLeft() throws IOException {
        BlockStore store = new dev.needle.blocks.store.fs.FsBlockStore(dir);
        List<String> records = fill(store);
        List<Integer> asked = new ArrayList<>();
        // Runs of at most 100 rows: spans in two runs of two blocks, logs in one of two.
        try (Compactor compactor = new Compactor(store, options(100, b -> true))) {
            Compactor.Pass deferred = compactor.run(false, backlog -> {
                asked.add(backlog);
                return backlog < 4;
            });

            // Spans before each run and inside the first (with the backlog it began with), logs before its one.
            List<Integer> expected = new ArrayList<>(Collections.nCopies(asked.size() - 2, 4));
            expected.addAll(List.of(2, 2));
            assertTrue(asked.size() > 3, "asked inside the merge too: " + asked);
            assertEquals(expected, asked);
            assertEquals(1, deferred.merges().size());
            assertEquals(2, compactor.mergesDeferred());
            assertEquals(new Compactor.SignalState(ACME, Signal.SPANS, 4, 2), deferred.signals().get(0));
            assertEquals(new Compactor.SignalState(ACME, Signal.LOGS, 3, 2), deferred.signals().get(1));
            assertEquals(records, answered(store));

            Compactor.Pass next = compactor.run(false);

            assertEquals(2, next.merges().size(), "what was deferred");
            assertEquals(records, answered(store));
        }
    }

    @Test
    void run_ingestTurnsBusyInsideAMerge_theMergeYieldsBeforeItsWrite_andAQuietPassMergesIt() throws IOException {
        BlockStore store = new dev.needle.blocks.store.fs.FsBlockStore(dir);
        List<String> records = fill(store);
        List<BlockRef> before = new ArrayList<>(store.list(ACME, Signal.SPANS));
        before.addAll(store.list(ACME, Signal.LOGS));
        AtomicInteger asked = new AtomicInteger();
        AtomicBoolean busy = new AtomicBoolean();
        // One run per signal. Asked before the spans merge, before its first block, then before its second:
        // ingest turns busy there, with one block read.
        try (Compactor compactor = new Compactor(store, options(400, b -> true))) {
            Compactor.Pass yielded = compactor.run(false, backlog -> {
                if (asked.incrementAndGet() == 3) {
                    busy.set(true);
                }
                return busy.get();
            });

            assertEquals(List.of(), yielded.merges(), "the spans merge gave way, and the logs one did not start");
            assertEquals(4, asked.get(), "after the merge gave way, only before the logs merge");
            assertEquals(2, compactor.mergesDeferred());
            assertEquals(0, compactor.compactions());
            List<BlockRef> after = new ArrayList<>(store.list(ACME, Signal.SPANS));
            after.addAll(store.list(ACME, Signal.LOGS));
            assertEquals(before, after, "nothing published");
            try (var files = Files.list(dir.resolve(ACME.value()).resolve(Signal.SPANS.dirName()))) {
                assertTrue(files.noneMatch(f -> f.getFileName().toString().startsWith(".tmp-")), "nothing staged");
            }
            assertEquals(records, answered(store));

            busy.set(false);
            Compactor.Pass quiet = compactor.run(false, backlog -> busy.get());

            assertEquals(2, quiet.merges().size(), "what gave way, merged once ingest is quiet");
            assertEquals(records, answered(store));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"PUBLISH", "WRITE_INDEX", "DELETE"})
    void run_cutShortAtAStep_answersEachRecordOnce_andTheNextCompactorFinishes(String step) throws IOException {
        try (TwoStores stores = TwoStores.open("s3", dir, server)) {
            BlockStore store = stores.get(0);
            List<String> records = fill(store);
            new BlockIndexWriter(store).reconcile(ACME, Signal.SPANS);
            List<BlockName> before = names(store, Signal.SPANS);
            FailingStore failing = new FailingStore(store, FailingStore.Step.valueOf(step));
            try (Compactor crashing = new Compactor(failing, options(1000, b -> true))) {
                assertThrows(IOException.class, () -> {
                    crashing.run(false);
                    crashing.run(false);
                });
            }
            assertEquals(records, answered(store), "each record once after the failure at " + step);
            if (step.equals("PUBLISH")) {
                assertEquals(before, names(store, Signal.SPANS), "nothing published");
            }

            try (Compactor next = new Compactor(stores.get(1), options(1000, b -> true))) {
                Compactor.Pass first = next.run(false);
                assertEquals(records, answered(store));
                if (step.equals("WRITE_INDEX")) {
                    assertEquals(5, first.finished(), "the replaced spans blocks are handed to the grace");
                    assertEquals(1, first.merges().size(), "the logs, never reached before, are merged now");
                } else if (step.equals("DELETE")) {
                    assertEquals(8, first.finished(), "both merges were done; their old blocks wait again");
                    assertEquals(0, first.merges().size());
                }
                next.run(false);
            }
            assertEquals(1, store.list(ACME, Signal.SPANS).size());
            assertEquals(names(store, Signal.SPANS), indexed(store, Signal.SPANS));
            assertEquals(1, store.list(ACME, Signal.LOGS).size());
            assertEquals(records, answered(store));
        }
    }
}
