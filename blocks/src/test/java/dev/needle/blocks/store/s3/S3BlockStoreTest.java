package dev.needle.blocks.store.s3;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.reads.RequestCounter;
import dev.needle.sidecar.BloomBits;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/** {@link S3BlockStore} against S3Proxy: publish, read, the visibility of partial uploads, sweep, delete, start-up errors. */
class S3BlockStoreTest {

    private static final TenantId ACME = TenantId.of("acme");
    private static final Duration GRACE = Duration.ofHours(1);

    /** A block's files: data.arrow larger than the read-ahead, so that reads take more than one GET. */
    private static final Map<String, byte[]> FILES = new LinkedHashMap<>();

    static {
        byte[] data = new byte[3 * S3ReadChannel.READ_AHEAD + 123];
        new Random(7).nextBytes(data);
        FILES.put("data.arrow", data);
        FILES.put("TRACE_IDX", "trace sidecar".getBytes(UTF_8));
        FILES.put("meta.json", "{\"rows\":1}".getBytes(UTF_8));
    }

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private static int buckets;

    @TempDir
    Path staging;
    private String bucket;
    private S3Client raw;

    @BeforeEach
    void newBucket() {
        bucket = server.createBucket("bucket-" + ++buckets);
        raw = server.client();
    }

    @AfterEach
    void closeClient() {
        raw.close();
    }

    private S3BlockStore store(Clock clock) throws IOException {
        return new S3BlockStore(server.client(), bucket, "needle/", staging, clock, GRACE);
    }

    private S3BlockStore store() throws IOException {
        return store(Clock.systemUTC());
    }

