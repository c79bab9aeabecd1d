package dev.needle.blocks.store.s3;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.concurrent.CompletionException;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.retry.RetryMode;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.AwsProfileRegionProvider;
import software.amazon.awssdk.regions.providers.AwsRegionProviderChain;
import software.amazon.awssdk.regions.providers.SystemSettingsRegionProvider;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.S3Configuration;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * The S3 client of an {@link S3BlockStore}: how it is built (HTTP connection, timeouts, retries,
 * endpoint, addressing, signing), where its region comes from, and the check, when a store opens,
 * that its bucket answers, each way it can fail said as such.
 */
public final class S3Clients {

    private S3Clients() {
    }

    /** {@link #builder(URI, boolean, S3Timeouts)} with the {@linkplain S3Timeouts#DEFAULTS default timeouts}. */
    public static S3ClientBuilder builder(URI endpoint, boolean pathStyle) {
        return builder(endpoint, pathStyle, S3Timeouts.DEFAULTS);
    }

    /**
     * A client builder as the store expects: the JDK's HTTP connection (no Netty, Apache or CRT
     * client) with {@code timeouts}, the SDK's standard retry strategy (3 attempts, see
     * {@link S3Timeouts}) whatever {@code AWS_RETRY_MODE} says, {@code endpoint} when not AWS's (null
     * for AWS), path-style addressing when asked (most S3-compatible servers need it), and payloads
     * signed whole rather than in aws-chunked encoding, which S3Proxy's conditional PUT mishandles (the
     * connection breaks, the SDK retries). Credentials and region come from the SDK's default chains
     * unless the caller sets them.
     */
    public static S3ClientBuilder builder(URI endpoint, boolean pathStyle, S3Timeouts timeouts) {
        S3ClientBuilder builder = S3Client.builder()
                .httpClient(UrlConnectionHttpClient.builder().connectionTimeout(timeouts.connect())
                        .socketTimeout(timeouts.socket()).build())
                .overrideConfiguration(o -> o.retryStrategy(RetryMode.STANDARD).apiCallAttemptTimeout(timeouts.attempt()))
                .forcePathStyle(pathStyle)
                .serviceConfiguration(S3Configuration.builder().chunkedEncodingEnabled(false).build());
        return endpoint == null ? builder : builder.endpointOverride(endpoint);
    }

    /** A client of {@link #builder} for {@code location}, credentials and region from the SDK's chains. */
    static S3Client client(S3Location location) throws IOException {
        S3ClientBuilder builder = builder(location.endpoint(), location.pathStyle());
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

    /**
     * Checks that {@code s3} has credentials and that {@code bucket} answers to them.
     *
     * @throws IOException naming the cause when the bucket does not exist, the credentials are
     *     refused or missing, or the endpoint cannot be reached
     */
    static void checkBucket(S3Client s3, String bucket) throws IOException {
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
}
