package dev.needle.blocks.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.RandomRecords;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.store.reads.ReadTally;
import dev.needle.blocks.store.s3.S3BlockStore;
import dev.needle.blocks.store.s3.S3Clients;
import dev.needle.blocks.store.s3.S3ProxyServer;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Fault;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;

/**
 * {@link BlockReader#fetchAhead} on a bucket behind a {@link FaultProxy}, against the same block on
 * disk: one GET per batch (its header and chosen columns are one run), made before the reads, which
 * then make none and give what the local reads give; the bytes held stay within
 * {@link BlockReader#MAX_AHEAD_BYTES}; a GET that fails fails the fetch naming the block; locally
 * nothing is fetched. The allocator is closed after each test, so a leaked buffer fails it.
 */
class FetchAheadTest {

    private static final TenantId TENANT = TenantId.DEFAULT;
    private static final Set<String> COLUMNS = Set.of(SpanColumns.NAME, SpanColumns.START_TIME);

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private static int buckets;

    @TempDir
    Path dir;
    private FaultProxy proxy;
    private S3BlockStore s3;
    private FsBlockStore local;
    private BufferAllocator allocator;

    @BeforeEach
    void open() throws Exception {
        proxy = FaultProxy.start(server.endpoint());
        s3 = new S3BlockStore(S3Clients.builder(proxy.endpoint(), true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY))).build(),
                server.createBucket("ahead-" + ++buckets), "p", dir.resolve("staging"), Clock.systemUTC(),
                S3BlockStore.DEFAULT_SWEEP_GRACE);
        local = new FsBlockStore(dir.resolve("local"));
        allocator = new RootAllocator();
    }

    @AfterEach
    void close() throws Exception {
        s3.close();
        proxy.close();
        allocator.close();
    }

    /** The same spans as one block on the bucket and on disk, {@code perBatch} rows a batch; the bucket's first. */
    private List<BlockRef> write(int spans, int perBatch) throws Exception {
        List<SpanRecord> records = new RandomRecords(61).spans(spans);
        BlockRef onS3 = new BlockWriter(s3, allocator, perBatch).writeSpans(TENANT, records).ref();
        BlockRef onDisk = new BlockWriter(local, allocator, perBatch).writeSpans(TENANT, records).ref();
        return List.of(onS3, onDisk);
    }

    @Test
    void fetchAhead_oneGetPerBatch_theReadsMakeNone_andGiveTheLocalColumns() throws Exception {
        List<BlockRef> refs = write(1_500, 250);
        ReadTally tally = new ReadTally();
        try (BlockReader remote = BlockReader.open(s3, refs.get(0), allocator, null, tally);
             BlockReader onDisk = BlockReader.open(local, refs.get(1), allocator)) {
            int batches = remote.batchCount();
            List<Integer> all = IntStream.range(0, batches).boxed().toList();
            for (Set<String> columns : Arrays.asList(COLUMNS, null)) {
                long opened = tally.requests();
                long gotBefore = tally.bytes();
                long bytesBefore = remote.bytesRead();
                assertEquals(batches, remote.fetchAhead(all, columns), "six batches of about 400 KB fit the bound");
                assertEquals(batches, tally.requests() - opened, "one GET per batch: " + columns);
                long fetched = remote.bytesRead() - bytesBefore;
                assertEquals(tally.bytes() - gotBefore, fetched, "what was fetched counts as read at once");
                for (int b : all) {
                    try (VectorSchemaRoot got = columns == null ? remote.readAll(b) : remote.read(b, columns);
                         VectorSchemaRoot expected = columns == null ? onDisk.readAll(b) : onDisk.read(b, columns)) {
                        assertTrue(expected.equals(got), "batch " + b + " as on disk");
                    }
                }
                assertEquals(batches, tally.requests() - opened, "the reads took the fetched bytes: no GET");
                assertEquals(fetched, remote.bytesRead() - bytesBefore, "bytes taken from what was held count once");
            }
        }
    }

    @Test
    void fetchAhead_moreThanTheBound_takesAFewBatchesAtATime() throws Exception {
        List<BlockRef> refs = write(12_000, 1_000);
        ReadTally tally = new ReadTally();
        try (BlockReader remote = BlockReader.open(s3, refs.get(0), allocator, null, tally)) {
            List<Integer> all = IntStream.range(0, remote.batchCount()).boxed().toList();
            long before = remote.bytesRead();
            int taken = remote.fetchAhead(all, null);
            long held = remote.bytesRead() - before;
            assertTrue(taken >= 1 && taken < all.size(), taken + " of " + all.size() + " batches, " + held + " bytes");
            assertTrue(held <= BlockReader.MAX_AHEAD_BYTES, held + " bytes held");
            for (int b : all.subList(0, taken)) {
                remote.readAll(b).close();
            }
            assertEquals(held, remote.bytesRead() - before, "read from what was held");
            int next = remote.fetchAhead(all.subList(taken, all.size()), null);
            assertTrue(next >= 1, "the rest, a few at a time");
        }
    }

    @Test
    void fetchAhead_getFailing_failsNamingTheBlock_andTheReadFailsToo() throws Exception {
        List<BlockRef> refs = write(1_500, 250);
        for (Fault fault : List.of(Fault.status(500), Fault.truncate())) {
            try (BlockReader remote = BlockReader.open(s3, refs.get(0), allocator, null, new ReadTally())) {
                List<Integer> all = IntStream.range(0, remote.batchCount()).boxed().toList();
                proxy.inject(fault.on("GET", "/data\\.arrow"));
                CorruptBlockException e = assertThrows(CorruptBlockException.class,
                        () -> remote.fetchAhead(all, COLUMNS));
                assertTrue(e.getMessage().contains(refs.get(0).toString()) && e.getMessage().contains("data.arrow"),
                        e.getMessage());
                assertThrows(CorruptBlockException.class, () -> remote.read(0, COLUMNS).close());
                proxy.heal();
                try (VectorSchemaRoot healed = remote.read(1, COLUMNS)) {
                    assertEquals(250, healed.getRowCount());
                }
            }
        }
    }

    @Test
    void fetchAhead_localStore_fetchesNothingAndReadsAsBefore() throws Exception {
        List<BlockRef> refs = write(1_500, 250);
        ReadTally withAhead = new ReadTally();
        ReadTally without = new ReadTally();
        try (BlockReader ahead = BlockReader.open(local, refs.get(1), allocator, null, withAhead);
             BlockReader plain = BlockReader.open(local, refs.get(1), allocator, null, without)) {
            List<Integer> all = IntStream.range(0, ahead.batchCount()).boxed().toList();
            long opened = withAhead.requests();
            assertEquals(all.size(), ahead.fetchAhead(all, COLUMNS));
            assertEquals(opened, withAhead.requests(), "no read call");
            for (int b : all) {
                ahead.read(b, COLUMNS).close();
                plain.read(b, COLUMNS).close();
            }
            assertEquals(without.requests(), withAhead.requests());
            assertEquals(plain.bytesRead(), ahead.bytesRead());
        }
    }
}
