package dev.needle.blocks.store.s3;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.testkit.FaultProxy;
import dev.needle.testkit.FaultProxy.Fault;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.DefaultRetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * {@link FaultProxy} in front of S3Proxy: signed requests pass unchanged (a PUT with
 * {@code Expect: 100-continue} too), and each fault does what it says to the requests it matches.
 */
class FaultProxyTest {

    private static final byte[] OBJECT = new byte[100_000];

    @RegisterExtension
    static final S3ProxyServer server = S3ProxyServer.perClass();
    private FaultProxy proxy;
    private S3Client client;

    @BeforeAll
    static void startServer() throws Exception {
        server.createBucket("faults");
        new Random(3).nextBytes(OBJECT);
    }

    @BeforeEach
    void startProxy() throws IOException {
        proxy = FaultProxy.start(server.endpoint());
        // No retries and short timeouts: what the proxy answers is what the test sees.
        client = S3Clients.builder(proxy.endpoint(), true,
                        new S3Timeouts(Duration.ofSeconds(2), Duration.ofMillis(500), Duration.ofSeconds(5)))
                .overrideConfiguration(o -> o.retryStrategy(DefaultRetryStrategy.doNotRetry()))
                .region(Region.US_EAST_1).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3ProxyServer.ACCESS_KEY, S3ProxyServer.SECRET_KEY)))
                .build();
        client.putObject(r -> r.bucket("faults").key("a/object"), RequestBody.fromBytes(OBJECT));
        client.putObject(r -> r.bucket("faults").key("z/object"), RequestBody.fromBytes(OBJECT));
    }

    @AfterEach
    void stopProxy() throws IOException {
        client.close();
        proxy.close();
    }

    @Test
    void takeLog_holdsEachAnsweredRequestWithItsRangeStatusAndBytes_thenEmpties() {
        proxy.takeLog();
        client.getObject(r -> r.bucket("faults").key("a/object").range("bytes=10-19"), (response, in) -> in.readAllBytes());
        assertThrows(S3Exception.class, () -> get("a/missing"));
        List<FaultProxy.Exchange> log = proxy.takeLog();
        assertEquals(2, log.size(), log::toString);
        FaultProxy.Exchange ranged = log.get(0);
        assertEquals("GET", ranged.method());
        assertEquals("/faults/a/object", ranged.target().replaceAll("\\?.*", ""));
        assertEquals("bytes=10-19", ranged.range());
        assertEquals(206, ranged.status());
        assertEquals(10, ranged.bodyBytes());
        assertTrue(ranged.endNanos() >= ranged.startNanos());
        assertEquals(404, log.get(1).status());
        assertTrue(log.get(1).startNanos() >= ranged.endNanos(), "the second request was sent after the first was answered");
        assertTrue(proxy.takeLog().isEmpty());
    }

    private byte[] get(String key) {
        return client.getObjectAsBytes(r -> r.bucket("faults").key(key)).asByteArray();
    }

    @Test
    void forwards_signedRequestsAndTheirAnswers() {
        assertArrayEquals(OBJECT, get("a/object"));
        assertEquals(OBJECT.length, client.headObject(r -> r.bucket("faults").key("a/object")).contentLength());
        assertEquals(2, client.listObjectsV2(r -> r.bucket("faults")).keyCount());
        assertEquals(404, assertThrows(S3Exception.class, () -> get("missing")).statusCode(),
                "the server's own errors come through");
        client.deleteObject(r -> r.bucket("faults").key("z/object"));
        assertEquals(1, client.listObjectsV2(r -> r.bucket("faults")).keyCount());
        assertEquals(2, proxy.requests("PUT"));
        assertEquals(4, proxy.requests("GET"), "two GETs of objects, two listings");
        assertEquals(1, proxy.requests("HEAD"));
    }

    @Test
    void status_answersTheMatchingRequestsOnly_forAsManyAsAsked() {
        FaultProxy.Injection failing = proxy.inject(Fault.status(503).on("GET", "^/faults/a/").times(2));

        S3Exception e = assertThrows(S3Exception.class, () -> get("a/object"));
        assertEquals(503, e.statusCode());
        assertEquals("SlowDown", e.awsErrorDetails().errorCode());
        assertArrayEquals(OBJECT, get("z/object"), "another key");
        client.headObject(r -> r.bucket("faults").key("a/object"));
        assertEquals(503, assertThrows(S3Exception.class, () -> get("a/object")).statusCode());
        assertArrayEquals(OBJECT, get("a/object"), "the third GET: the fault was for two");
        assertEquals(2, failing.hits());

        proxy.inject(Fault.status(500).on("PUT", "/faults/"));
        S3Exception put = assertThrows(S3Exception.class,
                () -> client.putObject(r -> r.bucket("faults").key("c"), RequestBody.fromBytes(OBJECT)));
        assertEquals("InternalError", put.awsErrorDetails().errorCode());
        proxy.heal();
        client.putObject(r -> r.bucket("faults").key("c"), RequestBody.fromBytes(OBJECT));
        assertArrayEquals(OBJECT, get("c"));
    }

    /** Lower bounds only: a request is never answered sooner than it is held. */
    @Test
    void latencyAndDelay_holdTheRequestsAtLeastThatLong() {
        proxy.latency(Duration.ofMillis(150));
        long started = System.nanoTime();
        get("a/object");
        assertTrue(System.nanoTime() - started >= Duration.ofMillis(150).toNanos());

        proxy.inject(Fault.delay(Duration.ofMillis(300)).on("HEAD", "/a/"));
        started = System.nanoTime();
        client.headObject(r -> r.bucket("faults").key("a/object"));
        assertTrue(System.nanoTime() - started >= Duration.ofMillis(450).toNanos());
    }

    @Test
    void hang_untilTheClientGivesUp_thenTheProxyServesAgain() {
        FaultProxy.Injection hanging = proxy.inject(Fault.hang().on("GET", "/a/object"));
        SdkClientException e = assertThrows(SdkClientException.class, () -> get("a/object"));
        assertTrue(e.getMessage().toLowerCase().contains("timed out"), e.getMessage());
        assertEquals(1, hanging.hits());
        hanging.remove();
        assertArrayEquals(OBJECT, get("a/object"));
    }

    /** Through a plain socket, to see the bytes: S3Proxy refuses the unsigned GET with an XML body, which is cut. */
    @Test
    void truncate_sendsTheWholeContentLength_thenHalfTheBody_andCloses() throws IOException {
        byte[] whole = rawGet();
        Matcher length = Pattern.compile("(?i)Content-Length: (\\d+)").matcher(new String(whole, ISO_8859_1));
        assertTrue(length.find());
        int body = Integer.parseInt(length.group(1));
        assertTrue(body > 0);

        proxy.inject(Fault.truncate().on("GET", "/a/"));
        byte[] cut = rawGet();
        assertEquals(whole.length - body + body / 2, cut.length, new String(cut, ISO_8859_1));
        assertTrue(new String(cut, ISO_8859_1).contains("Content-Length: " + body));
    }

    /** An unsigned GET of a/object, read until the proxy closes the connection. */
    private byte[] rawGet() throws IOException {
        try (Socket socket = new Socket(proxy.endpoint().getHost(), proxy.endpoint().getPort())) {
            socket.getOutputStream().write(("GET /faults/a/object HTTP/1.1\r\nHost: " + proxy.endpoint().getAuthority()
                    + "\r\nConnection: close\r\n\r\n").getBytes(UTF_8));
            InputStream in = socket.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            in.transferTo(out);
            return out.toByteArray();
        }
    }
}
