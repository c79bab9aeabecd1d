package dev.needle.ingest.wal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The write-ahead log on real files: durability order, group commit, torn tails, checkpoints. */
class WriteAheadLogTest {

    @TempDir
    Path dir;

    private final List<WalEntry> durable = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger fsyncs = new AtomicInteger();

    private WriteAheadLog.Recovery<Void> open(long segmentBytes) throws IOException {
        return WriteAheadLog.<Void>open(dir, segmentBytes, 64 << 20, (entries, attachments) -> durable.addAll(entries), nanos -> fsyncs.incrementAndGet());
    }

    /** Appends the whole of {@code payload}. */
    private static CompletableFuture<WalEntry> append(WriteAheadLog<Void> log, Signal signal, TenantId tenant, byte[] payload)
            throws WalFullException {
        return log.append(signal, tenant, payload, payload.length, null);
    }

    /** The bytes {@code entry} takes in a segment. */
    private static int encodedBytes(WalEntry entry) {
        int bytes = 0;
        for (ByteBuffer part : WalSegmentFormat.encode(entry)) {
            bytes += part.remaining();
        }
        return bytes;
    }

        private static byte[] payload(int i) {
        byte[] b = new byte[100 + i % 50];
        b[0] = (byte) i;
        b[b.length - 1] = (byte) (i >> 8);
        return b;
    }

    @Test
    void append_thenReopen_replaysEveryEntryInOrder() throws Exception {
        WriteAheadLog<Void> log = open(4096).log();
        List<CompletableFuture<WalEntry>> futures = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            futures.add(append(log, i % 2 == 0 ? Signal.SPANS : Signal.LOGS, TenantId.of("t" + i % 3), payload(i)));
        }
        for (int i = 0; i < futures.size(); i++) {
            assertEquals(i + 1, futures.get(i).get().sequence());
        }
        assertEquals(300, durable.size());
        log.close();

