package dev.needle.blocks.store;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.s3.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The index object on both stores: conditional reads, compare-and-swap writes, and racing writers
 * on two store instances over one directory or one bucket (S3Proxy) losing nothing.
 */
class IndexObjectTest {

    private static final TenantId ACME = TenantId.of("acme");

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void writeIndex_isACompareAndSwap_andReadIndexIsConditional(String kind) throws IOException {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            BlockStore a = stores.get(0);
            BlockStore b = stores.get(1);
            assertEquals(Optional.empty(), a.readIndex(ACME, Signal.SPANS, null));

            String first = a.writeIndex(ACME, Signal.SPANS, "one".getBytes(UTF_8), null);
            assertNotNull(first);
            assertNull(b.writeIndex(ACME, Signal.SPANS, "other".getBytes(UTF_8), null), "create only when there is none");

            IndexObject read = b.readIndex(ACME, Signal.SPANS, null).orElseThrow();
            assertArrayEquals("one".getBytes(UTF_8), read.bytes());
            assertEquals(first, read.token());
            assertTrue(b.readIndex(ACME, Signal.SPANS, first).orElseThrow().unchanged());

            String second = b.writeIndex(ACME, Signal.SPANS, "two".getBytes(UTF_8), first);
            assertNotNull(second);
            assertNull(a.writeIndex(ACME, Signal.SPANS, "stale".getBytes(UTF_8), first), "the token moved on");
            IndexObject changed = a.readIndex(ACME, Signal.SPANS, first).orElseThrow();
            assertArrayEquals("two".getBytes(UTF_8), changed.bytes());
            assertEquals(second, changed.token());

            assertEquals(Optional.empty(), a.readIndex(ACME, Signal.LOGS, null), "one index per signal");
            assertEquals(List.of(), a.list(ACME, Signal.SPANS), "the index is never taken for a block");
            assertEquals(List.of(ACME), a.tenants());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fs", "s3"})
    void racingWriters_onTwoStores_loseNoWrite(String kind) throws Exception {
        try (TwoStores stores = TwoStores.open(kind, dir, server)) {
            int writers = 4;
            int each = 10;
            ExecutorService pool = Executors.newFixedThreadPool(writers);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int w = 0; w < writers; w++) {
                    BlockStore store = stores.get(w % 2);
                    int writer = w;
                    done.add(pool.submit(() -> {
                        for (int i = 0; i < each; i++) {
                            appendLine(store, writer + "-" + i);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdown();
            }
            TreeSet<String> lines = new TreeSet<>(Arrays.asList(
                    new String(stores.get(0).readIndex(ACME, Signal.SPANS, null).orElseThrow().bytes(), UTF_8).split("\n")));
            lines.remove("");
            assertEquals(writers * each, lines.size(), lines.toString());
        }
    }

    /** Read, add a line, write if unchanged; again when another writer was first. */
    private static void appendLine(BlockStore store, String line) throws IOException {
        while (true) {
            Optional<IndexObject> read = store.readIndex(ACME, Signal.SPANS, null);
            String text = read.map(o -> new String(o.bytes(), UTF_8)).orElse("") + line + "\n";
            if (store.writeIndex(ACME, Signal.SPANS, text.getBytes(UTF_8), read.map(IndexObject::token).orElse(null))
                    != null) {
                return;
            }
        }
    }

    @Test
    void fsWriteIndex_keepsOnlyTheCurrentVersion_andAReadOnlyStoreRefuses() throws IOException {
        FsBlockStore store = new FsBlockStore(dir.resolve("data"));
        String token = null;
        for (int i = 0; i < 3; i++) {
            token = store.writeIndex(ACME, Signal.LOGS, new byte[] {(byte) i}, token);
        }
        Path signalDir = dir.resolve("data/acme/logs");
        Files.writeString(signalDir.resolve(".index-leftover"), "a crash left this");
        token = store.writeIndex(ACME, Signal.LOGS, new byte[] {9}, token);
        try (Stream<Path> files = Files.list(signalDir)) {
            assertEquals(List.of(token, ".index.lock", "INDEX"),
                    files.map(f -> f.getFileName().toString()).sorted().toList());
        }
        FsBlockStore readOnly = FsBlockStore.readOnly(dir.resolve("data"));
        assertArrayEquals(new byte[] {9}, readOnly.readIndex(ACME, Signal.LOGS, null).orElseThrow().bytes());
        String current = token;
        assertThrows(UnsupportedOperationException.class,
                () -> readOnly.writeIndex(ACME, Signal.LOGS, new byte[0], current));
    }
}
