package dev.needle.blocks.store.fs;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.NonWritableChannelException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class FsBlockStoreTest {

    private static final TenantId ACME = TenantId.of("acme");
    private static final TenantId OTHER = TenantId.of("other");
    private static final BlockName NAME = BlockName.forRange(1_000_000_123L, 2_000_000_456L, "b1");

    /** A 3-file block: the files a real block has, with distinct contents. */
    private static final Map<String, byte[]> FILES = new LinkedHashMap<>();

    static {
        FILES.put("data.arrow", "arrow bytes".repeat(1000).getBytes(UTF_8));
        FILES.put("TRACE_IDX", "trace sidecar".getBytes(UTF_8));
        FILES.put("meta.json", "{\"rows\":1}".getBytes(UTF_8));
    }

    @TempDir
    Path tmp;

    @Test
    void publish_thenListOpenRead_givesTheFiles() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef ref = publish(store, ACME, Signal.SPANS, NAME, FILES);

        assertEquals(new BlockRef(ACME, Signal.SPANS, NAME), ref);
        assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(), store.list(ACME, Signal.LOGS));
        assertEquals(List.of(ACME), store.tenants());
        assertEquals(tmp.resolve("acme/spans/" + NAME), store.blockDir(ref));
        assertIntact(store, ref);
        assertEquals(List.of(NAME.toString()), names(tmp.resolve("acme/spans")));
    }

    @Test
    void open_isReadOnly() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef ref = publish(store, ACME, Signal.SPANS, NAME, FILES);
        try (SeekableByteChannel ch = store.open(ref, "meta.json")) {
            assertThrows(NonWritableChannelException.class, () -> ch.write(ByteBuffer.wrap(new byte[1])));
        }
    }

    @Test
    void open_missingFileOrBlock_throwsNoSuchFile() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef ref = publish(store, ACME, Signal.SPANS, NAME, FILES);
        assertThrows(NoSuchFileException.class, () -> store.open(ref, "ATTR_IDX"));
        BlockRef missing = new BlockRef(ACME, Signal.SPANS, BlockName.forRange(0, 0, "nope"));
        assertThrows(NoSuchFileException.class, () -> store.open(missing, "data.arrow"));
    }

    @Test
    void fileNames_withPathsOrOddCharacters_refused() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef ref = publish(store, ACME, Signal.SPANS, NAME, FILES);
        try (PendingBlock pending = store.create(ACME, Signal.SPANS)) {
            for (String bad : new String[] {"", ".", "..", "../x", "a/b", "a\\b", "/etc/passwd", "a\0b", "é"}) {
                assertThrows(IllegalArgumentException.class, () -> pending.create(bad), bad);
                assertThrows(IllegalArgumentException.class, () -> store.open(ref, bad), bad);
            }
        }
    }

    @Test
    void close_withoutPublish_leavesNothing() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        try (PendingBlock pending = store.create(ACME, Signal.LOGS)) {
            write(pending, FILES);
            assertEquals(1, names(tmp.resolve("acme/logs")).size());
        }
        assertEquals(List.of(), names(tmp.resolve("acme/logs")));
        assertEquals(List.of(), store.list(ACME, Signal.LOGS));
    }

    @Test
    void publish_twiceOrAfterClose_refused() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        PendingBlock pending = store.create(ACME, Signal.SPANS);
        pending.publish(NAME);
        assertThrows(IllegalStateException.class, () -> pending.publish(NAME));
        assertThrows(IllegalStateException.class, () -> pending.create("x"));
        pending.close();
        assertEquals(1, store.list(ACME, Signal.SPANS).size());

        PendingBlock closed = store.create(ACME, Signal.SPANS);
        closed.close();
        assertThrows(IllegalStateException.class, () -> closed.publish(BlockName.forRange(0, 0, "x")));
    }

    @Test
    void constructor_staleTmpDirs_removedAtStartup() throws IOException {
        BlockRef kept = publish(new FsBlockStore(tmp), ACME, Signal.SPANS, NAME, FILES);
        Path staging = Files.createDirectories(tmp.resolve("acme/spans/.tmp-abc"));
        Files.write(staging.resolve("data.arrow"), new byte[10]);
        Path deleting = Files.createDirectories(tmp.resolve("other/logs/.tmp-del-xyz/deeper"));
        Path wal = Files.createDirectories(tmp.resolve("wal/.tmp-segment"));

        FsBlockStore store = new FsBlockStore(tmp);

        assertEquals(Set.of(staging, deleting.getParent()), Set.copyOf(store.removedAtStartup()));
        assertFalse(Files.exists(staging));
        assertFalse(Files.exists(deleting.getParent()));
        assertTrue(Files.exists(wal), "wal/ is not a tenant and not the store's to clean");
        assertEquals(List.of(kept), store.list(ACME, Signal.SPANS));
        assertIntact(store, kept);
    }

    @Test
    void constructor_missingRoot_created() throws IOException {
        Path root = tmp.resolve("a/b/data");
        FsBlockStore store = new FsBlockStore(root);
        assertTrue(Files.isDirectory(root));
        assertEquals(root, store.root());
        assertEquals(List.of(), store.tenants());
    }

    @Test
    void delete_publishedBlock_goneFromListAndDisk() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef gone = publish(store, ACME, Signal.SPANS, NAME, FILES);
        BlockRef kept = publish(store, ACME, Signal.SPANS, BlockName.forRange(5, 6, "b2"), FILES);

        store.delete(gone);

        assertEquals(List.of(kept), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(kept.name().toString()), names(tmp.resolve("acme/spans")));
        assertIntact(store, kept);
        store.delete(gone); // deleting a missing block is not an error
    }

    @Test
    void list_otherTenant_neverShowsItsBlocks() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef mine = publish(store, ACME, Signal.SPANS, NAME, FILES);
        BlockRef theirs = publish(store, OTHER, Signal.SPANS, BlockName.forRange(7, 8, "b2"), FILES);

        assertEquals(List.of(mine), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(theirs), store.list(OTHER, Signal.SPANS));
        // The same block name under another tenant is another block.
        assertThrows(NoSuchFileException.class,
                () -> store.open(new BlockRef(ACME, Signal.SPANS, theirs.name()), "meta.json"));
        assertEquals(List.of(ACME, OTHER), store.tenants());
    }

    @Test
    void list_strayEntries_ignored() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef ref = publish(store, ACME, Signal.SPANS, NAME, FILES);
        Files.createDirectories(tmp.resolve("wal/spans"));
        Files.createDirectories(tmp.resolve("bad tenant/spans"));
        Files.createDirectories(tmp.resolve("acme/spans/not-a-block"));
        Files.createDirectories(tmp.resolve("acme/spans/.tmp-zzz"));
        Files.createDirectories(tmp.resolve("empty-tenant"));
        Files.write(tmp.resolve("acme/spans/" + BlockName.forRange(0, 0, "file")), new byte[1]);
        Files.write(tmp.resolve("README"), new byte[1]);

        assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(ACME), store.tenants());
    }

    @Test
    void list_manyBlocks_inTimeOrder() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef late = publish(store, ACME, Signal.LOGS, BlockName.forRange(3_000_000, 4_000_000, "a"), Map.of());
        BlockRef early = publish(store, ACME, Signal.LOGS, BlockName.forRange(-5, 4_000_000, "z"), Map.of());
        BlockRef middle = publish(store, ACME, Signal.LOGS, BlockName.forRange(1_000_000, 9_000_000, "m"), Map.of());
        assertEquals(List.of(early, middle, late), store.list(ACME, Signal.LOGS));
    }

    @Test
    void publish_nameAlreadyPublished_failsCleanly() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        BlockRef first = publish(store, ACME, Signal.SPANS, NAME, FILES);
        try (PendingBlock second = store.create(ACME, Signal.SPANS)) {
            write(second, Map.of("data.arrow", new byte[] {1, 2, 3}));
            FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class, () -> second.publish(NAME));
            assertTrue(e.getMessage().contains("already published"), e.getMessage());
        }
        assertEquals(List.of(first), store.list(ACME, Signal.SPANS));
        assertIntact(store, first);
        assertEquals(List.of(NAME.toString()), names(tmp.resolve("acme/spans")));
    }

    /** Linux's rename(2) silently replaces an empty directory: a block with no files must not be replaced. */
    @Test
    void publish_nameOfEmptyBlock_failsCleanly() throws IOException {
        FsBlockStore store = new FsBlockStore(tmp);
        publish(store, ACME, Signal.SPANS, NAME, Map.of());
        try (PendingBlock second = store.create(ACME, Signal.SPANS)) {
            write(second, FILES);
            assertThrows(FileAlreadyExistsException.class, () -> second.publish(NAME));
        }
        assertEquals(List.of(), names(store.blockDir(new BlockRef(ACME, Signal.SPANS, NAME))));
    }

    /** How an injected failure behaves. */
    enum Fault {
        /** The step fails without doing anything; later steps work. */
        ONCE_BEFORE,
        /** The step does its work, then reports failure (an fsync or rename whose outcome is unknown). */
        ONCE_AFTER,
        /** The step and every later one fail, as when the disk goes away; close() cannot clean up. */
        FROM_THEN_ON
    }

    /**
     * The atomic-publish property: whichever step of publishing fails, readers see the whole block
     * or nothing, and the next start-up leaves no staging directory behind.
     */
    @ParameterizedTest
    @EnumSource(Fault.class)
    void publish_failureAtEveryStep_wholeBlockOrNothing(Fault fault) throws IOException {
        for (int step = 1; ; step++) {
            assertTrue(step < 100, "publishing never completed");
            Path root = tmp.resolve(fault + "-" + step);
            FaultyOps ops = new FaultyOps(fault, step);
            FsBlockStore store = null;
            IOException thrown = null;
            try {
                store = new FsBlockStore(root, ops);
                publish(store, ACME, Signal.SPANS, NAME, FILES);
            } catch (IOException e) {
                thrown = e;
            }
            String context = fault + " at step " + step + " (" + ops.failedStep + ")";
            assertEquals(ops.failedStep != null, thrown != null, context);
            if (thrown != null) {
                assertTrue(causedByInjection(thrown), context + ": " + thrown);
            }

            List<BlockRef> visible = store == null ? List.of() : store.list(ACME, Signal.SPANS);
            assertWholeOrNothing(store, visible, context);

            FsBlockStore next = new FsBlockStore(root);
            try (Stream<Path> all = Files.walk(root)) {
                List<Path> leftovers = all.filter(p -> p.getFileName().toString().startsWith(".tmp-")).toList();
                assertEquals(List.of(), leftovers, context);
            }
            assertEquals(visible, next.list(ACME, Signal.SPANS), context);
            assertWholeOrNothing(next, visible, context);

            if (ops.failedStep == null) {
                assertEquals(1, visible.size(), "a run without failure publishes");
                // The steps that were each failed in turn: docs/DESIGN.md's publish protocol.
                assertEquals(List.of("createDirectories " + root.getFileName(), "createDirectories .tmp-",
                        "newOutputStream data.arrow", "newOutputStream TRACE_IDX", "newOutputStream meta.json",
                        "fsyncFile TRACE_IDX", "fsyncFile data.arrow", "fsyncFile meta.json", "fsyncDir .tmp-",
                        "move .tmp- " + NAME, "fsyncDir spans", "fsyncDir acme", "fsyncDir " + root.getFileName()),
                        ops.log);
                return;
            }
        }
    }

    /** Deleting has the same property: a failure at any step leaves the whole block or none of it. */
    @ParameterizedTest
    @EnumSource(Fault.class)
    void delete_failureAtEveryStep_wholeBlockOrNothing(Fault fault) throws IOException {
        for (int step = 1; ; step++) {
            assertTrue(step < 100, "deleting never completed");
            Path root = tmp.resolve(fault + "-" + step);
            BlockRef ref = publish(new FsBlockStore(root), ACME, Signal.SPANS, NAME, FILES);
            FaultyOps ops = new FaultyOps(fault, step);
            try {
                new FsBlockStore(root, ops).delete(ref);
            } catch (IOException e) {
                assertTrue(causedByInjection(e), e.toString());
            }
            String context = fault + " at step " + step + " (" + ops.failedStep + ")";

            FsBlockStore next = new FsBlockStore(root);
            List<BlockRef> visible = next.list(ACME, Signal.SPANS);
            assertWholeOrNothing(next, visible, context);
            assertEquals(visible.isEmpty() ? List.of() : List.of(NAME.toString()),
                    names(root.resolve("acme/spans")), context);

            if (ops.failedStep == null) {
                assertEquals(List.of(), visible, "a run without failure deletes");
                return;
            }
        }
    }

    private static void assertWholeOrNothing(FsBlockStore store, List<BlockRef> visible, String context)
            throws IOException {
        if (visible.isEmpty()) {
            return;
        }
        assertEquals(List.of(new BlockRef(ACME, Signal.SPANS, NAME)), visible, context);
        assertIntact(store, visible.get(0));
    }

    private static boolean causedByInjection(Throwable t) {
        for (; t != null; t = t.getCause()) {
            if (t instanceof InjectedFault) {
                return true;
            }
        }
        return false;
    }

    private static BlockRef publish(FsBlockStore store, TenantId tenant, Signal signal, BlockName name,
            Map<String, byte[]> files) throws IOException {
        try (PendingBlock pending = store.create(tenant, signal)) {
            write(pending, files);
            return pending.publish(name);
        }
    }

    private static void write(PendingBlock pending, Map<String, byte[]> files) throws IOException {
        for (Map.Entry<String, byte[]> file : files.entrySet()) {
            try (OutputStream out = pending.create(file.getKey())) {
                out.write(file.getValue());
            }
        }
    }

    /** The block holds exactly {@link #FILES}, byte for byte, readable through the store. */
    private static void assertIntact(FsBlockStore store, BlockRef ref) throws IOException {
        assertEquals(new TreeSet<>(FILES.keySet()), new TreeSet<>(names(store.blockDir(ref))), ref.toString());
        for (Map.Entry<String, byte[]> file : FILES.entrySet()) {
            try (SeekableByteChannel ch = store.open(ref, file.getKey())) {
                ByteBuffer buf = ByteBuffer.allocate((int) ch.size());
                while (buf.hasRemaining() && ch.read(buf) >= 0) {
                    // read until full
                }
                assertArrayEquals(file.getValue(), buf.array(), ref + "/" + file.getKey());
            }
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /** The failure a {@link FaultyOps} injects. */
    private static final class InjectedFault extends IOException {
        private static final long serialVersionUID = 1L;

        InjectedFault(String step) {
            super("injected failure at " + step);
        }
    }

    /** Real filesystem operations, with a failure injected at the n-th step (counting from 1). */
    private static final class FaultyOps implements FsOps {

        private final Fault fault;
        private final int failAt;
        private int steps;
        final List<String> log = new ArrayList<>();
        String failedStep;

        FaultyOps(Fault fault, int failAt) {
            this.fault = fault;
            this.failAt = failAt;
        }

        @Override
        public void createDirectories(Path dir) throws IOException {
            step("createDirectories " + dir.getFileName(), () -> FsOps.REAL.createDirectories(dir));
        }

        @Override
        public OutputStream newOutputStream(Path file) throws IOException {
            OutputStream[] out = new OutputStream[1];
            try {
                step("newOutputStream " + file.getFileName(), () -> out[0] = FsOps.REAL.newOutputStream(file));
            } catch (InjectedFault e) {
                if (out[0] != null) {
                    out[0].close();
                }
                throw e;
            }
            return out[0];
        }

        @Override
        public void fsyncFile(Path file) throws IOException {
            step("fsyncFile " + file.getFileName(), () -> FsOps.REAL.fsyncFile(file));
        }

        @Override
        public void fsyncDir(Path dir) throws IOException {
            step("fsyncDir " + dir.getFileName(), () -> FsOps.REAL.fsyncDir(dir));
        }

        @Override
        public void move(Path from, Path to) throws IOException {
            step("move " + from.getFileName() + " " + to.getFileName(), () -> FsOps.REAL.move(from, to));
        }

        @Override
        public void deleteRecursively(Path dir) throws IOException {
            step("deleteRecursively " + dir.getFileName(), () -> FsOps.REAL.deleteRecursively(dir));
        }

        private void step(String name, IoAction action) throws IOException {
            log.add(name.replaceAll("\\.tmp-[0-9a-z]+", ".tmp-"));
            steps++;
            boolean fail = fault == Fault.FROM_THEN_ON ? steps >= failAt : steps == failAt;
            if (!fail) {
                action.run();
                return;
            }
            if (failedStep == null) {
                failedStep = steps + ": " + name;
            }
            if (fault == Fault.ONCE_AFTER) {
                action.run();
            }
            throw new InjectedFault(name);
        }
    }

    private interface IoAction {
        void run() throws IOException;
    }
}
