package dev.needle.blocks.store.s3;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.StagedBlock;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.reads.RequestCounter;
import dev.needle.sidecar.BloomSidecar;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Exception;
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
 * uploads them. Reads are ranged GETs ({@link S3ReadChannel}). Thread-safe; a {@link PendingBlock}
 * is for one thread. Closing the store closes its client.
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

    /** The name prefix of a staging directory, one per block being written. */
    private static final String STAGING_PREFIX = "block-";

    private static final Logger LOG = LoggerFactory.getLogger(S3BlockStore.class);

    private final S3Client s3;
    private final String bucket;
    private final String base;
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
        this.s3 = Objects.requireNonNull(s3, "s3");
        S3Location location = new S3Location(bucket, prefix, null, false);
        this.bucket = location.bucket();
        this.base = location.prefix().isEmpty() ? "" : location.prefix() + "/";
        this.staging = staging;
        this.clock = Objects.requireNonNull(clock, "clock");
        if (grace.isNegative() || grace.isZero()) {
            throw new IllegalArgumentException("the sweep grace period must be positive, got " + grace);
        }
        this.grace = grace;
        this.readOnly = readOnly;
        checkBucket();
    }

    /**
     * Opens the store at {@code location} with a client of {@link #clientBuilder}, credentials and
     * region from the SDK's default chains ({@code AWS_ACCESS_KEY_ID}, {@code AWS_SECRET_ACCESS_KEY},
     * {@code AWS_REGION}, profiles); with an endpoint and no region configured, us-east-1, which
     * S3-compatible servers accept. {@code staging} must be this store's alone: leftovers of a
     * previous process there are removed. The store sweeps with {@link #DEFAULT_SWEEP_GRACE}.
     *
     * @throws IOException naming the cause, as the constructor does
     */
    public static S3BlockStore open(S3Location location, Path staging) throws IOException {
        removeStagedLeftovers(staging);
        S3Client client = client(location);
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
        S3Client client = client(location);
        try {
            return new S3BlockStore(client, location.bucket(), location.prefix(), null, Clock.systemUTC(),
                    DEFAULT_SWEEP_GRACE, true);
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** A client of {@link #clientBuilder} for {@code location}, credentials and region from the SDK's chains. */
    private static S3Client client(S3Location location) throws IOException {
        S3ClientBuilder builder = clientBuilder(location.endpoint(), location.pathStyle());
        if (location.endpoint() != null) {
            // Not the default chain: its last resort asks EC2's instance metadata, which only AWS answers.
            Region region;
            try {
                region = new AwsRegionProviderChain(new SystemSettingsRegionProvider(), new AwsProfileRegionProvider())
                        .getRegion();
            } catch (SdkClientException e) {
                region = Region.US_EAST_1;
            }
            builder.region(region);
        }
        try {
            return builder.build();
        } catch (SdkClientException e) {
            throw new IOException("cannot set up the S3 client for " + location + ": " + e.getMessage(), e);
        }
    }

    /** Removes the staging directories a crashed process left; a directory that cannot be removed is only logged. */
    private static void removeStagedLeftovers(Path staging) throws IOException {
        if (!Files.isDirectory(staging)) {
            return;
        }
        try (Stream<Path> dirs = Files.list(staging)) {
            for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith(STAGING_PREFIX)).toList()) {
                try {
                    deleteStaged(dir);
                    LOG.info("removed {}, left behind by a block upload that did not finish", dir);
                } catch (IOException e) {
                    LOG.warn("could not remove {}", dir, e);
                }
            }
        }
    }

    /** Deletes one staging directory and its files (a block's files are flat). */
    private static void deleteStaged(Path dir) throws IOException {
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path file : entries.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(dir);
    }

    /** {@link #clientBuilder(URI, boolean, S3Timeouts)} with the {@linkplain S3Timeouts#DEFAULTS default timeouts}. */
    public static S3ClientBuilder clientBuilder(URI endpoint, boolean pathStyle) {
        return clientBuilder(endpoint, pathStyle, S3Timeouts.DEFAULTS);
    }

    /**
     * A client builder as this store expects: the JDK's HTTP connection (no Netty, Apache or CRT
     * client) with {@code timeouts}, the SDK's standard retry strategy (3 attempts, see
     * {@link S3Timeouts}) whatever {@code AWS_RETRY_MODE} says, {@code endpoint} when not AWS's (null
     * for AWS), path-style addressing when asked (most S3-compatible servers need it), and payloads
     * signed whole rather than in aws-chunked encoding, which S3Proxy's conditional PUT mishandles (the
     * connection breaks, the SDK retries). Credentials and region come from the SDK's default chains
     * unless the caller sets them.
     */
    public static S3ClientBuilder clientBuilder(URI endpoint, boolean pathStyle, S3Timeouts timeouts) {
        S3ClientBuilder builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(timeouts.connect())
                        .socketTimeout(timeouts.socket()).build())
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD).apiCallAttemptTimeout(timeouts.attempt()))
                .forcePathStyle(pathStyle)
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build());
        return endpoint == null ? builder : builder.endpointOverride(endpoint);
    }

    /** Where this store keeps its blocks, as {@code s3://bucket/prefix/}. */
    public String location() {
        return "s3://" + bucket + "/" + base;
    }

    private void checkBucket() throws IOException {
        String endpoint = s3.serviceClientConfiguration().endpointOverride().map(Object::toString)
                .orElse("the AWS endpoint of region " + s3.serviceClientConfiguration().region());
        try {
            // Asked first, so that no credentials at all is said as such, not as a failed request.
            s3.serviceClientConfiguration().credentialsProvider().resolveIdentity().join();
        } catch (CompletionException | SdkException e) {
            throw new IOException("no credentials for bucket '" + bucket + "' at " + endpoint
                    + ": set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE", e);
        }
        try {
            s3.headBucket(b -> b.bucket(bucket));
        } catch (S3Exception e) {
            throw new IOException(switch (e.statusCode()) {
                case 404 -> "bucket '" + bucket + "' does not exist at " + endpoint;
                case 401, 403 -> "the credentials were refused for bucket '" + bucket + "' at " + endpoint
                        + " (wrong access key or secret, or no permission)";
                case 301, 307 -> "bucket '" + bucket + "' is in another region than " + s3.serviceClientConfiguration().region();
                default -> "checking bucket '" + bucket + "' at " + endpoint + " failed with HTTP " + e.statusCode();
            }, e);
        } catch (SdkException e) {
            throw new IOException(unreachable(e)
                    ? "cannot reach the S3 endpoint " + endpoint + ": " + e.getMessage()
                    : "cannot use bucket '" + bucket + "' at " + endpoint + ": " + e.getMessage(), e);
        }
    }

    /** Whether the client failed to connect or to hear an answer, as opposed to failing before trying (credentials). */
    private static boolean unreachable(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof ConnectException || t instanceof UnknownHostException || t instanceof SocketTimeoutException
                    || t instanceof ApiCallAttemptTimeoutException || t instanceof ApiCallTimeoutException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public List<TenantId> tenants() throws IOException {
        List<TenantId> tenants = new ArrayList<>();
        for (String name : childNames(base)) {
            if (TenantId.isValid(name)) {
                List<String> signals = childNames(base + name + "/");
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
        for (Map.Entry<String, List<S3Object>> entry : objectsByBlock(tenant, signal).entrySet()) {
            if (hasMeta(entry.getValue())) {
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
        return S3ReadChannel.open(s3, bucket, key(block, BlockRef.checkFileName(file)), openingBytes(file), counter,
                ranges);
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
        return S3ReadChannel.openKnown(s3, bucket, key(block, BlockRef.checkFileName(file)), size, counter, ranges);
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
        return new S3PendingBlock(tenant, signal, Files.createTempDirectory(staging, STAGING_PREFIX));
    }

    /**
     * Removes meta.json, which hides the block, then its other files. If removing those fails the
     * block is already invisible, and {@link #sweep} removes the rest after the grace period.
     */
    @Override
    public void delete(BlockRef block) throws IOException {
        checkWritable();
        deleteObject(key(block, BlockLayout.META));
        for (S3Object object : listAll(base + block + "/")) {
            deleteObject(object.key());
        }
    }

    /**
     * Removes the objects of blocks without a meta.json (uploads a crash cut short, deletes a crash
     * cut short) once the newest of them is older than the grace period; returns the blocks removed,
     * as {@code tenant/signal/name}. Keys that are not a block's are never touched. A block that
     * cannot be removed is logged and left for the next sweep.
     */
    public List<String> sweep() throws IOException {
        checkWritable();
        Instant cutoff = clock.instant().minus(grace);
        List<String> swept = new ArrayList<>();
        for (TenantId tenant : tenants()) {
            for (Signal signal : Signal.values()) {
                for (Map.Entry<String, List<S3Object>> entry : objectsByBlock(tenant, signal).entrySet()) {
                    List<S3Object> objects = entry.getValue();
                    Instant newest = objects.stream().map(S3Object::lastModified).max(Instant::compareTo).orElseThrow();
                    if (hasMeta(objects) || !newest.isBefore(cutoff) || BlockName.parse(entry.getKey()).isEmpty()) {
                        continue;
                    }
                    String dir = tenant.value() + "/" + signal.dirName() + "/" + entry.getKey();
                    try {
                        // A writer may have finished since the listing: never remove a visible block's files.
                        if (head(base + dir + "/" + BlockLayout.META) != null) {
                            continue;
                        }
                        for (S3Object object : objects) {
                            deleteObject(object.key());
                        }
                        swept.add(dir);
                        LOG.info("swept unpublished block {}{}", location(), dir);
                    } catch (IOException e) {
                        LOG.warn("could not sweep unpublished block {}{}", location(), dir, e);
                    }
                }
            }
        }
        return swept;
    }

    /** One GET, with {@code If-None-Match} on the known ETag: an unchanged index costs a 304 and no body. */
    @Override
    public Optional<IndexObject> readIndex(TenantId tenant, Signal signal, String knownToken) throws IOException {
        String key = indexKey(tenant, signal);
        try (ResponseInputStream<GetObjectResponse> in = s3.getObject(b -> b.bucket(bucket).key(key)
                .ifNoneMatch(knownToken))) {
            Long length = in.response().contentLength();
            if (length != null && length > BlockIndex.HEADER_BYTES + (long) BlockIndex.MAX_BODY_BYTES) {
                throw new IOException(uri(key) + " has " + length + " bytes, more than an index may");
            }
            return Optional.of(new IndexObject(in.readAllBytes(), in.response().eTag()));
        } catch (S3Exception e) {
            if (e.statusCode() == 304) {
                return Optional.of(new IndexObject(null, knownToken));
            } else if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw failed("GET " + uri(key), e);
        } catch (SdkException e) {
            throw failed("GET " + uri(key), e);
        }
    }

    /**
     * One conditional PUT: {@code If-Match} on {@code expectedToken}, or {@code If-None-Match: *} to
     * create. 412 (the ETag moved on, or the object exists) and 409 (a conditional write racing
     * another) mean another writer was first. A PUT the SDK retried after a lost answer finds its
     * own write and says so too; the caller's re-read then sees its change already made.
     */
    @Override
    public String writeIndex(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        String key = indexKey(tenant, signal);
        try {
            return s3.putObject(b -> {
                b.bucket(bucket).key(key);
                if (expectedToken == null) {
                    b.ifNoneMatch("*");
                } else {
                    b.ifMatch(expectedToken);
                }
            }, RequestBody.fromBytes(bytes)).eTag();
        } catch (S3Exception e) {
            if (e.statusCode() == 412 || e.statusCode() == 409) {
                return null;
            }
            throw failed("PUT " + uri(key), e);
        } catch (SdkException e) {
            throw failed("PUT " + uri(key), e);
        }
    }

    @Override
    public boolean keepsIndex() {
        return true;
    }

    private String indexKey(TenantId tenant, Signal signal) {
        return base + tenant.value() + "/" + signal.dirName() + "/" + INDEX_OBJECT;
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
        s3.close();
    }

    private void checkWritable() {
        if (readOnly) {
            throw new UnsupportedOperationException(location() + " is open for reading only");
        }
    }

    private byte[] readAll(BlockRef block, String file) throws IOException {
        try (InputStream in = Channels.newInputStream(open(block, file))) {
            return in.readAllBytes();
        }
    }

    private String key(BlockRef block, String file) {
        return base + block + "/" + file;
    }

    private String uri(String key) {
        return "s3://" + bucket + "/" + key;
    }

    private static boolean hasMeta(List<S3Object> objects) {
        return objects.stream().anyMatch(o -> o.key().endsWith("/" + BlockLayout.META));
    }

    /** A signal's objects grouped by the first path segment after the signal (a block's name), in key order. */
    private Map<String, List<S3Object>> objectsByBlock(TenantId tenant, Signal signal) throws IOException {
        String signalPrefix = base + tenant.value() + "/" + signal.dirName() + "/";
        Map<String, List<S3Object>> byBlock = new TreeMap<>();
        for (S3Object object : listAll(signalPrefix)) {
            String rest = object.key().substring(signalPrefix.length());
            int slash = rest.indexOf('/');
            // Only a block's own files (one level below its name) are the block's.
            if (slash > 0 && rest.indexOf('/', slash + 1) < 0) {
                byBlock.computeIfAbsent(rest.substring(0, slash), k -> new ArrayList<>()).add(object);
            }
        }
        return byBlock;
    }

    private List<S3Object> listAll(String prefix) throws IOException {
        try {
            List<S3Object> objects = new ArrayList<>();
            s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket).prefix(prefix).build())
                    .contents().forEach(objects::add);
            return objects;
        } catch (SdkException e) {
            throw failed("list " + uri(prefix), e);
        }
    }

    /** The names one level below {@code prefix}, as a listing with a delimiter gives them. */
    private List<String> childNames(String prefix) throws IOException {
        try {
            List<String> names = new ArrayList<>();
            for (CommonPrefix child : s3.listObjectsV2Paginator(ListObjectsV2Request.builder().bucket(bucket)
                    .prefix(prefix).delimiter("/").build()).commonPrefixes()) {
                String name = child.prefix().substring(prefix.length());
                names.add(name.endsWith("/") ? name.substring(0, name.length() - 1) : name);
            }
            return names;
        } catch (SdkException e) {
            throw failed("list " + uri(prefix), e);
        }
    }

    /** The object's metadata, or null when there is no such object. */
    private HeadObjectResponse head(String key) throws IOException {
        try {
            return s3.headObject(b -> b.bucket(bucket).key(key));
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return null;
            }
            throw failed("HEAD " + uri(key), e);
        } catch (SdkException e) {
            throw failed("HEAD " + uri(key), e);
        }
    }

    private void deleteObject(String key) throws IOException {
        try {
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException e) {
            throw failed("DELETE " + uri(key), e);
        }
    }

    private static IOException failed(String what, SdkException e) {
        return new IOException(what + " failed: " + e.getMessage(), e);
    }

    /** Files staged in a local directory until {@link #publish} uploads them, meta.json last. */
    private final class S3PendingBlock extends StagedBlock {

        S3PendingBlock(TenantId tenant, Signal signal, Path staging) {
            super(tenant, signal, staging);
        }

        @Override
        protected OutputStream newFile(Path file) throws IOException {
            return Files.newOutputStream(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        }

        /**
         * Uploads every staged file but meta.json, then meta.json only if no block of that name has
         * one. A failure before meta.json leaves nothing visible, and publish may be retried.
         */
        @Override
        protected void makeVisible(BlockRef ref) throws IOException {
            Path meta = staging.resolve(BlockLayout.META);
            if (!Files.exists(meta)) {
                throw new IllegalStateException("a block is published on S3 by its " + BlockLayout.META + ", and "
                        + ref + " has none");
            }
            // Checked first so that the files of a published block are never overwritten.
            if (head(key(ref, BlockLayout.META)) != null) {
                throw alreadyPublished(ref, null);
            }
            List<Path> files;
            try (Stream<Path> entries = Files.list(staging)) {
                files = entries.filter(f -> !f.equals(meta)).sorted().toList();
            }
            Instant started = clock.instant();
            for (Path file : files) {
                String key = key(ref, file.getFileName().toString());
                try {
                    s3.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromFile(file));
                } catch (SdkException e) {
                    throw failed("PUT " + uri(key), e);
                }
            }
            if (Duration.between(started, clock.instant()).compareTo(grace.dividedBy(2)) > 0) {
                throw new IOException("uploading " + ref + " took longer than half the sweep grace period (" + grace
                        + "), so it is left unpublished for the sweep; publish may be retried");
            }
            String metaKey = key(ref, BlockLayout.META);
            try {
                s3.putObject(b -> b.bucket(bucket).key(metaKey).ifNoneMatch("*"), RequestBody.fromFile(meta));
            } catch (S3Exception e) {
                // The SDK retries a PUT whose answer was lost, and the retry finds the first attempt's meta.json.
                if (e.statusCode() != 412) {
                    throw failed("PUT " + uri(metaKey), e);
                } else if (!Arrays.equals(Files.readAllBytes(meta), readAll(ref, BlockLayout.META))) {
                    throw alreadyPublished(ref, e);
                }
            } catch (SdkException e) {
                throw failed("PUT " + uri(metaKey), e);
            }
            madeVisible();
        }

        /** The staged copies go either way: once uploaded they are the bucket's. */
        @Override
        protected void discard(boolean published) throws IOException {
            deleteStaged(staging);
        }

        private FileAlreadyExistsException alreadyPublished(BlockRef ref, Exception cause) {
            return StagedBlock.alreadyPublished(ref, uri(key(ref, BlockLayout.META)), "nothing was made visible", cause);
        }
    }
}
