package dev.needle.blocks.store.s3;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where an {@link S3BlockStore} lives, as {@code --store s3://BUCKET/PREFIX [--s3-endpoint URL]
 * [--s3-path-style]} give it.
 *
 * @param bucket    the bucket's name
 * @param prefix    the key prefix of every block, without slashes at either end; "" for the bucket's root
 * @param endpoint  the service's URL, or null for AWS S3 in the default region
 * @param pathStyle whether to address the bucket in the path (most S3-compatible servers need it) rather than the host name
 */
public record S3Location(String bucket, String prefix, URI endpoint, boolean pathStyle) {

    public S3Location {
        if (bucket == null || bucket.isBlank()) {
            throw new IllegalArgumentException("an S3 store needs a bucket name");
        }
        prefix = prefix == null ? "" : prefix.replaceAll("^/+|/+$", "");
    }

    /** Reads {@code s3://BUCKET} or {@code s3://BUCKET/PREFIX}. */
    public static S3Location parse(String store, URI endpoint, boolean pathStyle) {
        URI uri;
        try {
            uri = new URI(store);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("a store in a bucket is s3://BUCKET[/PREFIX], got '" + store + "'", e);
        }
        if (!"s3".equals(uri.getScheme()) || uri.getRawAuthority() == null || uri.getQuery() != null
                || uri.getFragment() != null) {
            throw new IllegalArgumentException("a store in a bucket is s3://BUCKET[/PREFIX], got '" + store + "'");
        }
        return new S3Location(uri.getAuthority(), uri.getPath(), endpoint, pathStyle);
    }

    @Override
    public String toString() {
        return "s3://" + bucket + "/" + prefix + (endpoint == null ? "" : " at " + endpoint);
    }
}
