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
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FsBlockStore#readOnly}: sees what a writing store published and changes nothing on disk. */
class FsBlockStoreReadOnlyTest {

    private static final TenantId ACME = TenantId.of("acme");
    private static final BlockName NAME = BlockName.forRange(1_000_000_123L, 2_000_000_456L, "b1");
    private static final byte[] META = "{\"rows\":1}".getBytes(UTF_8);

    @TempDir
    Path tmp;

    @Test
    void readOnly_tmpDirOfARunningWriter_isListedAndLeftInPlace() throws IOException {
        Path staging = Files.createDirectories(tmp.resolve("acme/spans/.tmp-abc"));
        Files.write(staging.resolve("data.arrow"), META);

        FsBlockStore store = FsBlockStore.readOnly(tmp);

        assertEquals(List.of(), store.removedAtStartup());
        assertEquals(List.of(staging), store.tmpDirs(ACME, Signal.SPANS));
        assertTrue(Files.exists(staging.resolve("data.arrow")));
        // The writing store, by contrast, sweeps it: the difference is the point.
        assertEquals(List.of(staging), new FsBlockStore(tmp).removedAtStartup());
        assertFalse(Files.exists(staging));
    }

    @Test
    void readOnly_missingRoot_isNotCreated() throws IOException {
        Path root = tmp.resolve("absent");
        FsBlockStore store = FsBlockStore.readOnly(root);
        assertEquals(List.of(), store.tenants());
        assertEquals(List.of(), store.list(ACME, Signal.SPANS));
        assertFalse(Files.exists(root));
    }

    @Test
    void readOnly_publishedBlock_isListedAndReadable() throws IOException {
        BlockRef ref = publish();
        FsBlockStore store = FsBlockStore.readOnly(tmp);
        assertEquals(List.of(ACME), store.tenants());
        assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
        try (InputStream in = Channels.newInputStream(store.open(ref, "meta.json"))) {
            assertArrayEquals(META, in.readAllBytes());
        }
    }

    @Test
    void readOnly_createAndDelete_throwAndChangeNothing() throws IOException {
        BlockRef ref = publish();
        FsBlockStore store = FsBlockStore.readOnly(tmp);
        assertThrows(UnsupportedOperationException.class, () -> store.create(ACME, Signal.SPANS));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class, () -> store.delete(ref));
        assertTrue(e.getMessage().contains("read-only"), e.getMessage());
        assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
        assertEquals(List.of(), store.tmpDirs(ACME, Signal.SPANS));
    }

    private BlockRef publish() throws IOException {
        try (PendingBlock pending = new FsBlockStore(tmp).create(ACME, Signal.SPANS)) {
            try (OutputStream out = pending.create("meta.json")) {
                out.write(META);
            }
            return pending.publish(NAME);
        }
    }
}
