package dev.needle.blocks.store.s3;

import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.util.Optional;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The index object of each tenant and signal in an {@link S3BlockStore}'s bucket
 * ({@code <prefix>/<tenant>/<signal>/INDEX}), read and replaced by compare-and-set on its ETag: a
 * conditional GET ({@code If-None-Match}) that costs a 304 when nothing changed, and a conditional
 * PUT ({@code If-Match}, or {@code If-None-Match: *} to create) that fails when another writer was
 * first. Thread-safe.
 */
final class S3Index {

    private final S3Bucket bucket;

    S3Index(S3Bucket bucket) {
        this.bucket = bucket;
    }

    /** One GET, with {@code If-None-Match} on the known ETag: an unchanged index costs a 304 and no body. */
    Optional<IndexObject> read(TenantId tenant, Signal signal, String knownToken) throws IOException {
        String key = key(tenant, signal);
        try (ResponseInputStream<GetObjectResponse> in = bucket.client().getObject(b -> b.bucket(bucket.name()).key(key)
                .ifNoneMatch(knownToken))) {
            Long length = in.response().contentLength();
            if (length != null && length > BlockIndex.HEADER_BYTES + (long) BlockIndex.MAX_BODY_BYTES) {
                throw new IOException(bucket.uri(key) + " has " + length + " bytes, more than an index may");
            }
            return Optional.of(new IndexObject(in.readAllBytes(), in.response().eTag()));
        } catch (S3Exception e) {
            if (e.statusCode() == 304) {
                return Optional.of(new IndexObject(null, knownToken));
            } else if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw S3Bucket.failed("GET " + bucket.uri(key), e);
        } catch (SdkException e) {
            throw S3Bucket.failed("GET " + bucket.uri(key), e);
        }
    }

    /**
     * One conditional PUT: {@code If-Match} on {@code expectedToken}, or {@code If-None-Match: *} to
     * create. 412 (the ETag moved on, or the object exists) and 409 (a conditional write racing
     * another) mean another writer was first. A PUT the SDK retried after a lost answer finds its
     * own write and says so too; the caller's re-read then sees its change already made.
     */
    String write(TenantId tenant, Signal signal, byte[] bytes, String expectedToken) throws IOException {
        String key = key(tenant, signal);
        try {
            return bucket.client().putObject(b -> {
                b.bucket(bucket.name()).key(key);
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
            throw S3Bucket.failed("PUT " + bucket.uri(key), e);
        } catch (SdkException e) {
            throw S3Bucket.failed("PUT " + bucket.uri(key), e);
        }
    }

    private String key(TenantId tenant, Signal signal) {
        return bucket.base() + tenant.value() + "/" + signal.dirName() + "/" + BlockStore.INDEX_OBJECT;
    }
}
