package dev.needle.blocks.store.s3;

import dev.needle.testkit.S3ProxyStarter;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.ForwardingBlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadResponse;
import software.amazon.awssdk.services.s3.model.CopyObjectRequest;
import software.amazon.awssdk.services.s3.model.CopyObjectResponse;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.DeleteObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.PutObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * An S3-compatible server in the test's process: S3Proxy over its in-memory store, on a free port
 * of 127.0.0.1, checking AWS signatures, so that wrong credentials are refused as S3 refuses them.
 * Its writes are serialized, and a conditional PUT's condition checked under the same lock
 * ({@link SerializedWrites}): S3Proxy checks {@code If-Match} before its store takes its lock, so
 * two racing conditional writes could both succeed, where S3 lets only one.
 *
 * <p>A test class shares one with {@code @RegisterExtension static final S3ProxyServer server =
 * S3ProxyServer.perClass();}: it starts before the class's {@code @BeforeAll} methods and stops
 * after its {@code @AfterAll} methods.
 */
public final class S3ProxyServer implements AutoCloseable, BeforeAllCallback, AfterAllCallback {

    /** The access key the server accepts. */
    public static final String ACCESS_KEY = "needle-test";
    /** The secret key the server accepts. */
    public static final String SECRET_KEY = "needle-test-secret";

    private final boolean sdkCredentials;
    private BlobStore blobs;
    private S3Proxy proxy;
    private URI endpoint;

    private S3ProxyServer(boolean sdkCredentials) {
        this.sdkCredentials = sdkCredentials;
    }

    /** Starts a server with no buckets. */
    public static S3ProxyServer start() throws Exception {
        S3ProxyServer server = new S3ProxyServer(false);
        server.open();
        return server;
    }

    /** A server for each test class that registers it as an extension. */
    public static S3ProxyServer perClass() {
        return new S3ProxyServer(false);
    }

    /**
     * {@link #perClass()} whose keys are also the AWS SDK's default credentials while it runs
     * (system properties), for the servers a test starts without a client of its own.
     */
    public static S3ProxyServer perClassAsDefaultCredentials() {
        return new S3ProxyServer(true);
    }

    private void open() throws IOException {
        Properties properties = new Properties();
        properties.setProperty("jclouds.identity", ACCESS_KEY);
        properties.setProperty("jclouds.credential", SECRET_KEY);
        blobs = BlobStores.create("transient", properties);
        proxy = S3ProxyStarter.start(new SerializedWrites(blobs), URI.create("http://127.0.0.1:0"), ACCESS_KEY,
                SECRET_KEY);
        endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        open();
        if (sdkCredentials) {
            System.setProperty("aws.accessKeyId", ACCESS_KEY);
            System.setProperty("aws.secretAccessKey", SECRET_KEY);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (sdkCredentials) {
            System.clearProperty("aws.accessKeyId");
            System.clearProperty("aws.secretAccessKey");
        }
        close();
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
        return S3Clients.builder(endpoint, true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                .build();
    }

    /** Stops the server; clients then fail to connect. */
    @Override
    public void close() throws Exception {
        proxy.stop();
    }

    /** The store with each write made whole (its condition checked, then the write done) before the next starts. */
    private static final class SerializedWrites extends ForwardingBlobStore {

        SerializedWrites(BlobStore delegate) {
            super(delegate);
        }

        @Override
        public synchronized PutObjectResponse putBlob(PutObjectRequest request, InputStream content) {
            HeadObjectResponse current = delegate().blobMetadataIfPresent(request.bucket(), request.key());
            boolean exists = current != null;
            if (("*".equals(request.ifNoneMatch()) && exists) || (request.ifMatch() != null
                    && (!exists || !unquoted(request.ifMatch()).equals(unquoted(current.eTag()))))) {
                throw (S3Exception) S3Exception.builder().statusCode(412).message("At least one of the pre-conditions"
                        + " you specified did not hold").build();
            }
            return super.putBlob(request, content);
        }

        private static String unquoted(String etag) {
            return etag.replace("\"", "");
        }

        @Override
        public synchronized CopyObjectResponse copyBlob(CopyObjectRequest request) {
            return super.copyBlob(request);
        }

        @Override
        public synchronized DeleteObjectResponse removeBlob(DeleteObjectRequest request) {
            return super.removeBlob(request);
        }

        @Override
        public synchronized CompleteMultipartUploadResponse completeMultipartUpload(MultipartUpload upload,
                CompleteMultipartUploadRequest request) {
            return super.completeMultipartUpload(upload, request);
        }
    }
}
