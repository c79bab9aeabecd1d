package dev.needle.bench.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.needle.blocks.store.s3.S3Clients;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.gaul.s3proxy.S3Proxy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** {@code needle s3}'s server: the bucket made, objects kept as files across a restart, wrong keys refused. */
class LocalS3CommandTest {

    @TempDir
    Path dir;

    private static S3Client client(S3Proxy proxy, String secret) {
        return S3Clients.builder(URI.create("http://127.0.0.1:" + proxy.getPort()), true).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("needle", secret))).build();
    }

    @Test
    void start_makesTheBucket_andKeepsObjectsAcrossARestart() throws Exception {
        S3Proxy first = LocalS3Command.start(dir, "127.0.0.1", 0, "needle", "needle", "needle-secret");
        try (S3Client s3 = client(first, "needle-secret")) {
            s3.putObject(b -> b.bucket("needle").key("a/meta.json").ifNoneMatch("*"), RequestBody.fromString("{}"));
            assertEquals(412, assertThrows(S3Exception.class, () -> s3.putObject(
                    b -> b.bucket("needle").key("a/meta.json").ifNoneMatch("*"), RequestBody.fromString("{}"))).statusCode());
        } finally {
            first.stop();
        }
        S3Proxy second = LocalS3Command.start(dir, "127.0.0.1", 0, "needle", "needle", "needle-secret");
        try (S3Client s3 = client(second, "needle-secret"); S3Client wrong = client(second, "guess")) {
            assertEquals("{}", s3.getObjectAsBytes(b -> b.bucket("needle").key("a/meta.json")).asString(StandardCharsets.UTF_8));
            assertEquals(403, assertThrows(S3Exception.class,
                    () -> wrong.headBucket(b -> b.bucket("needle"))).statusCode());
        } finally {
            second.stop();
        }
    }
}
