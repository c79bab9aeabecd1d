package dev.needle.blocks.index;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.Retention;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.TwoStores;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.sidecar.BloomSidecar;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The index's writers on both stores: adding builds it from a listing, racing writers on two store
 * instances lose no entry, retention takes blocks out before it deletes them, reconciling agrees with
 * the listing.
 */
class BlockIndexWriterTest {

    private static final TenantId ACME = TenantId.of("acme");
    private static final long MINUTE_NANOS = 60_000_000_000L;

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();

    @TempDir
    Path dir;

    /** Publishes a small block of minute {@code minute}: a meta.json and a TRACE_IDX naming it, no ATTR_IDX. */
    static BlockRef publish(BlockStore store, int minute, String id) throws IOException {
        try (PendingBlock block = store.create(ACME, Signal.SPANS)) {
            for (String file : List.of(BloomSidecar.TRACE_IDX, "meta.json")) {
                try (OutputStream out = block.create(file)) {
                    out.write((file + " of " + id).getBytes(UTF_8));
                }
            }
            return block.publish(BlockName.forRange(minute * MINUTE_NANOS, minute * MINUTE_NANOS + 1, id));
        }
    }

    private static BlockIndex read(BlockStore store) throws IOException {
        return BlockIndex.decode(store.readIndex(ACME, Signal.SPANS, null).orElseThrow().bytes(), ACME, Signal.SPANS);
    }

    private static List<BlockName> names(BlockIndex index) {
        return index.entries().stream().map(BlockIndex.Entry::name).toList();
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void add_withoutAnIndex_buildsItFromTheListing_withTheFilesVerbatim(String kind) throws IOException {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            BlockStore store = stores.get(0);
            BlockRef old = publish(store, 1, "old");
            BlockRef fresh = publish(store, 2, "fresh");
            new BlockIndexWriter(store).add(ACME, Signal.SPANS, List.of(fresh));

            BlockIndex index = read(store);
            assertEquals(List.of(old.name(), fresh.name()), names(index), "the block before the index came too");
            BlockIndex.Entry entry = index.entries().get(0);
            assertArrayEquals("meta.json of old".getBytes(UTF_8), entry.meta());
            assertArrayEquals("TRACE_IDX of old".getBytes(UTF_8), entry.traceIdx());
            assertEquals(0, entry.attrIdx().length, "no ATTR_IDX: no filter");
            assertEquals(0, entry.dataFooter().length, "no data.arrow: no footer");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void racingWriters_onTwoStores_loseNoEntry(String kind) throws Exception {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            int each = 8;
            ExecutorService pool = Executors.newFixedThreadPool(2);
            List<BlockName> published = new ArrayList<>();
            try {
                List<Future<List<BlockName>>> writers = new ArrayList<>();
                for (int w = 0; w < 2; w++) {
                    BlockStore store = stores.get(w);
                    int writer = w;
                    writers.add(pool.submit(() -> {
                        BlockIndexWriter index = new BlockIndexWriter(store);
                        List<BlockName> mine = new ArrayList<>();
                        for (int i = 0; i < each; i++) {
                            BlockRef ref = publish(store, i, "w" + writer + "n" + i);
                            index.add(ACME, Signal.SPANS, List.of(ref));
                            mine.add(ref.name());
                        }
                        return mine;
                    }));
                }
                for (Future<List<BlockName>> f : writers) {
                    published.addAll(f.get());
                }
            } finally {
                pool.shutdown();
            }
            published.sort(null);
            assertEquals(published, names(read(stores.get(0))));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void retention_removesTheEntriesAndThenTheBlocks(String kind) throws IOException {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            BlockStore store = stores.get(0);
            BlockRef old = publish(store, 1, "old");
            BlockRef fresh = publish(store, 10, "fresh");
            new BlockIndexWriter(store).add(ACME, Signal.SPANS, List.of(old, fresh));

            List<BlockRef> deleted = Retention.deleteOlderThan(store, 5 * MINUTE_NANOS, Function.identity());

            assertEquals(List.of(old), deleted);
            assertEquals(List.of(fresh), store.list(ACME, Signal.SPANS));
            assertEquals(List.of(fresh.name()), names(read(store)));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void reconcile_addsWhatIsListedAndDropsWhatIsGone(String kind) throws IOException {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            BlockStore store = stores.get(0);
            BlockIndexWriter writer = new BlockIndexWriter(store);
            BlockRef gone = publish(store, 1, "gone");
            writer.add(ACME, Signal.SPANS, List.of(gone));
            store.delete(gone);
            BlockRef unindexed = publish(store, 2, "unindexed");

            BlockIndexWriter.Reconciled r = writer.reconcile(ACME, Signal.SPANS);

            assertEquals(List.of(unindexed.name()), r.added());
            assertEquals(List.of(gone.name()), r.dropped());
            assertEquals(List.of(unindexed.name()), names(read(store)));
            assertTrue(writer.reconcile(ACME, Signal.SPANS).agreed());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void remove_withoutAnIndex_writesNone_andADamagedIndexIsBuiltAgain(String kind) throws IOException {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            BlockStore store = stores.get(0);
            BlockRef block = publish(store, 1, "b");
            BlockIndexWriter writer = new BlockIndexWriter(store);
            writer.remove(ACME, Signal.SPANS, Set.of(block.name()));
            assertEquals(Optional.empty(), store.readIndex(ACME, Signal.SPANS, null));

            store.writeIndex(ACME, Signal.SPANS, "not an index".getBytes(UTF_8), null);
            BlockRef next = publish(store, 2, "c");
            writer.add(ACME, Signal.SPANS, List.of(next));
            assertEquals(List.of(block.name(), next.name()), names(read(store)));
        }
    }

    @Test
    void fitted_anIndexTooLarge_leavesOutTheOldestBlocksFiltersFirst() {
        List<BlockIndex.Entry> entries = new ArrayList<>();
        for (int minute = 1; minute <= 4; minute++) {
            entries.add(new BlockIndex.Entry(BlockName.forRange(minute * MINUTE_NANOS, minute * MINUTE_NANOS + 1, "b" + minute),
                    new byte[10], new byte[100], new byte[100], new byte[5]));
        }
        BlockIndex index = BlockIndex.of(ACME, Signal.SPANS, entries);
        assertEquals(index, BlockIndexWriter.fitted(index, index.bodyBytes()), "it fits: unchanged");

        BlockIndex fitted = BlockIndexWriter.fitted(index, index.bodyBytes() - 250);
        assertEquals(List.of(0, 0, 200, 200), fitted.entries().stream()
                .map(e -> e.traceIdx().length + e.attrIdx().length).toList(), "the two oldest lose their filters");
        assertTrue(fitted.entries().stream().allMatch(e -> e.meta().length == 10 && e.dataFooter().length == 5));

        BlockIndex bare = BlockIndexWriter.fitted(index, index.bodyBytes() - 810);
        assertEquals(List.of(0, 15, 15, 15), bare.entries().stream().map(e -> e.meta().length + e.dataFooter().length)
                .toList(), "past every filter, the oldest meta.json copies go, and their footers with them");
        assertEquals(names(index), names(bare), "never a block");
    }
}