        WriteAheadLog.Recovery<Void> again = open(4096);
        assertEquals(300, again.entries().size());
        for (int i = 0; i < 300; i++) {
            WalEntry e = again.entries().get(i);
            assertEquals(i + 1, e.sequence());
            assertEquals(TenantId.of("t" + i % 3), e.tenant());
            assertArrayEquals(payload(i), e.payload());
        }
        assertEquals(301, append(again.log(), Signal.SPANS, TenantId.DEFAULT, payload(1)).get().sequence());
        again.log().close();
    }

    /** A receiver appends the first bytes of its buffer and, once the append completed, overwrites the whole buffer. */
    @Test
    void append_fromTheStartOfAReusedBuffer_logsThoseBytesOnly() throws Exception {
        WriteAheadLog<Void> log = open(4096).log();
        byte[] buffer = new byte[1000];
        for (int i = 0; i < 50; i++) {
            Arrays.fill(buffer, (byte) 0x55);
            byte[] payload = payload(i);
            System.arraycopy(payload, 0, buffer, 0, payload.length);
            assertEquals(i + 1, log.append(Signal.SPANS, TenantId.DEFAULT, buffer, payload.length, null).get().sequence());
            assertEquals(payload.length, durable.get(i).payloadLength());
            Arrays.fill(buffer, (byte) i);
        }
        log.close();
        assertEquals(0, log.pendingBytes());

        WriteAheadLog.Recovery<Void> again = open(4096);
        assertEquals(50, again.entries().size());
        for (int i = 0; i < 50; i++) {
            assertArrayEquals(payload(i), again.entries().get(i).payload(), "entry " + (i + 1));
        }
        again.log().close();
    }

    @Test
    void append_concurrently_sharesFsyncs() throws Exception {
        WriteAheadLog<Void> log = open(1 << 20).log();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            Thread thread = new Thread(() -> {
                try {
                    for (int i = 0; i < 100; i++) {
                        append(log, Signal.SPANS, TenantId.DEFAULT, payload(i)).get();
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            thread.start();
            threads.add(thread);
        }
        for (Thread t : threads) {
            t.join();
        }
        log.close();
        assertEquals(800, durable.size());
        assertTrue(fsyncs.get() < 800, "800 appends took " + fsyncs.get() + " fsyncs");
        for (int i = 0; i < durable.size(); i++) {
            assertEquals(i + 1, durable.get(i).sequence(), "the listener sees sequence order");
        }
    }

    @Test
    void open_afterTruncationsOfTheLastSegment_keepsEveryWholeEntry() throws Exception {
        WriteAheadLog<Void> log = open(1 << 20).log();
        for (int i = 0; i < 5; i++) {
            append(log, Signal.SPANS, TenantId.DEFAULT, payload(i)).get();
        }
        log.close();
        Path segment;
        try (var files = Files.list(dir)) {
            segment = files.filter(f -> f.toString().endsWith(".wal")).findFirst().orElseThrow();
        }
        byte[] whole = Files.readAllBytes(segment);
        List<Integer> ends = new ArrayList<>();
        int at = WalSegmentFormat.HEADER_BYTES;
        for (int i = 0; i < 5; i++) {
            at += encodedBytes(new WalEntry(i + 1, Signal.SPANS, TenantId.DEFAULT, payload(i)));
            ends.add(at);
        }
        for (int length = 0; length < whole.length; length++) {
            int l = length;
            boolean nearBoundary = l < 12 || ends.stream().anyMatch(e -> Math.abs(e - l) <= 9);
            if (!nearBoundary && l % 13 != 0) {
                continue;
            }
            Files.write(segment, java.util.Arrays.copyOf(whole, length));
            WriteAheadLog.Recovery<Void> r = open(1 << 20);
            int kept = 0;
            for (int e : ends) {
                if (e <= length) {
                    kept++;
                }
            }
            assertEquals(kept, r.entries().size(), "truncated to " + length);
            long next = append(r.log(), Signal.SPANS, TenantId.DEFAULT, payload(9)).get().sequence();
            assertEquals(kept + 1, next, "after truncation to " + length);
            r.log().close();
            try (var files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    if (f.toString().endsWith(".wal") && !f.equals(segment)) {
                        Files.delete(f);
                    }
                }
            }
        }
    }

    @Test
    void open_withBitFlipInTheTail_cutsThereAndKeepsTheRest() throws Exception {
        WriteAheadLog<Void> log = open(1 << 20).log();
        for (int i = 0; i < 4; i++) {
            append(log, Signal.LOGS, TenantId.DEFAULT, payload(i)).get();
        }
        log.close();
        Path segment;
        try (var files = Files.list(dir)) {
            segment = files.filter(f -> f.toString().endsWith(".wal")).findFirst().orElseThrow();
        }
        byte[] bytes = Files.readAllBytes(segment);
        bytes[bytes.length - 10] ^= 1;
        Files.write(segment, bytes);
        WriteAheadLog.Recovery<Void> r = open(1 << 20);
        assertEquals(3, r.entries().size());
        r.log().close();
    }

    @Test
    void open_withADamagedSegmentBeforeTheTail_keepsWhatIsBeforeTheDamageAndEveryLaterSegment() throws Exception {
        WriteAheadLog<Void> log = open(1024).log();
        for (int i = 0; i < 30; i++) {
            append(log, Signal.SPANS, TenantId.DEFAULT, payload(i)).get();
        }
        log.close();
        List<Path> segments;
        try (var files = Files.list(dir)) {
            segments = files.filter(f -> f.toString().endsWith(".wal")).sorted().toList();
        }
        assertTrue(segments.size() >= 4, "segments: " + segments);
        Path damaged = segments.get(1);
        byte[] original = Files.readAllBytes(damaged);
        int firstOfDamaged = entriesIn(segments.get(0)) + 1;
        int inDamaged = entriesIn(damaged);
        byte[] flipped = original.clone();
        int secondEntry = WalSegmentFormat.HEADER_BYTES
                + encodedBytes(new WalEntry(firstOfDamaged, Signal.SPANS, TenantId.DEFAULT, payload(firstOfDamaged - 1)));
        flipped[secondEntry + 20] ^= 4;
        Files.write(damaged, flipped);

        WriteAheadLog.Recovery<Void> r = open(1024);

        List<Long> replayed = r.entries().stream().map(WalEntry::sequence).toList();
        List<Long> expected = new ArrayList<>();
        for (long q = 1; q <= 30; q++) {
            if (q < firstOfDamaged + 1 || q >= firstOfDamaged + inDamaged) {
                expected.add(q);
            }
        }
        assertEquals(expected, replayed, "only the damaged segment's entries after the damage are dropped");
        assertEquals(1, r.problems().size(), r.problems().toString());
        assertTrue(r.problems().get(0).startsWith(damaged.getFileName().toString()), r.problems().get(0));
        Path copy = dir.resolve(WriteAheadLog.DAMAGED).resolve(damaged.getFileName());
        assertTrue(r.problems().get(0).contains("kept in " + dir.relativize(copy)), r.problems().get(0));
        assertArrayEquals(flipped, Files.readAllBytes(copy), "the damaged segment is kept as it was found");
        assertEquals(31, append(r.log(), Signal.SPANS, TenantId.DEFAULT, payload(31)).get().sequence());
        r.log().close();
    }

    private static int entriesIn(Path segment) throws IOException {
        try (FileChannel ch = FileChannel.open(segment)) {
            return WalSegmentFormat.read(ch).entries().size();
        }
    }

    @Test
    void checkpoint_deletesCoveredSegmentsAndReplaysOnlyTheRest() throws Exception {
        WriteAheadLog<Void> log = open(1024).log();
        for (int i = 0; i < 100; i++) {
            append(log, Signal.SPANS, TenantId.DEFAULT, payload(i)).get();
        }
        long before = log.bytesOnDisk();
        log.checkpoint(60);
        assertTrue(log.bytesOnDisk() < before);
        for (int i = 0; i < 10; i++) {
            append(log, Signal.SPANS, TenantId.DEFAULT, payload(i)).get();
        }
        log.close();
        WriteAheadLog.Recovery<Void> r = open(1024);
        assertEquals(50, r.entries().size());
        assertEquals(61, r.entries().get(0).sequence());
        r.log().checkpoint(110);
        r.log().close();
        assertEquals(0, open(1024).entries().size());
    }

    @Test
    void open_unreadableCheckpoint_replaysEverything() throws Exception {
        WriteAheadLog<Void> log = open(1 << 20).log();
        for (int i = 0; i < 3; i++) {
            append(log, Signal.SPANS, TenantId.DEFAULT, payload(i)).get();
        }
        log.checkpoint(2);
        log.close();
        Files.writeString(dir.resolve("checkpoint"), "garbage");
        WriteAheadLog.Recovery<Void> r = open(1 << 20);
        assertEquals(List.of(1L, 2L, 3L), r.entries().stream().map(WalEntry::sequence).toList(),
                "an unreadable checkpoint counts as none: every entry is replayed");
        r.log().close();
    }

    @Test
    void append_afterClose_failsAtOnce() throws Exception {
        WriteAheadLog<Void> log = open(1 << 20).log();
        append(log, Signal.SPANS, TenantId.DEFAULT, payload(1)).get();
        log.close();
        CompletableFuture<WalEntry> late = append(log, Signal.SPANS, TenantId.DEFAULT, payload(2));
        ExecutionException e = assertThrows(ExecutionException.class, () -> late.get(5, TimeUnit.SECONDS));
        assertEquals("the write-ahead log is closed", e.getCause().getMessage());
        assertEquals(0, log.pendingBytes());
    }

    @Test
    void append_overTheBacklogBound_isRefused() throws Exception {
        // The writer is held in its first batch's callback until the refusal is seen: the entry's bytes count as
        // waiting until its callback returns, so the backlog cannot drain before the second append.
        CountDownLatch release = new CountDownLatch(1);
        WriteAheadLog.Recovery<Void> r = WriteAheadLog.<Void>open(dir, 1 << 20, 1000, (entries, attachments) -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, nanos -> { });
        WriteAheadLog<Void> log = r.log();
        CompletableFuture<WalEntry> first = append(log, Signal.SPANS, TenantId.DEFAULT, new byte[600]);
        WalFullException refused = assertThrows(WalFullException.class,
                () -> append(log, Signal.SPANS, TenantId.DEFAULT, new byte[600]));
        assertEquals("the write-ahead log has 600 bytes waiting for fsync, above its bound of 1000", refused.getMessage());
        release.countDown();
        first.get(30, TimeUnit.SECONDS);
        log.close();
    }

    @Test
    void anErrorWhileWriting_failsTheWaitingAppend_refusesEveryLaterOne_andSaysWhyItIsBroken() throws Exception {
        // The head, out of memory while it takes the records: no later batch can mend that.
        WriteAheadLog<Void> log = WriteAheadLog.<Void>open(dir, 1 << 20, 64 << 20, (entries, attachments) -> {
            throw new OutOfMemoryError("Java heap space");
        }, nanos -> { }).log();
        assertEquals(null, log.broken());
        CompletableFuture<WalEntry> first = append(log, Signal.SPANS, TenantId.DEFAULT, payload(1));
        ExecutionException e = assertThrows(ExecutionException.class, () -> first.get(5, TimeUnit.SECONDS));
        assertInstanceOf(OutOfMemoryError.class, e.getCause().getCause());
        assertTrue(log.broken().getMessage().contains("Java heap space"), log.broken().getMessage());
        WalFullException refused = assertThrows(WalFullException.class,
                () -> append(log, Signal.SPANS, TenantId.DEFAULT, payload(2)));
        assertTrue(refused.getMessage().startsWith("the write-ahead log cannot be written"), refused.getMessage());
        log.close();
    }
}
