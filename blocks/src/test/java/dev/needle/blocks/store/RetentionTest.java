package dev.needle.blocks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {

    private static final long MS = 1_000_000L;
    private static final TenantId ACME = TenantId.of("acme");
    private static final TenantId OTHER = TenantId.of("other");

    /** Every block a group of its own. */
    private static final Function<BlockRef, ?> EACH = Function.identity();

    @TempDir
    Path tmp;

    @Test
    void deleteOlderThan_aGroupWithOneRecentBlock_keptWhole() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef oldOfA = publishEmpty(store, ACME, Signal.SPANS, 10 * MS, 20 * MS);
        BlockRef recentOfA = publishEmpty(store, ACME, Signal.SPANS, 150 * MS, 200 * MS);
        BlockRef oldOfB = publishEmpty(store, ACME, Signal.SPANS, 30 * MS, 40 * MS);
        BlockRef alsoOldOfB = publishEmpty(store, ACME, Signal.SPANS, 50 * MS, 60 * MS);
        Function<BlockRef, String> group = b -> b.equals(oldOfA) || b.equals(recentOfA) ? "a" : "b";

        List<BlockRef> deleted = Retention.deleteOlderThan(store, ACME, Signal.SPANS, 100 * MS, group);

        assertEquals(List.of(oldOfB, alsoOldOfB), deleted);
        assertEquals(List.of(oldOfA, recentOfA), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(oldOfA, recentOfA), Retention.deleteOlderThan(store, 201 * MS, group));
    }

    @Test
    void deleteOlderThan_endBeforeCutoff_deletedByNameAlone() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        long cutoff = 100 * MS + 1; // blocks end on whole milliseconds
        BlockRef old = publishEmpty(store, ACME, Signal.SPANS, 10 * MS, 20 * MS);
        BlockRef endsJustBefore = publishEmpty(store, ACME, Signal.SPANS, 50 * MS, 100 * MS);
        BlockRef endsAt = publishEmpty(store, ACME, Signal.SPANS, 60 * MS, cutoff); // rounds up to 101 ms
        BlockRef straddles = publishEmpty(store, ACME, Signal.SPANS, 10 * MS, 200 * MS);
        BlockRef recent = publishEmpty(store, ACME, Signal.SPANS, 150 * MS, 200 * MS);
        BlockRef beforeEpoch = publishEmpty(store, ACME, Signal.SPANS, -50 * MS, -MS);
        BlockRef otherSignal = publishEmpty(store, ACME, Signal.LOGS, 10 * MS, 20 * MS);
        BlockRef otherTenant = publishEmpty(store, OTHER, Signal.SPANS, 10 * MS, 20 * MS);

        List<BlockRef> deleted = Retention.deleteOlderThan(store, ACME, Signal.SPANS, cutoff, EACH);

        assertEquals(List.of(beforeEpoch, old, endsJustBefore), deleted);
        assertEquals(List.of(straddles, endsAt, recent), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(otherSignal), store.list(ACME, Signal.LOGS));
        assertEquals(List.of(otherTenant), store.list(OTHER, Signal.SPANS));
    }

    @Test
    void deleteOlderThan_endEqualsCutoff_kept() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef endsAtCutoff = publishEmpty(store, ACME, Signal.LOGS, 0, 7 * MS);
        assertEquals(List.of(), Retention.deleteOlderThan(store, ACME, Signal.LOGS, 7 * MS, EACH));
        assertEquals(List.of(endsAtCutoff), Retention.deleteOlderThan(store, ACME, Signal.LOGS, 7 * MS + 1, EACH));
    }

    @Test
    void deleteOlderThan_allTenantsAndSignals_deletesEverywhere() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef acmeSpans = publishEmpty(store, ACME, Signal.SPANS, 0, MS);
        BlockRef acmeLogs = publishEmpty(store, ACME, Signal.LOGS, 0, MS);
        BlockRef otherSpans = publishEmpty(store, OTHER, Signal.SPANS, 0, MS);
        BlockRef keptLogs = publishEmpty(store, OTHER, Signal.LOGS, 0, 9 * MS);
        Files.createDirectories(tmp.resolve("wal"));

        List<BlockRef> deleted = Retention.deleteOlderThan(store, 5 * MS, EACH);

        assertEquals(List.of(acmeSpans, acmeLogs, otherSpans), deleted);
        assertEquals(List.of(), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(), store.list(ACME, Signal.LOGS));
        assertEquals(List.of(), store.list(OTHER, Signal.SPANS));
        assertEquals(List.of(keptLogs), store.list(OTHER, Signal.LOGS));
        assertTrue(Files.isDirectory(tmp.resolve("wal")));
    }

    /** A block with no files at all: retention must decide from its name, never by opening it. */
    private static BlockRef publishEmpty(FsBlockStore store, TenantId tenant, Signal signal, long min, long max)
            throws IOException {
        try (PendingBlock pending = store.create(tenant, signal)) {
            return pending.publish(BlockName.forRange(min, max, BlockName.newId()));
        }
    }
}
