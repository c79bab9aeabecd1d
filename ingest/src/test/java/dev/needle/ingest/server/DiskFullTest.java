package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.RowsOnDisk;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A full disk on a real small filesystem: a tmpfs of a few MiB mounted for the test (which takes
 * root; elsewhere the test is skipped, saying why). The write-ahead log and the block publisher
 * hit ENOSPC for real: ingest answers 503 with Retry-After, keeps everything it acknowledged,
 * shows no half block, and takes data again by itself once space is free.
 */
class DiskFullTest {

    private static final int SPANS_PER_REQUEST = 20;
    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 256L << 10);

    @TempDir
    Path dir;
    private Path mount;
    private boolean mounted;

    @BeforeEach
    void mountSmallFilesystem() throws Exception {
        mount = dir.resolve("small");
        Files.createDirectories(mount);
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mount.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        mounted = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        assumeTrue(mounted, "a tmpfs cannot be mounted here (it takes root): " + out.strip());
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            new ProcessBuilder("umount", "-l", mount.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void diskFull_ingestAnswers503_keepsWhatItAcknowledged_andResumesOnceSpaceIsFree() throws Exception {
        Path data = mount.resolve("data");
        Path filler = mount.resolve("filler");
        List<String> acknowledged = new ArrayList<>();
        int trace = 0;
        try (NeedleServer server = NeedleServer.start(NeedleServer.Config.DEFAULTS.withData(data).withPorts(0, 0)
                .withLimits(NO_AGE_CUTS))) {
            fill(filler);
            try (FileChannel ch = FileChannel.open(filler, StandardOpenOption.WRITE)) {
                ch.truncate(ch.size() - (1 << 20));
            }
            HttpResponse<byte[]> refused = null;
            while (refused == null) {
                String id = Spans.traceHex(9, trace++);
                HttpResponse<byte[]> response = post(server, id);
                if (response.statusCode() == 200) {
                    acknowledged.add(id);
                } else {
                    refused = response;
                }
            }
            assertEquals(503, refused.statusCode(), Http.text(refused));
            assertTrue(refused.headers().firstValue("Retry-After").isPresent());
            assertTrue(Http.text(refused).contains("No space left on device"), Http.text(refused));
            int beforeFull = acknowledged.size();
            assertTrue(beforeFull > 0, "the last MiB took some requests before the disk was full");

            Files.delete(filler);
            for (int i = 0; i < 10; i++) {
                String id = Spans.traceHex(9, trace++);
                assertEquals(200, post(server, id).statusCode(), "ingest resumes by itself once space is free");
                acknowledged.add(id);
            }
            assertEquals(acknowledged.size() * SPANS_PER_REQUEST, server.pipeline().head().rows());

            fill(filler);
            assertThrows(IOException.class, () -> server.pipeline().cutAndPublish(), "publishing hits the full disk");
            assertEquals(List.of(), FsBlockStore.readOnly(data).list(TenantId.DEFAULT, Signal.SPANS), "no half block");
            assertEquals(acknowledged.size() * SPANS_PER_REQUEST, server.pipeline().head().rows(), "the head keeps it all");
            for (String t : acknowledged) {
                assertEquals(SPANS_PER_REQUEST, Http.trace(server.queryAddress(), t).spans().size(), t);
            }

            Files.delete(filler);
            server.pipeline().cutAndPublish();
            assertEquals(0, server.pipeline().head().rows());
        }
        assertEquals(acknowledged.size() * (long) SPANS_PER_REQUEST, RowsOnDisk.spans(FsBlockStore.readOnly(data), TenantId.DEFAULT), "every acknowledged span, once");
    }

    private static HttpResponse<byte[]> post(NeedleServer server, String traceHex) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        List<SpanRecord> spans = Spans.of(traceHex, SPANS_PER_REQUEST);
        OtlpJson.encodeSpans(spans, body);
        return Http.post(server.otlpAddress(), "/v1/traces", "application/json", body.toByteArray());
    }

    /** Writes {@code file} until the filesystem has no space left. */
    private static void fill(Path file) throws IOException {
        byte[] chunk = new byte[64 << 10];
        try (OutputStream out = Files.newOutputStream(file, StandardOpenOption.CREATE_NEW)) {
            while (true) {
                out.write(chunk);
            }
        } catch (IOException e) {
            if (!String.valueOf(e.getMessage()).contains("No space left")) {
                throw e;
            }
        }
    }

}
