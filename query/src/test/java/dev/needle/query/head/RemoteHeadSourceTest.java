package dev.needle.query.head;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.HeadSource.Part;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Asking ingest nodes for their heads over real sockets: the parts of every node, by tenant and trace;
 * and each way a node can fail (closed port, a node that never answers, an answer too large, an
 * error status) becomes a part that names the node, never a hang or a wrong answer.
 */
class RemoteHeadSourceTest {

    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "remote")), 0, "");
    private static final Scope SCOPE = new Scope("remote", "1", List.of(), 0, "");
    private static final TenantId TENANT = TenantId.of("acme");

    private final List<Server> servers = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (Server s : servers) {
            s.stop();
        }
    }

    /** An ingest node's endpoint over {@code head}, on a free port; returns its URL. */
    private URI node(HeadSource head) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        server.setHandler(new HeadEndpoint(head));
        server.start();
        servers.add(server);
        return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/");
    }

    private static HeadSource head(TenantId tenant, List<Part<SpanRecord>> parts) {
        return new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId t) {
                return t.equals(tenant) ? parts : List.of();
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId t) {
                return List.of();
            }
        };
    }

    @Test
    void ask_everyNode_byTenantAndTrace() throws Exception {
        List<SpanRecord> a = spans(1, 3);
        List<SpanRecord> b = spans(2, 2);
        URI nodeA = node(head(TENANT, List.of(new Part<>("cut-1", a), new Part<>(null, List.of()))));
        URI nodeB = node(head(TENANT, List.of(new Part<>(null, b))));
        try (RemoteHeadSource remote = new RemoteHeadSource(List.of(nodeA, nodeB), Duration.ofSeconds(10), 1 << 20)) {
            List<Part<SpanRecord>> parts = remote.spanParts(TENANT);
            assertEquals(List.of("cut-1", "", ""), parts.stream().map(p -> p.blockId() == null ? "" : p.blockId()).toList());
            assertEquals(5, remote.spans(TENANT).size());
            assertEquals(List.of(), remote.spans(TenantId.DEFAULT));
            assertEquals(b, remote.traceSpanParts(TENANT, b.get(0).traceId()).stream()
                    .flatMap(p -> p.records().stream()).toList());
            assertTrue(parts.stream().allMatch(p -> p.problem() == null));
        }
    }

    @Test
    void ask_aClosedPort_isAPartNamingTheNode() throws Exception {
        URI closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }
        URI up = node(head(TENANT, List.of(new Part<>(null, spans(1, 1)))));
        try (RemoteHeadSource remote = new RemoteHeadSource(List.of(closed, up), Duration.ofSeconds(10), 1 << 20)) {
            List<Part<SpanRecord>> parts = remote.spanParts(TENANT);
            assertEquals(2, parts.size());
            assertTrue(parts.get(0).problem().startsWith("ingest node " + closed + " could not be asked"), parts.get(0).problem());
            assertNull(parts.get(1).problem());
            assertEquals(1, parts.get(1).records().size(), "the node that answered still counts");
        }
    }

    @Test
    void ask_aNodeThatNeverAnswers_isAPartAfterTheTimeout() throws Exception {
        try (ServerSocket silent = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
             RemoteHeadSource remote = new RemoteHeadSource(
                     List.of(URI.create("http://127.0.0.1:" + silent.getLocalPort())), Duration.ofMillis(300), 1 << 20)) {
            Thread acceptor = new Thread(() -> {
                List<Socket> held = new ArrayList<>();
                try {
                    while (true) {
                        held.add(silent.accept());
                    }
                } catch (Exception e) {
                    held.forEach(s -> {
                        try {
                            s.close();
                        } catch (Exception ignored) {
                            // closing a socket the test holds open
                        }
                    });
                }
            });
            acceptor.start();
            List<Part<SpanRecord>> parts = remote.spanParts(TENANT);
            assertEquals(1, parts.size());
            assertTrue(parts.get(0).problem().contains("did not answer within 300 ms"), parts.get(0).problem());
        }
    }

    @Test
    void ask_anAnswerLargerThanTheBound_isAPart() throws Exception {
        URI big = node(head(TENANT, List.of(new Part<>(null, spans(3, 200)))));
        try (RemoteHeadSource remote = new RemoteHeadSource(List.of(big), Duration.ofSeconds(10), 4096)) {
            List<Part<SpanRecord>> parts = remote.spanParts(TENANT);
            assertEquals(1, parts.size());
            assertTrue(parts.get(0).problem().contains("larger than 4096 bytes"), parts.get(0).problem());
        }
    }

    @Test
    void ask_anErrorStatus_isAPartQuotingIt() throws Exception {
        URI node = node(new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                throw new IllegalStateException("the head is gone");
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of();
            }
        });
        try (RemoteHeadSource remote = new RemoteHeadSource(List.of(node), Duration.ofSeconds(10), 1 << 20)) {
            List<Part<SpanRecord>> parts = remote.spanParts(TENANT);
            assertEquals(1, parts.size());
            assertTrue(parts.get(0).problem().contains("could not be asked for its unpublished records: HTTP 500"),
                    parts.get(0).problem());
            assertEquals(List.of(), remote.logParts(TENANT), "its logs still answer");
        }
    }

    @Test
    void new_withAUrlThatIsNoHttpNode_isRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RemoteHeadSource(List.of(URI.create("ftp://x/")), Duration.ofSeconds(1), 1));
        assertTrue(e.getMessage().contains("an ingest node is an http:// URL of its query port"), e.getMessage());
    }

    private static List<SpanRecord> spans(int trace, int n) {
        List<SpanRecord> out = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            long start = 1_764_446_100_000_000_000L + i;
            out.add(SpanRecord.builder().resource(RESOURCE).scope(SCOPE)
                    .traceId(Bytes.fromHex(String.format("%032x", trace)))
                    .spanId(Bytes.fromHex(String.format("%016x", i))).name("op-" + i).kind(2).startTimeUnixNano(start)
                    .endTimeUnixNano(start + 1000).attributes(List.of(KeyValue.of("i", i))).build());
        }
        return out;
    }
}