    @Test
    void publish_thenListOpenRead_givesTheFiles() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);

            assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
            assertEquals(List.of(), store.list(ACME, Signal.LOGS));
            assertEquals(List.of(ACME), store.tenants());
            assertEquals(List.of("needle/acme/spans/" + ref.name() + "/TRACE_IDX",
                    "needle/acme/spans/" + ref.name() + "/data.arrow",
                    "needle/acme/spans/" + ref.name() + "/meta.json"), keys());
            for (Map.Entry<String, byte[]> file : FILES.entrySet()) {
                assertArrayEquals(file.getValue(), readAll(store, ref, file.getKey()), file.getKey());
            }
            try (Stream<Path> left = Files.list(staging)) {
                assertEquals(0, left.count(), "the staged files are removed after publishing");
            }
        }
    }

    @Test
    void open_readsAnyRangeInAnyOrder() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            byte[] data = FILES.get("data.arrow");
            Random random = new Random(11);
            try (SeekableByteChannel ch = store.open(ref, "data.arrow")) {
                assertEquals(data.length, ch.size());
                for (int i = 0; i < 50; i++) {
                    int from = random.nextInt(data.length);
                    int length = Math.min(data.length - from, random.nextBoolean() ? random.nextInt(100) + 1
                            : random.nextInt(2 * S3ReadChannel.READ_AHEAD));
                    ByteBuffer buffer = ByteBuffer.allocate(length);
                    ch.position(from);
                    while (buffer.hasRemaining() && ch.read(buffer) > 0) {
                        // a read may stop at the end of the read-ahead window
                    }
                    assertArrayEquals(Arrays.copyOfRange(data, from, from + length), buffer.array());
                }
                ch.position(data.length);
                assertEquals(-1, ch.read(ByteBuffer.allocate(1)));
            }
        }
    }

    /** Every GET names the ETag seen at open: an object replaced under a reader fails its reads, never mixes versions. */
    @Test
    void read_afterTheObjectWasReplaced_failsInsteadOfMixing() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            try (SeekableByteChannel ch = store.open(ref, "data.arrow")) {
                assertEquals(8, ch.read(ByteBuffer.allocate(8)));
                raw.putObject(b -> b.bucket(bucket).key("needle/acme/spans/" + ref.name() + "/data.arrow"),
                        RequestBody.fromBytes(new byte[FILES.get("data.arrow").length]));
                ch.position(2L * S3ReadChannel.READ_AHEAD);
                IOException e = assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(8)));
                assertTrue(e.getMessage().contains("GET s3://" + bucket + "/needle/acme/spans/" + ref.name() + "/data.arrow"),
                        e.getMessage());
            }
        }
    }

    /**
     * A sidecar four times the read-ahead (BATCH_ATTR_IDX's size on the seed corpus) is read whole by
     * the GET that opens it; data.arrow's opening GET still asks for the read-ahead alone.
     */
    @Test
    void sidecarLargerThanTheReadAhead_readInOneGet() throws IOException {
        BloomBits bits = BloomBits.ofBits(32 * S3ReadChannel.READ_AHEAD, BloomSidecar.K);
        Random random = new Random(13);
        for (int i = 0; i < 10_000; i++) {
            bits.put(random.nextLong(), random.nextLong() | 1);
        }
        byte[] sidecar = BloomSidecar.encode(bits, 0);
        assertTrue(sidecar.length > 4 * S3ReadChannel.READ_AHEAD, sidecar.length + " bytes");
        Map<String, byte[]> files = new LinkedHashMap<>(FILES);
        files.put(BloomSidecar.BATCH_ATTR_IDX, sidecar);
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), files);
            List<Long> requests = new ArrayList<>();
            Sidecar read = BlockReader.readSidecar(store, ref, BloomSidecar.BATCH_ATTR_IDX, requests::add);
            assertTrue(read.isVerified(), read.toString());
            assertEquals(List.of((long) sidecar.length), requests, "one GET, of the whole sidecar");
            assertArrayEquals(sidecar, BloomSidecar.encode(read.bits().orElseThrow(), 0));

            requests.clear();
            try (SeekableByteChannel ch = store.open(ref, "data.arrow", requests::add)) {
                assertEquals(List.of((long) S3ReadChannel.READ_AHEAD), requests, "data.arrow's tail, its footer");
            }
        }
    }

    /** A size the caller knows opens with no request; the first read's GET checks it, the later ones name its ETag. */
    @Test
    void openKnown_noRequestUntilTheFirstRead_thenReadsAsOpen() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            byte[] data = FILES.get("data.arrow");
            List<Long> requests = new ArrayList<>();
            try (SeekableByteChannel ch = store.openKnown(ref, "data.arrow", data.length, requests::add)) {
                assertEquals(data.length, ch.size());
                assertEquals(List.of(), requests, "opening made no request");
                ByteBuffer buffer = ByteBuffer.allocate(100);
                ch.position(S3ReadChannel.READ_AHEAD + 5);
                assertEquals(100, ch.read(buffer));
                assertArrayEquals(Arrays.copyOfRange(data, S3ReadChannel.READ_AHEAD + 5, S3ReadChannel.READ_AHEAD + 105),
                        buffer.array());
                assertEquals(1, requests.size());
                raw.putObject(b -> b.bucket(bucket).key("needle/acme/spans/" + ref.name() + "/data.arrow"),
                        RequestBody.fromBytes(new byte[data.length]));
                ch.position(0);
                assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(8)),
                        "a later GET names the ETag the first one learnt");
            }
        }
    }

    @Test
    void openKnown_anotherSizeOrAMissingObject_failsTheFirstRead() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            int size = FILES.get("data.arrow").length;
            try (SeekableByteChannel ch = store.openKnown(ref, "data.arrow", size + 1, RequestCounter.NONE)) {
                IOException e = assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(8)));
                assertTrue(e.getMessage().contains("not the one of " + (size + 1) + " bytes"), e.getMessage());
            }
            BlockRef missing = new BlockRef(ACME, Signal.SPANS, name("nope"));
            try (SeekableByteChannel ch = store.openKnown(missing, "data.arrow", size, RequestCounter.NONE)) {
                assertThrows(IOException.class, () -> ch.read(ByteBuffer.allocate(8)));
            }
        }
    }

    @Test
    void open_missingFileOrBlock_throwsNoSuchFile() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            assertThrows(NoSuchFileException.class, () -> store.open(ref, "ATTR_IDX"));
            assertThrows(NoSuchFileException.class, () -> store.open(new BlockRef(ACME, Signal.SPANS, name("nope")),
                    "data.arrow"));
            assertThrows(IllegalArgumentException.class, () -> store.open(ref, "../meta.json"));
        }
    }

    @Test
    void publish_existingName_refusedAndTheBlockUnchanged() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            Map<String, byte[]> other = Map.of("data.arrow", new byte[] {1}, "meta.json", new byte[] {2});
            assertThrows(FileAlreadyExistsException.class, () -> publish(store, ref.name(), other));
            assertArrayEquals(FILES.get("data.arrow"), readAll(store, ref, "data.arrow"));
        }
    }

    /** A crash between uploads, as S3 keeps it: the files of a block without its meta.json. */
    @Test
    void crashBetweenUploads_invisible_thenSweptAfterTheGracePeriod() throws IOException {
        try (S3BlockStore store = store(); S3BlockStore later = store(Clock.offset(Clock.systemUTC(), GRACE.multipliedBy(2)))) {
            BlockRef whole = publish(store, name("whole"), FILES);
            BlockName partial = name("partial");
            for (String file : List.of("data.arrow", "TRACE_IDX")) {
                raw.putObject(b -> b.bucket(bucket).key("needle/acme/spans/" + partial + "/" + file),
                        RequestBody.fromBytes(FILES.get(file)));
            }
            raw.putObject(b -> b.bucket(bucket).key("needle/acme/spans/not-a-block/data.arrow"), RequestBody.fromBytes(new byte[1]));

            assertEquals(List.of(whole), store.list(ACME, Signal.SPANS));
            assertEquals(List.of(), store.sweep(), "within the grace period nothing is swept");
            assertEquals(6, keys().size());

            assertEquals(List.of("acme/spans/" + partial), later.sweep());
            assertEquals(List.of(whole), later.list(ACME, Signal.SPANS));
            assertEquals(List.of("needle/acme/spans/" + whole.name() + "/TRACE_IDX",
                    "needle/acme/spans/" + whole.name() + "/data.arrow",
                    "needle/acme/spans/" + whole.name() + "/meta.json",
                    "needle/acme/spans/not-a-block/data.arrow"), keys(), "keys that are not a block's are never touched");
        }
    }

    @Test
    void close_withoutPublishing_leavesNothing() throws IOException {
        try (S3BlockStore store = store()) {
            try (PendingBlock pending = store.create(ACME, Signal.SPANS);
                 OutputStream out = pending.create("data.arrow")) {
                out.write(1);
            }
            assertEquals(List.of(), keys());
            assertEquals(List.of(), store.list(ACME, Signal.SPANS));
        }
    }

    @Test
    void delete_removesEveryObject_andAMissingBlockIsNoError() throws IOException {
        try (S3BlockStore store = store()) {
            BlockRef ref = publish(store, name("b1"), FILES);
            store.delete(ref);
            assertEquals(List.of(), store.list(ACME, Signal.SPANS));
            assertEquals(List.of(), keys());
            store.delete(ref);
        }
    }

    /**
     * Deletes remove meta.json first, so a listing running beside them never shows a block whose
     * data is gone: when data.arrow cannot be opened, meta.json cannot be either.
     */
    @Test
    void deleteWhileListing_neverShowsHalfABlock() throws Exception {
        try (S3BlockStore store = store()) {
            List<BlockRef> published = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                published.add(publish(store, name("b" + i), FILES));
            }
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                Future<?> deletes = pool.submit(() -> {
                    for (BlockRef ref : published) {
                        store.delete(ref);
                    }
                    return null;
                });
                Set<BlockRef> seen = new HashSet<>();
                while (!deletes.isDone()) {
                    for (BlockRef ref : store.list(ACME, Signal.SPANS)) {
                        assertTrue(published.contains(ref));
                        seen.add(ref);
                        try {
                            store.open(ref, "data.arrow").close();
                        } catch (NoSuchFileException e) {
                            assertThrows(NoSuchFileException.class, () -> store.open(ref, "meta.json"),
                                    ref + " lost data.arrow before meta.json");
                        }
                    }
                }
                deletes.get();
                assertFalse(seen.isEmpty());
            } finally {
                pool.shutdownNow();
            }
            assertEquals(List.of(), store.list(ACME, Signal.SPANS));
        }
    }

    /** As the server opens it: credentials from the SDK's chain, the region defaulted, a crashed process's staging removed. */
    @Test
    void open_withTheDefaultChains_removesStagedLeftovers() throws IOException {
        Path leftover = Files.createDirectories(staging.resolve("block-123"));
        Files.write(leftover.resolve("data.arrow"), new byte[10]);
        System.setProperty("aws.accessKeyId", S3ProxyServer.ACCESS_KEY);
        System.setProperty("aws.secretAccessKey", S3ProxyServer.SECRET_KEY);
        try (S3BlockStore store = S3BlockStore.open(new S3Location(bucket, "needle", server.endpoint(), true), staging)) {
            assertFalse(Files.exists(leftover));
            BlockRef ref = publish(store, name("b1"), FILES);
            assertEquals(List.of(ref), store.list(ACME, Signal.SPANS));
        } finally {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
    }

    @Test
    void construct_missingBucket_saysSo() {
        IOException e = assertThrows(IOException.class,
                () -> new S3BlockStore(server.client(), "no-such-bucket", "", staging, Clock.systemUTC(), GRACE));
        assertTrue(e.getMessage().contains("bucket 'no-such-bucket' does not exist"), e.getMessage());
    }

    @Test
    void construct_wrongCredentials_saysSo() {
        IOException e = assertThrows(IOException.class, () -> new S3BlockStore(server.client("needle-test", "wrong"),
                bucket, "", staging, Clock.systemUTC(), GRACE));
        assertTrue(e.getMessage().contains("credentials were refused"), e.getMessage());
    }

    @Test
    void construct_unreachableEndpoint_saysSo() throws IOException {
        URI closed;
        try (ServerSocket socket = new ServerSocket(0)) {
            closed = URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
        S3Client client = S3ProxyServer.client(closed, S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY);
        IOException e = assertThrows(IOException.class,
                () -> new S3BlockStore(client, bucket, "", staging, Clock.systemUTC(), GRACE));
        assertTrue(e.getMessage().contains("cannot reach the S3 endpoint " + closed), e.getMessage());
    }

    private static BlockName name(String id) {
        return BlockName.forRange(1_000_000_123L, 2_000_000_456L, id);
    }

    private static BlockRef publish(BlockStore store, BlockName name, Map<String, byte[]> files) throws IOException {
        try (PendingBlock pending = store.create(ACME, Signal.SPANS)) {
            for (Map.Entry<String, byte[]> file : files.entrySet()) {
                try (OutputStream out = pending.create(file.getKey())) {
                    out.write(file.getValue());
                }
            }
            return pending.publish(name);
        }
    }

    private static byte[] readAll(BlockStore store, BlockRef ref, String file) throws IOException {
        try (SeekableByteChannel ch = store.open(ref, file)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) ch.size());
            while (buffer.hasRemaining() && ch.read(buffer) >= 0) {
                // read to the end
            }
            return buffer.array();
        }
    }

    private List<String> keys() {
        return raw.listObjectsV2Paginator(b -> b.bucket(bucket)).contents().stream().map(S3Object::key).sorted().toList();
    }
}
