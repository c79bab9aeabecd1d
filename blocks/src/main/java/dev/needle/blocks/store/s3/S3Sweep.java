package dev.needle.blocks.store.s3;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The sweep of an {@link S3BlockStore}'s bucket: removes the objects of blocks without a meta.json
 * (uploads a crash cut short, deletes a crash cut short) once the newest of them is older than the
 * grace period. Keys that are not a block's are never touched, and meta.json's absence is checked
 * again just before the delete, so a block that became visible since the listing keeps its files.
 */
final class S3Sweep {

    private static final Logger LOG = LoggerFactory.getLogger(S3Sweep.class);

    private final S3Bucket bucket;
    private final Clock clock;
    private final Duration grace;

    S3Sweep(S3Bucket bucket, Clock clock, Duration grace) {
        this.bucket = bucket;
        this.clock = clock;
        this.grace = grace;
    }

    /**
     * Sweeps the blocks of {@code tenants}; returns the blocks removed, as {@code tenant/signal/name}.
     * A block that cannot be removed is logged and left for the next sweep.
     */
    List<String> sweep(List<TenantId> tenants) throws IOException {
        Instant cutoff = clock.instant().minus(grace);
        List<String> swept = new ArrayList<>();
        for (TenantId tenant : tenants) {
            for (Signal signal : Signal.values()) {
                for (Map.Entry<String, List<S3Object>> entry : bucket.objectsByBlock(tenant, signal).entrySet()) {
                    List<S3Object> objects = entry.getValue();
                    Instant newest = objects.stream().map(S3Object::lastModified).max(Instant::compareTo).orElseThrow();
                    if (S3Bucket.hasMeta(objects) || !newest.isBefore(cutoff) || BlockName.parse(entry.getKey()).isEmpty()) {
                        continue;
                    }
                    String dir = tenant.value() + "/" + signal.dirName() + "/" + entry.getKey();
                    try {
                        // A writer may have finished since the listing: never remove a visible block's files.
                        if (bucket.head(bucket.base() + dir + "/" + BlockLayout.META) != null) {
                            continue;
                        }
                        for (S3Object object : objects) {
                            bucket.deleteObject(object.key());
                        }
                        swept.add(dir);
                        LOG.info("swept unpublished block {}{}", bucket.location(), dir);
                    } catch (IOException e) {
                        LOG.warn("could not sweep unpublished block {}{}", bucket.location(), dir, e);
                    }
                }
            }
        }
        return swept;
    }
}
