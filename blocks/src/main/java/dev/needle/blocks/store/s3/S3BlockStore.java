package dev.needle.blocks.store.s3;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.reads.RequestCounter;
import dev.needle.sidecar.BloomSidecar;
import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A {@link BlockStore} in a bucket of any S3-compatible service, with the layout of the local one.
 *
 * <pre>
 * &lt;prefix&gt;/&lt;tenant&gt;/&lt;signal&gt;/&lt;block&gt;/data.arrow, TRACE_IDX, ATTR_IDX, BATCH_ATTR_IDX, TAGS
 * &lt;prefix&gt;/&lt;tenant&gt;/&lt;signal&gt;/&lt;block&gt;/meta.json   uploaded last: a block is visible when it exists
 * &lt;prefix&gt;/&lt;tenant&gt;/&lt;signal&gt;/INDEX                  the index, replaced with If-Match on its ETag
 * </pre>
 *
 * <p>S3 has no rename, so a block is published by uploading its other files under their final
 * keys, then meta.json with {@code If-None-Match: *}; {@link #list} shows only the blocks whose
 * meta.json exists. A block is deleted by removing meta.json first, then the rest. A crash between
 * uploads (or between deletes) leaves objects without a meta.json: invisible, and removed by
 * {@link #sweep} once the newest of them is older than the grace period. A writer that has spent
 * half the grace period uploading gives up instead of writing meta.json, and the sweep checks
 * again that meta.json is absent just before it deletes, so a sweep never removes the files of a
 * block that becomes visible (as long as clocks agree within half the grace period).
 *
 * <p>{@link #create} stages a block's files in a local directory; {@link PendingBlock#publish}
 * uploads them ({@link S3PendingBlock}). Reads are ranged GETs ({@link S3ReadChannel}). The client is
 * built by {@link S3Clients}, the sweep is {@link S3Sweep}'s, the index object's compare-and-set
 * {@link S3Index}'s. Thread-safe; a {@link PendingBlock} is for one thread. Closing the store closes
 * its client.
 */
public final class S3BlockStore implements BlockStore, Closeable {

    /** The default age after which objects of an unpublished block are swept. */
    public static final Duration DEFAULT_SWEEP_GRACE = Duration.ofHours(1);
    /** The system property that sets {@link #coalesceGap} in bytes; 1 MiB when unset. */
    public static final String COALESCE_GAP_PROPERTY = "needle.s3.coalesceGap";
    private static final long COALESCE_GAP = Long.getLong(COALESCE_GAP_PROPERTY, 1 << 20);
    /** Blocks read at once, at least: each mostly waits for its GETs' first bytes. */
    private static final int BLOCKS_AT_ONCE = 8;
    /** GETs made at once: those blocks' batches fetched ahead, a few each. */
    private static final int READ_THREADS = 32;
    /** The system property that sets the bound of the cache of ranges read, in bytes; 64 MiB when unset, 0 for none. */
    public static final String RANGE_CACHE_PROPERTY = "needle.s3.rangeCacheBytes";

    private final S3Bucket bucket;
    private final S3Index index;
    private final S3Sweep sweep;
    private final Path staging;
    private final Clock clock;
    private final Duration grace;
    private final boolean readOnly;
    private final RangeCache ranges = new RangeCache(Long.getLong(RANGE_CACHE_PROPERTY, 64L << 20));
    /** Runs GETs that do not wait for each other at once; many threads, as each mostly waits for its first byte. */
    private final ExecutorService readPool = Executors.newFixedThreadPool(READ_THREADS, runnable -> {
        Thread thread = new Thread(runnable, "s3-read");
        thread.setDaemon(true);
        return thread;
    });

    /**
     * Opens the store on {@code bucket} under {@code prefix} ("" for the bucket's root), staging
     * blocks being written under {@code staging}; checks that the bucket answers and sweeps what
     * crashed writers left, as {@link #sweep} does.
     *
     * @throws IOException naming the cause when the bucket does not exist, the credentials are
     *     refused or missing, or the endpoint cannot be reached
     */
    public S3BlockStore(S3Client s3, String bucket, String prefix, Path staging, Clock clock, Duration grace)
            throws IOException {
        this(s3, bucket, prefix, staging.toAbsolutePath().normalize(), clock, grace, false);
        Files.createDirectories(this.staging);
        sweep();
    }

    private S3BlockStore(S3Client s3, String bucket, String prefix, Path staging, Clock clock, Duration grace,
                         boolean readOnly) throws IOException {
        S3Location location = new S3Location(bucket, prefix, null, false);
        this.bucket = new S3Bucket(Objects.requireNonNull(s3, "s3"), location.bucket(), location.prefix());
        this.index = new S3Index(this.bucket);
        this.staging = staging;
        this.clock = Objects.requireNonNull(clock, "clock");
        if (grace.isNegative() || grace.isZero()) {
            throw new IllegalArgumentException("the sweep grace period must be positive, got " + grace);
        }
        this.grace = grace;
        this.sweep = new S3Sweep(this.bucket, clock, grace);
        this.readOnly = readOnly;
        S3Clients.checkBucket(s3, location.bucket());
    }

    /**
     * Opens the store at {@code location} with a client of {@link S3Clients#builder}, credentials and
     * region from the SDK's default chains ({@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY},
     * {@code AWS_REGION}, profiles); with an endpoint and no region configured, us-east-1, which
     * S3-compatible servers accept. {@code staging} must be this store's alone: leftovers of a
     * previous process there are removed. The store sweeps with {@link #DEFAULT_SWEEP_GRACE}.
     *
     * @throws IOException naming the cause, as the constructor does
     */
    public static S3BlockStore open(S3Location location, Path staging) throws IOException {
        S3PendingBlock.removeStagedLeftovers(staging);
        S3Client client = S3Clients.client(location);
        try {
            return new S3BlockStore(client, location.bucket(), location.prefix(), staging, Clock.systemUTC(),
                    DEFAULT_SWEEP_GRACE);
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /**
     * Opens the store at {@code location} for reading only, as a query node does: it checks the
     * bucket, then only lists and reads; it neither sweeps nor stages, and its {@link #create},
     * {@link #delete} and {@link #sweep} throw {@link UnsupportedOperationException}.
     *
     * @throws IOException naming the cause, as the constructor does
     */
    public static S3BlockStore openReadOnly(S3Location location) throws IOException {
        S3Client client = S3Clients.client(location);
        try {
            return new S3BlockStore(client, location.bucket(), location.prefix(), null, Clock.systemUTC(),
                    DEFAULT_SWEEP_GRACE, true);
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Where this store keeps its blocks, as {@code s3://bucket/prefix/}. */
    public String location() {
        return bucket.location();
    }

    @Override
    public List<TenantId> tenants() throws IOException {
        List<TenantId> tenants = new ArrayList<>();
        for (String name : bucket.childNames(bucket.base())) {
            if (TenantId.isValid(name)) {
                List<String> signals = bucket.childNames(bucket.base() + name + "/");
                for (Signal signal : Signal.values()) {
                    if (signals.contains(signal.dirName())) {
                        tenants.add(TenantId.of(name));
                        break;
                    }
                }
            }
        }
        Collections.sort(tenants);
        return tenants;
    }

    /** The published blocks: one listing of the signal's objects, keeping the names that have a meta.json. */
    @Override
    public List<BlockRef> list(TenantId tenant, Signal signal) throws IOException {
        List<BlockRef> blocks = new ArrayList<>();
        for (Map.Entry<String, List<S3Object>> entry : bucket.objectsByBlock(tenant, signal).entrySet()) {
            if (S3Bucket.hasMeta(entry.getValue())) {
                BlockName.parse(entry.getKey()).ifPresent(name -> blocks.add(new BlockRef(tenant, signal, name)));
            }
        }
        Collections.sort(blocks);
        return blocks;
    }

    /** One GET of the object's tail for its size and ETag (and the tail's bytes); the reads are ranged GETs. */
    @Override
    public SeekableByteChannel open(BlockRef block, String file) throws IOException {
        return open(block, file, RequestCounter.NONE);
    }

    /** As {@link #open(BlockRef, String)}, telling {@code counter} of each GET. */
    @Override
    public SeekableByteChannel open(BlockRef block, String file, RequestCounter counter) throws IOException {
        return S3ReadChannel.open(bucket.client(), bucket.name(), bucket.key(block, BlockRef.checkFileName(file)),
                openingBytes(file), counter, ranges);
    }

    /**
     * How many of a file's last bytes the GET that opens it asks for: a sidecar is read whole, so as
     * many as the largest one the format allows (a smaller object answers with all it has), which
     * makes its read one GET instead of three (the tail, the header, the rest); every other file
     * {@link S3ReadChannel#READ_AHEAD}.
     */
    private static int openingBytes(String file) {
        return SIDECARS.contains(file) ? MAX_SIDECAR_BYTES : S3ReadChannel.READ_AHEAD;
    }

    private static final Set<String> SIDECARS = Set.of(BloomSidecar.TRACE_IDX, BloomSidecar.ATTR_IDX,
            BloomSidecar.BATCH_ATTR_IDX);
    private static final int MAX_SIDECAR_BYTES = BloomSidecar.HEADER_BYTES + 8 * BloomSidecar.MAX_WORDS;

    /** No request: the first read's GET checks the size and learns the ETag that the later ones name. */
    @Override
    public SeekableByteChannel openKnown(BlockRef block, String file, long size, RequestCounter counter) {
        return S3ReadChannel.openKnown(bucket.client(), bucket.name(), bucket.key(block, BlockRef.checkFileName(file)),
                size, counter, ranges);
    }

    /**
     * Ranges of one object closer than this are fetched by one GET: a request costs 20–100 ms, in
     * which S3 sends several megabytes. {@value #COALESCE_GAP_PROPERTY} sets it in bytes.
     */
    @Override
    public long coalesceGap() {
        return COALESCE_GAP;
    }

    @Override
    public PendingBlock create(TenantId tenant, Signal signal) throws IOException {
        checkWritable();
        return new S3PendingBlock(this, bucket, clock, grace, tenant, signal,
                Files.createTempDirectory(staging, S3PendingBlock.STAGING_PREFIX));
    }

    /**
     * Removes meta.json, which hides the block, then its other files. If removing those fails the
     * block is already invisible, and {@link #sweep} removes the rest after the grace period.
     */
    @Override
    public void delete(BlockRef block) throws IOException {
        checkWritable();
        bucket.deleteObject(bucket.key(block, BlockLayout.META));
        for (S3Object object : bucket.listAll(bucket.base() + block + "/")) {
            bucket.deleteObject(object.key());
        }
    }

    /**
     * Removes the objects of blocks without a meta.json once the newest of them is older than the
     * grace period, as {@link S3Sweep} does; returns the blocks removed, as {@code tenant/signal/name}.
     */
    public List<String> sweep() throws IOException {
        checkWritable();
        return sweep.sweep(tenants());
    }

    /** One GET, with {@code If-None-Match} on the known ETag: an unchanged index costs a 304 and no body. */
    @Override
    public Optional<IndexObject> readIndex(TenantId tenant, Signal signal, String knownToken) throws IOException {
        return index.read(tenant, signal, knownToken);
    }

    /** One conditional PUT, as {@link S3Index#write} makes it. */
    @Override
    public String writeIndex(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        return index.write(tenant, signal, bytes, expectedToken);
    }

    @Override
    public boolean keepsIndex() {
        return true;
    }

    /** At least {@value #BLOCKS_AT_ONCE}: a block read here waits 20–100 ms for each GET's first byte. */
    @Override
    public int blocksReadAtOnce(int threads) {
        return Math.max(threads, BLOCKS_AT_ONCE);
    }

    /**
     * A pool of {@value #READ_THREADS} threads for the GETs of the blocks being read that do not wait for
     * each other: meta.json beside data.arrow's opening, and the batches fetched ahead.
     */
    @Override
    public ExecutorService readPool() {
        return readPool;
    }

    @Override
    public void close() {
        readPool.shutdownNow();
        bucket.client().close();
    }

    private void checkWritable() {
        if (readOnly) {
            throw new UnsupportedOperationException(location() + " is open for reading only");
        }
    }
}
