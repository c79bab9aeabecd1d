package dev.needle.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.util.Properties;
import org.gaul.s3proxy.BlobStores;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.junit.jupiter.api.Test;

class S3ProxyStarterTest {

    private static BlobStore blobs() {
        Properties properties = new Properties();
        properties.setProperty("jclouds.identity", "key");
        properties.setProperty("jclouds.credential", "secret");
        return BlobStores.create("transient", properties);
    }

    @Test
    void start_onAFreePort_returnsItServing() throws Exception {
        S3Proxy proxy = S3ProxyStarter.start(blobs(), URI.create("http://127.0.0.1:0"), "key", "secret");
        try {
            assertEquals("STARTED", proxy.getState());
            assertTrue(proxy.getPort() > 0, "port " + proxy.getPort());
        } finally {
            proxy.stop();
        }
    }

    @Test
    void start_onATakenPort_failsNamingTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            IOException e = assertThrows(IOException.class, () -> S3ProxyStarter.start(blobs(),
                    URI.create("http://127.0.0.1:" + taken.getLocalPort()), "key", "secret"));
            assertEquals("Failed to bind to /127.0.0.1:" + taken.getLocalPort(), e.getMessage());
        }
    }
}
