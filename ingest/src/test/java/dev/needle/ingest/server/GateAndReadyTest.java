package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The recovery gate and {@code /ready} without sockets, through Jetty's LocalConnector. */
class GateAndReadyTest {

    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);

    @AfterEach
    void stop() throws Exception {
        server.stop();
    }

    private HttpTester.Response get(String path) throws Exception {
        return HttpTester.parseResponse(connector.getResponse("GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
    }

    private void start(Handler handler) throws Exception {
        server.addConnector(connector);
        server.setHandler(handler);
        server.start();
    }

    @Test
    void gate_beforeItsHandlerIsSet_answers503WithRetryAfter_thenDelegates() throws Exception {
        RecoveryGate gate = new RecoveryGate();
        start(gate);
        HttpTester.Response recovering = get("/v1/traces");
        assertEquals(503, recovering.getStatus());
        assertEquals("1", recovering.get("Retry-After"));

        gate.setHandler(new Handler.Abstract() {
            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                response.setStatus(202);
                response.write(true, ByteBuffer.allocate(0), callback);
                return true;
            }
        });
        assertEquals(202, get("/v1/traces").getStatus());
    }

    @Test
    void ready_followsItsSupplier_sayingWhyNot_andRefusesPost() throws Exception {
        AtomicReference<String> notReady = new AtomicReference<>("ingest stopped: java.lang.OutOfMemoryError");
        start(new ReadyHandler(notReady::get));
        HttpTester.Response stopped = get("/ready");
        assertEquals(503, stopped.getStatus());
        assertEquals("not ready: ingest stopped: java.lang.OutOfMemoryError\n", stopped.getContent());
        notReady.set(null);
        HttpTester.Response ok = get("/ready");
        assertEquals(200, ok.getStatus());
        assertEquals("ready\n", ok.getContent());
        HttpTester.Response post = HttpTester.parseResponse(connector.getResponse(
                "POST /ready HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
        assertEquals(405, post.getStatus());
        assertEquals("GET, HEAD", post.get("Allow"));
    }
}
