package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.corpus.cli.GenCommand;
import dev.needle.ingest.RowsOnDisk;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Sustained overload inside a memory budget: a child server with a small heap is sent spans by
 * the load generator as fast as 16 connections can, far past what it can publish. It must
 * answer 429 or 503 rather than grow, never run out of memory, and keep every span it
 * acknowledged, exactly once. CI sends a few hundred thousand spans; by hand, more:
 *
 * <pre>
 * mvn -B -ntp -pl ingest -am verify -Dtest=OverloadSoakTest -Dsurefire.failIfNoSpecifiedTests=false -Dneedle.soak.spans=6000000
 * </pre>
 */
class OverloadSoakTest {

    private static final int SPANS = Integer.getInteger("needle.soak.spans", 150_000);
    private static final String HEAP = System.getProperty("needle.soak.heap", "320m");

    @TempDir
    Path dir;

    @Test
    void overload_isRefusedInsideTheHeap_andEveryAcknowledgedSpanIsKeptOnce() throws Exception {
        Path data = dir.resolve("data");
        Path log = dir.resolve("server.log");
        String out;
        long peakRss;
        AtomicLong peakWhileLoaded = new AtomicLong();
        ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
        try (ChildServer child = ChildServer.start(data, log, HEAP,
                // Hardly a wait for room: with the default 2 s the publisher keeps up with 16 connections, which
                // then wait instead of being refused, and the refusals are what this test is about.
                List.of("--max-head-bytes", "24MiB", "--max-head-wait", "1ms", "--max-request-bytes", "4MiB"))) {
            sampler.scheduleAtFixedRate(() -> peakWhileLoaded.accumulateAndGet(child.peakRssBytes(), Math::max),
                    0, 200, TimeUnit.MILLISECONDS);
            StringWriter stdout = new StringWriter();
            StringWriter stderr = new StringWriter();
            CommandLine gen = new CommandLine(new GenCommand());
            gen.setOut(new PrintWriter(stdout));
            gen.setErr(new PrintWriter(stderr));
            int exit = CompletableFuture.supplyAsync(() -> gen.execute("--spans", Integer.toString(SPANS), "--logs", "0",
                    "--send", "http://" + NeedleServer.hostPort(child.otlp), "--concurrency", "16", "--batch", "2000",
                    "--out", dir.resolve("manifest").toString(), "--json")).get(30, TimeUnit.MINUTES);
            out = stdout.toString();
            assertTrue(exit == 0 || exit == 1, "gen: " + exit + "\n" + stderr + "\n" + out);
            peakRss = child.peakRssBytes();
            assertEquals(0, child.stop(), child.tail());
        } finally {
            sampler.shutdownNow();
        }
        String serverLog = Files.readString(log);
        assertFalse(serverLog.contains("OutOfMemoryError"), "the server ran out of memory:\n" + serverLog);
        long accepted = field(out, "accepted");
        long refusals = field(out, "429", 0) + field(out, "503", 0);
        System.out.printf("OverloadSoakTest: %,d spans sent, %,d accepted, %,d refused with 429/503, heap %s,"
                + " peak RSS %,d MiB%n", SPANS, accepted, refusals, HEAP, Math.max(peakRss, peakWhileLoaded.get()) >> 20);
        assertTrue(refusals > 0, "the load did not overload the server, so this proves nothing:\n" + out);
        assertEquals(accepted, RowsOnDisk.spans(FsBlockStore.readOnly(data), TenantId.DEFAULT), "every acknowledged span is on disk, once");
    }

    private static long field(String json, String name) {
        long value = field(json, name, -1);
        assertTrue(value >= 0, () -> name + " is not in\n" + json);
        return value;
    }

    private static long field(String json, String name, long otherwise) {
        Matcher m = Pattern.compile("\"" + Pattern.quote(name) + "\"\\s*:\\s*(\\d+)").matcher(json);
        return m.find() ? Long.parseLong(m.group(1)) : otherwise;
    }

}
