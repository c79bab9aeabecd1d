package dev.needle.blocks.store;

import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * An S3-compatible server in the test's process: S3Proxy over its in-memory store, on a free port
 * of 127.0.0.1, checking AWS signatures, so that wrong credentials are refused as S3 refuses them.
 */
public final class S3ProxyServer implements AutoCloseable {

    /** The access key the server accepts. */
    public static final String ACCESS_KEY = "needle-test";
    /** The secret key the server accepts. */
    public static final String SECRET_KEY = "needle-test-secret";

    private final BlobStore blobs;
    private final S3Proxy proxy;
    private final URI endpoint;

    private S3ProxyServer() throws Exception {
        Properties properties = new Properties();
        properties.setProperty("jclouds.identity", ACCESS_KEY);
        properties.setProperty("jclouds.credential", SECRET_KEY);
        blobs = BlobStores.create("transient", properties);
        proxy = S3Proxy.builder().blobStore(blobs).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY).build();
        proxy.start();
        while (!"STARTED".equals(proxy.getState())) {
            Thread.sleep(5);
        }
        endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** Starts a server with no buckets. */
    public static S3ProxyServer start() throws Exception {
        return new S3ProxyServer();
    }

    /** The server's address. */
    public URI endpoint() {
        return endpoint;
    }

    /** Creates a bucket; returns its name. */
    public String createBucket(String name) {
        blobs.createContainer(name);
        return name;
    }

    /** A client with the accepted credentials. */
    public S3Client client() {
        return client(ACCESS_KEY, SECRET_KEY);
    }

    /** A client of this server with the given credentials. */
    public S3Client client(String accessKey, String secretKey) {
        return client(endpoint, accessKey, secretKey);
    }

    /** A client of any endpoint as the store builds them, path-style as S3Proxy needs. */
    public static S3Client client(URI endpoint, String accessKey, String secretKey) {
        return S3BlockStore.clientBuilder(endpoint, true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
    }

    /** Stops the server; clients then fail to connect. */
    @Override
    public void close() throws Exception {
        proxy.stop();
    }
}
