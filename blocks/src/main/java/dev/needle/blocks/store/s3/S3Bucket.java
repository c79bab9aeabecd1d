package dev.needle.blocks.store.s3;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link S3BlockStore}'s bucket under its prefix, as the store's parts ask it: the keys of blocks'
 * files, listings (a signal's objects grouped by block), HEAD and DELETE, each failure an
 * {@link IOException} naming the request and the object. Thread-safe, as its client is.
 */
final class S3Bucket {

    private final S3Client s3;
    private final String bucket;
    private final String base;

    /** {@code prefix} is "" for the bucket's root. */
    S3Bucket(S3Client s3, String bucket, String prefix) {
        this.s3 = s3;
        this.bucket = bucket;
        this.base = prefix.isEmpty() ? "" : prefix + "/";
    }

    S3Client client() {
        return s3;
    }

    /** The bucket's name. */
    String name() {
        return bucket;
    }

    /** The prefix with its trailing slash, or "" for the bucket's root. */
    String base() {
        return base;
    }

    /** Where the blocks are, as {@code s3://bucket/prefix/}. */
    String location() {
        return "s3://" + bucket + "/" + base;
    }

    String key(BlockRef block, String file) {
        return base + block + "/" + file;
    }

    String uri(String key) {
        return "s3://" + bucket + "/" + key;
    }

    static boolean hasMeta(List<S3Object> objects) {
        return objects.stream().anyMatch(o -> o.key().endsWith("/" + BlockLayout.META));
    }

    /** A signal's objects grouped by the first path segment after the signal (a block's name), in key order. */
    Map<String, List<S3Object>> objectsByBlock(TenantId tenant, Signal signal) throws IOException {
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

    List<S3Object> listAll(String prefix) throws IOException {
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
    List<String> childNames(String prefix) throws IOException {
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
    HeadObjectResponse head(String key) throws IOException {
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

    void deleteObject(String key) throws IOException {
        try {
            s3.deleteObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException e) {
            throw failed("DELETE " + uri(key), e);
        }
    }

    static IOException failed(String what, SdkException e) {
        return new IOException(what + " failed: " + e.getMessage(), e);
    }
}
