package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.LiveBlocks;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGKILL while a real server compacts: blocks of 1000 rows are cut under steady ingest and merged
 * every second, the process is killed at random moments (3 trials; {@code -Dneedle.compaction.trials=30}
 * by hand, {@code -Dneedle.compaction.seed} to repeat one run), and after a last start and graceful
 * stop every acknowledged span is in the blocks that answer queries exactly once, counted on disk.
 */
class CompactionCrashTest {

    private static final int TRIALS = Integer.getInteger("needle.compaction.trials", 3);
    private static final long SEED = Long.getLong("needle.compaction.seed", System.nanoTime());
    /** Cut every 1000 rows, compact every second, delete replaced blocks after 500 ms. */
    private static final List<String> ARGS = List.of("--cut-rows", "1000", "--compact-every", "1s",
            "--compact-grace", "500ms", "--max-head-bytes", "64MiB");

    @TempDir
    Path dir;

    @Test
    void sigkill_whileCompacting_everyAcknowledgedSpanOnceInTheBlocksThatAnswer() throws Exception {
        System.out.println("CompactionCrashTest: " + TRIALS + " trials, -Dneedle.compaction.seed=" + SEED);
        Random random = new Random(SEED);
        Path data = dir.resolve("data");
        List<Map<String, Boolean>> sent = new ArrayList<>();
        int killsMidCompaction = 0;
        for (int trial = 0; trial < TRIALS; trial++) {
            try (ChildServer child = ChildServer.start(data, dir.resolve("child-" + trial + ".log"), "512m", ARGS)) {
                Map<String, Boolean> traces = new ConcurrentHashMap<>();
                sent.add(traces);
                CrashTest.Load load = new CrashTest.Load(child.otlp, trial, traces);
                // Counted from the first acknowledgement (a loaded machine may take seconds to give one), past
                // the first pass (one second after the start), into a merge or a deletion.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!traces.containsValue(true) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                assertTrue(traces.containsValue(true), "trial " + trial + ": no request was acknowledged in a minute");
                Thread.sleep(1000 + random.nextInt(2500));
                child.kill();
                load.stop();
            }
            spanIdsAnswered(data);
            FsBlockStore store = FsBlockStore.readOnly(data);
            if (!new LiveBlocks(store).replaced(TenantId.DEFAULT, Signal.SPANS,
                    store.list(TenantId.DEFAULT, Signal.SPANS).stream().map(BlockRef::name).toList()).isEmpty()) {
                killsMidCompaction++;
            }
        }
        try (ChildServer last = ChildServer.start(data, dir.resolve("child-last.log"), "512m", ARGS)) {
            // Its passes finish what the last kill left; under more load, until a compaction is seen.
            Map<String, Boolean> traces = new ConcurrentHashMap<>();
            sent.add(traces);
            CrashTest.Load load = new CrashTest.Load(last.otlp, TRIALS, traces);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (compacted(data) == 0 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            load.stop();
            assertEquals(0, last.stop(), "a graceful stop exits 0:\n" + last.tail());
        }
        Map<String, Integer> spansPerTrace = new HashMap<>();
        spanIdsAnswered(data).forEach((trace, spans) -> spansPerTrace.put(trace.hex(), spans.size()));
        long acknowledged = 0;
        for (Map<String, Boolean> traces : sent) {
            for (var e : traces.entrySet()) {
                int found = spansPerTrace.getOrDefault(e.getKey(), 0);
                if (e.getValue()) {
                    acknowledged++;
                    assertEquals(CrashTest.SPANS_PER_REQUEST, found, "acknowledged trace " + e.getKey());
                } else {
                    assertTrue(found == 0 || found == CrashTest.SPANS_PER_REQUEST, e.getKey() + " is partly stored: " + found);
                }
            }
        }
        long compacted = compacted(data);
        assertTrue(compacted > 0, "no compacted block: the test did not test compaction");
        System.out.println("CompactionCrashTest: " + TRIALS + " kills (" + killsMidCompaction + " left blocks a"
                + " compaction replaced), " + acknowledged + " requests acknowledged, " + compacted + " compacted blocks of "
                + FsBlockStore.readOnly(data).list(TenantId.DEFAULT, Signal.SPANS).size()
                + " at the end, every acknowledged span found exactly once");
    }

    /** The compactor's blocks among the listed span blocks (their ids start with {@code k}). */
    private static long compacted(Path data) throws IOException {
        return FsBlockStore.readOnly(data).list(TenantId.DEFAULT, Signal.SPANS).stream()
                .filter(b -> b.name().id().startsWith("k")).count();
    }

    /**
     * Every (trace, span id) in the span blocks that answer queries (those no listed block replaces),
     * each block read whole; fails on a span in two rows.
     */
    private static Map<Bytes, List<Bytes>> spanIdsAnswered(Path data) throws IOException {
        FsBlockStore store = FsBlockStore.readOnly(data);
        Map<Bytes, List<Bytes>> spans = new HashMap<>();
        try (BufferAllocator allocator = new RootAllocator()) {
            for (TenantId tenant : store.tenants()) {
                for (BlockRef block : new LiveBlocks(store).live(store.list(tenant, Signal.SPANS))) {
                    try (BlockReader reader = BlockReader.open(store, block, allocator)) {
                        assertEquals(null, reader.metaProblem(), block.toString());
                        for (int batch = 0; batch < reader.batchCount(); batch++) {
                            try (VectorSchemaRoot root = reader.readAll(batch)) {
                                FieldVector traceIds = root.getVector(SpanColumns.TRACE_ID);
                                FieldVector spanIds = root.getVector(SpanColumns.SPAN_ID);
                                for (int row = 0; row < root.getRowCount(); row++) {
                                    Bytes trace = Bytes.wrap((byte[]) traceIds.getObject(row));
                                    Bytes span = Bytes.wrap((byte[]) spanIds.getObject(row));
                                    List<Bytes> ids = spans.computeIfAbsent(trace, t -> new ArrayList<>());
                                    assertFalse(ids.contains(span), "span " + trace.hex() + "/" + span.hex()
                                            + " is answered twice (" + block + ")");
                                    ids.add(span);
                                }
                            }
                        }
                    } catch (CorruptBlockException e) {
                        throw new AssertionError(block + " is listed but cannot be read: " + e.getMessage(), e);
                    }
                }
            }
        }
        return spans;
    }
}
