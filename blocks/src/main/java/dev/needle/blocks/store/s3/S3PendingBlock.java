package dev.needle.blocks.store.s3;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.StagedBlock;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A block being written to an {@link S3BlockStore}: its files staged in a local directory of their
 * own until {@link #publish} uploads them, meta.json last and only if no block of that name has one.
 * For one thread.
 */
final class S3PendingBlock extends StagedBlock {

    /** The name prefix of a staging directory, one per block being written. */
    static final String STAGING_PREFIX = "block-";

    private static final Logger LOG = LoggerFactory.getLogger(S3PendingBlock.class);

    private final S3BlockStore store;
    private final S3Bucket bucket;
    private final Clock clock;
    private final Duration grace;

    S3PendingBlock(S3BlockStore store, S3Bucket bucket, Clock clock, Duration grace, TenantId tenant, Signal signal,
                   Path staging) {
        super(tenant, signal, staging);
        this.store = store;
        this.bucket = bucket;
        this.clock = clock;
        this.grace = grace;
    }

    /** Removes the staging directories a crashed process left; a directory that cannot be removed is only logged. */
    static void removeStagedLeftovers(Path staging) throws IOException {
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
        if (bucket.head(bucket.key(ref, BlockLayout.META)) != null) {
            throw alreadyPublished(ref, null);
        }
        List<Path> files;
        try (Stream<Path> entries = Files.list(staging)) {
            files = entries.filter(f -> !f.equals(meta)).sorted().toList();
        }
        Instant started = clock.instant();
        for (Path file : files) {
            String key = bucket.key(ref, file.getFileName().toString());
            try {
                bucket.client().putObject(b -> b.bucket(bucket.name()).key(key), RequestBody.fromFile(file));
            } catch (SdkException e) {
                throw S3Bucket.failed("PUT " + bucket.uri(key), e);
            }
        }
        if (Duration.between(started, clock.instant()).compareTo(grace.dividedBy(2)) > 0) {
            throw new IOException("uploading " + ref + " took longer than half the sweep grace period (" + grace
                    + "), so it is left unpublished for the sweep; publish may be retried");
        }
        String metaKey = bucket.key(ref, BlockLayout.META);
        try {
            bucket.client().putObject(b -> b.bucket(bucket.name()).key(metaKey).ifNoneMatch("*"),
                    RequestBody.fromFile(meta));
        } catch (S3Exception e) {
            // The SDK retries a PUT whose answer was lost, and the retry finds the first attempt's meta.json.
            if (e.statusCode() != 412) {
                throw S3Bucket.failed("PUT " + bucket.uri(metaKey), e);
            } else if (!Arrays.equals(Files.readAllBytes(meta), readAll(ref, BlockLayout.META))) {
                throw alreadyPublished(ref, e);
            }
        } catch (SdkException e) {
            throw S3Bucket.failed("PUT " + bucket.uri(metaKey), e);
        }
        madeVisible();
    }

    /** The staged copies go either way: once uploaded they are the bucket's. */
    @Override
    protected void discard(boolean published) throws IOException {
        deleteStaged(staging);
    }

    private byte[] readAll(BlockRef block, String file) throws IOException {
        try (InputStream in = Channels.newInputStream(store.open(block, file))) {
            return in.readAllBytes();
        }
    }

    private FileAlreadyExistsException alreadyPublished(BlockRef ref, Exception cause) {
        return StagedBlock.alreadyPublished(ref, bucket.uri(bucket.key(ref, BlockLayout.META)), "nothing was made visible",
                cause);
    }
}
