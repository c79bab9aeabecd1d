package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Location;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.ingest.IngestLimits;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ReadChannel;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.apache.arrow.vector.ipc.message.ArrowRecordBatch;
import org.apache.arrow.vector.ipc.message.MessageSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The server with its blocks in a bucket of S3Proxy, credentials from the SDK's default chain (its
 * system properties here): a block published by one server is answered by another that shares only
 * the bucket, retention deletes from the bucket, a missing bucket stops the start saying so, and
 * blocks are published ZSTD-compressed on a bucket and uncompressed in a directory unless asked.
 */
class S3ServeTest {

    private static final IngestLimits NO_AGE_CUTS = new IngestLimits(300_000, 300_000, 256L << 20,
            Duration.ofHours(1), 1L << 30, 256L << 20, 64L << 20);

    /** Arrow's codec bytes of a record batch's body compression (CompressionUtil.CodecType). */
    private static final byte NONE = -1;
    private static final byte ZSTD = 1;

    @RegisterExtension
    static final S3ProxyServer s3 = S3ProxyServer.perClassAsDefaultCredentials();

    @TempDir
    Path dir;

    private ServerConfig config(Path data, String bucket) {
        return ServerConfig.DEFAULTS.withData(data).withPorts(0, 0).withLimits(NO_AGE_CUTS)
                .withS3(S3Location.parse("s3://" + bucket + "/needle", s3.endpoint(), true));
    }

    @Test
    void blocksPublishedByOneServer_answeredByAnotherOnTheSameBucket() throws Exception {
        s3.createBucket("shared");
        try (NeedleServer ingest = NeedleServer.start(config(dir.resolve("a"), "shared"))) {
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(Spans.traceHex(7, 1), 3)));
        }
        try (S3BlockStore store = new S3BlockStore(s3.client(), "shared", "needle", dir.resolve("check"),
                Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE)) {
            assertEquals(1, store.list(TenantId.DEFAULT, Signal.SPANS).size());
        }
        try (Stream<Path> local = Files.list(dir.resolve("a"))) {
            assertEquals(Stream.of("s3-staging", "wal").toList(), local.map(p -> p.getFileName().toString()).sorted().toList(),
                    "no block is kept in the data directory");
        }
        try (NeedleServer query = NeedleServer.start(config(dir.resolve("b"), "shared"))) {
            assertEquals(200, Http.get(query.queryAddress(), "/api/v2/traces/" + Spans.traceHex(7, 1)).statusCode());
            assertEquals(404, Http.get(query.queryAddress(), "/api/v2/traces/" + Spans.traceHex(7, 2)).statusCode());
        }
    }

    @Test
    void compression_zstdOnABucketNoneInADirectory_unlessAsked() throws Exception {
        s3.createBucket("compressed");
        s3.createBucket("plain");
        assertEquals(ZSTD, publishedCodec(config(dir.resolve("a"), "compressed")));
        assertEquals(NONE, publishedCodec(config(dir.resolve("b"), "plain").withCompression(BlockWriter.Codec.NONE)));
        ServerConfig local = ServerConfig.DEFAULTS.withData(dir.resolve("c")).withPorts(0, 0)
                .withLimits(NO_AGE_CUTS);
        assertEquals(NONE, publishedCodec(local));
        assertEquals(ZSTD, publishedCodec(local.withData(dir.resolve("d")).withCompression(BlockWriter.Codec.ZSTD)));
    }

    /** The body compression of the one span block a server with {@code config} publishes, as data.arrow's first batch names it. */
    private static byte publishedCodec(ServerConfig config) throws IOException {
        Files.createDirectories(config.storage().data());
        try (NeedleServer server = NeedleServer.start(config)) {
            assertEquals(200, Http.postSpans(server.otlpAddress(), Spans.of(Spans.traceHex(9, 1), 3)));
            server.pipeline().cutAndPublish();
            BlockRef block = server.store().list(TenantId.DEFAULT, Signal.SPANS).get(0);
            try (BufferAllocator allocator = new RootAllocator();
                 SeekableByteChannel data = server.store().open(block, BlockLayout.DATA);
                 ArrowFileReader reader = new ArrowFileReader(data, allocator)) {
                ArrowBlock first = reader.getRecordBlocks().get(0);
                data.position(first.getOffset());
                try (ArrowRecordBatch batch = MessageSerializer.deserializeRecordBatch(new ReadChannel(data), first, allocator)) {
                    return batch.getBodyCompression().getCodec();
                }
            }
        }
    }

    @Test
    void retention_deletesTheBlockFromTheBucket() throws Exception {
        s3.createBucket("retained");
        try (NeedleServer ingest = NeedleServer.start(config(dir.resolve("a"), "retained"))) {
            assertEquals(200, Http.postSpans(ingest.otlpAddress(), Spans.of(Spans.traceHex(8, 1), 3)));
        }
        // The test spans are from 2025-11-29: older than a day whenever this runs.
        ServerConfig withRetention = config(dir.resolve("a"), "retained").withRetention(Duration.ofDays(1));
        try (NeedleServer server = NeedleServer.start(withRetention)) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (!server.store().list(TenantId.DEFAULT, Signal.SPANS).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(List.of(), server.store().list(TenantId.DEFAULT, Signal.SPANS));
            // The query side moves on at its next poll of the index (1 s), not at the delete.
            String trace = "/api/v2/traces/" + Spans.traceHex(8, 1);
            while (Http.get(server.queryAddress(), trace).statusCode() != 404 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(404, Http.get(server.queryAddress(), trace).statusCode());
        }
        try (S3Client raw = s3.client()) {
            assertEquals(List.of("needle/" + TenantId.DEFAULT.value() + "/spans/INDEX"), raw.listObjectsV2(b -> b.bucket("retained"))
                    .contents().stream().map(S3Object::key).toList(), "every object of the block is gone; the index remains");
        }
    }

    @Test
    void missingBucket_startFailsSayingSo() {
        IOException e = assertThrows(IOException.class, () -> NeedleServer.start(config(dir, "absent")));
        assertTrue(e.getMessage().contains("bucket 'absent' does not exist"), e.getMessage());
    }
}
