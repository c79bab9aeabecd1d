package dev.needle.blocks.store.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Fault;
import dev.needle.testkit.FaultProxy.Injection;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@link S3BlockStore} behind a {@link FaultProxy}: a read either gives every byte it asked for or
 * fails naming the object (after the SDK's retries of 5xx and timeouts, and one more GET for a body
 * cut short), and a failed upload leaves nothing visible and can be retried.
 */
class S3StoreFaultsTest {

    private static final TenantId ACME = TenantId.of("acme");
    /** Short, so that a hanging request fails in a fraction of a second. */
    private static final S3Timeouts SHORT = new S3Timeouts(Duration.ofSeconds(2), Duration.ofMillis(300),
            Duration.ofSeconds(5));
    private static final byte[] DATA = new byte[2 * S3ReadChannel.READ_AHEAD + 17];

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private static int buckets;

    @TempDir
    Path staging;
    private FaultProxy proxy;
    private S3BlockStore store;
    private String bucket;

    @BeforeAll
    static void startServer() throws Exception {
        new Random(5).nextBytes(DATA);
    }

    @BeforeEach
    void open() throws IOException {
        proxy = FaultProxy.start(server.endpoint());
        bucket = server.createBucket("faults-" + ++buckets);
        S3Client client = S3Clients.builder(proxy.endpoint(), true, SHORT).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .build();
        store = new S3BlockStore(client, bucket, "p", staging, Clock.systemUTC(), S3BlockStore.DEFAULT_SWEEP_GRACE);
    }

    @AfterEach
    void close() throws IOException {
        store.close();
        proxy.close();
    }

    @Test
    void read_5xxForTwoAttempts_retriedByTheSdk_givesTheBytes() throws IOException {
        BlockRef ref = publish("b1");
        Injection failing = proxy.inject(Fault.status(500).on("GET", "/data\\.arrow").times(2));
        assertArrayEquals(DATA, readAll(ref));
        assertEquals(2, failing.hits());
    }

    @Test
    void read_5xxOnEveryAttempt_failsNamingTheObject() throws IOException {
        BlockRef ref = publish("b1");
        Injection failing = proxy.inject(Fault.status(500).on("GET", "/data\\.arrow"));
        IOException e = assertThrows(IOException.class, () -> readAll(ref));
        assertTrue(e.getMessage().startsWith("GET s3://" + bucket + "/p/" + ref + "/data.arrow bytes "), e.getMessage());
        assertTrue(e.getMessage().contains("500"), e.getMessage());
        assertEquals(3, failing.hits(), "the SDK's standard strategy: 3 attempts");
    }

    @Test
    void read_hanging_failsAfterTheTimeoutsNamingTheObject() throws IOException {
        BlockRef ref = publish("b1");
        proxy.inject(Fault.hang().on("GET", "/data\\.arrow"));
        IOException e = assertThrows(IOException.class, () -> readAll(ref));
        assertTrue(e.getMessage().contains(ref + "/data.arrow"), e.getMessage());
        proxy.heal();
        assertArrayEquals(DATA, readAll(ref));
    }

    @Test
    void read_bodyCutShortOnce_askedAgain_givesTheBytes() throws IOException {
        BlockRef ref = publish("b1");
        Injection cutting = proxy.inject(Fault.truncate().on("GET", "/data\\.arrow").times(1));
        assertArrayEquals(DATA, readAll(ref));
        assertEquals(1, cutting.hits());
    }

    /** Every read, at any offset and length, fails; none returns a byte it was not sent. */
    @Test
    void read_bodyCutShortEveryTime_failsAndNeverReturnsTooFewBytes() throws IOException {
        BlockRef ref = publish("b1");
        try (SeekableByteChannel ch = store.open(ref, "data.arrow")) {
            proxy.inject(Fault.truncate().on("GET", "/data\\.arrow"));
            IOException opening = assertThrows(IOException.class, () -> store.open(ref, "data.arrow"));
            assertTrue(opening.getMessage().contains("failed: returned "), opening.getMessage());
            // The last READ_AHEAD bytes came with the opening GET; the reads before them are GETs of their own.
            for (int[] range : new int[][] {{0, 8}, {100, 3 * S3ReadChannel.READ_AHEAD / 2}, {S3ReadChannel.READ_AHEAD, 1}}) {
                ch.position(range[0]);
                ByteBuffer buffer = ByteBuffer.allocate(range[1]);
                IOException e = assertThrows(IOException.class, () -> ch.read(buffer));
                assertTrue(e.getMessage().contains("failed: returned ") || e.getMessage().contains("broke off"),
                        e.getMessage());
                assertEquals(0, buffer.position(), "nothing was read");
            }
        }
    }

    @Test
    void publish_putFailing_leavesNothingVisible_andSucceedsOnceHealed() throws IOException {
        proxy.inject(Fault.status(500).on("PUT", "/TRACE_IDX").times(3));
        try (PendingBlock pending = stage()) {
            IOException e = assertThrows(IOException.class, () -> pending.publish(name("b1")));
            assertTrue(e.getMessage().startsWith("PUT s3://" + bucket + "/p/acme/spans/"), e.getMessage());
            assertEquals(List.of(), store.list(ACME, Signal.SPANS));
            BlockRef ref = pending.publish(name("b1"));
            assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
            assertArrayEquals(DATA, readAll(ref));
        }
    }

    private BlockRef publish(String id) throws IOException {
        try (PendingBlock pending = stage()) {
            return pending.publish(name(id));
        }
    }

    private PendingBlock stage() throws IOException {
        PendingBlock pending = store.create(ACME, Signal.SPANS);
        try (OutputStream out = pending.create("data.arrow")) {
            out.write(DATA);
        }
        try (OutputStream out = pending.create("TRACE_IDX")) {
            out.write("sidecar".getBytes(UTF_8));
        }
        try (OutputStream out = pending.create("meta.json")) {
            out.write("{}".getBytes(UTF_8));
        }
        return pending;
    }

    private static BlockName name(String id) {
        return BlockName.forRange(1_000_000_123L, 2_000_000_456L, id);
    }

    private byte[] readAll(BlockRef ref) throws IOException {
        try (SeekableByteChannel ch = store.open(ref, "data.arrow")) {
            ByteBuffer buffer = ByteBuffer.allocate((int) ch.size());
            while (buffer.hasRemaining()) {
                if (ch.read(buffer) < 0) {
                    throw new IOException("ended early");
                }
            }
            return buffer.array();
        }
    }
}
