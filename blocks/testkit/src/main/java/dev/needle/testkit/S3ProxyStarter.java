package dev.needle.testkit;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;

/**
 * Starts S3Proxy, the S3-compatible server of the tests, of {@code needle bench s3} and of
 * {@code needle s3}, over a store of the caller's, checking AWS signatures (V2 or V4) against one
 * access key and secret as S3 does. S3Proxy starts its server on a thread of its own and only says
 * how that went through its state, so this waits for the state to be STARTED, and fails when it
 * becomes FAILED or stays neither for {@link #TIMEOUT}. Callers name the address in their own
 * message: the one they were given, before port 0 became a free port.
 */
public final class S3ProxyStarter {

    /** How long S3Proxy may take to start serving. */
    public static final Duration TIMEOUT = Duration.ofSeconds(30);

    private S3ProxyStarter() {
    }

    /**
     * S3Proxy over {@code blobs}, serving on {@code endpoint} (port 0: a free one, then
     * {@link S3Proxy#getPort()} says which), started.
     *
     * @throws IOException saying why when it failed to start or did not start within {@link #TIMEOUT};
     *     it is stopped then
     */
    public static S3Proxy start(BlobStore blobs, URI endpoint, String accessKey, String secretKey)
            throws IOException {
        S3Proxy proxy = S3Proxy.builder().blobStore(blobs).endpoint(endpoint)
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey).build();
        try {
            proxy.start();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!"STARTED".equals(proxy.getState())) {
                if ("FAILED".equals(proxy.getState())) {
                    throw new IOException("S3Proxy failed to start");
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("S3Proxy did not start within " + TIMEOUT
                            + " (state " + proxy.getState() + ")");
                }
                Thread.sleep(5);
            }
            return proxy;
        } catch (IOException e) {
            stopQuietly(proxy, e);
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            IOException failure = new IOException("interrupted while S3Proxy was starting", e);
            stopQuietly(proxy, failure);
            throw failure;
        } catch (Exception e) {
            IOException failure = new IOException("S3Proxy failed to start: " + e.getMessage(), e);
            stopQuietly(proxy, failure);
            throw failure;
        }
    }

    private static void stopQuietly(S3Proxy proxy, IOException failure) {
        try {
            proxy.stop();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }
}
