package dev.needle.query.http;

import static dev.needle.query.http.ApiFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.CodedInputStream;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The API on a real socket, bound to 127.0.0.1 on a free port, called with the JDK's HttpClient. */
class SocketTest {

    @TempDir
    Path dir;
    private ApiFixture api;
    private final Server server = new Server();
    private String base;

    @BeforeEach
    void setUp() throws Exception {
        api = new ApiFixture(dir);
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new QueryApi(api.engine, api.metrics));
        server.start();
        base = "http://127.0.0.1:" + connector.getLocalPort();
    }

    @AfterEach
    void tearDown() throws Exception {
        server.stop();
        api.close();
    }

    @Test
    void socket_traceByIdInJsonAndProtobuf_andEcho() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        String id = api.failedTraces.get(2).hex();
        Set<Object> expected = api.spansOf(api.failedTraces.get(2)).stream().map(s -> s.spanId().hex())
                .collect(Collectors.toSet());

        HttpResponse<String> json = client.send(HttpRequest.newBuilder(URI.create(base + "/api/v2/traces/" + id))
                .header("X-Scope-OrgID", A.value()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, json.statusCode());
        assertEquals(expected, JsonTree.spanIds(JsonTree.at(JsonTree.parse(json.body()), "trace")));

        HttpResponse<byte[]> proto = client.send(HttpRequest.newBuilder(URI.create(base + "/api/v2/traces/" + id))
                .header("X-Scope-OrgID", A.value()).header("Accept", "application/protobuf").build(),
                HttpResponse.BodyHandlers.ofByteArray());
        assertEquals(200, proto.statusCode());
        CodedInputStream in = CodedInputStream.newInstance(proto.body());
        assertEquals(1, in.readTag() >>> 3);
        ExportTraceServiceRequest trace = ExportTraceServiceRequest.parseFrom(in.readByteArray());
        assertEquals(3, trace.getResourceSpansCount());

        HttpResponse<String> echo = client.send(HttpRequest.newBuilder(URI.create(base + "/api/echo")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("echo", echo.body());

        HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create(base + "/api/search"))
                .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
    }
}
