package dev.needle.query.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.query.cli.Cli.Run;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --url}: the same lookups through the real query API ({@link QueryApi} on Jetty, on a
 * socket) print what reading the data directory prints, and the server's failures map to the
 * documented exit codes.
 */
final class ServerQueryTest {

    @TempDir
    static Path dir;
    static Fixture fixture;
    static String data;
    static ApiServer server;

    @BeforeAll
    static void start() throws Exception {
        fixture = Fixture.write(dir);
        data = dir.toString();
        server = ApiServer.start(dir);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    /** The query API over a data directory, on 127.0.0.1 at a free port. */
    record ApiServer(Server jetty, QueryEngine engine, String url) implements AutoCloseable {
        static ApiServer start(Path data) throws Exception {
            QueryEngine engine = new QueryEngine(FsBlockStore.readOnly(data), HeadSource.EMPTY, 1 << 20, 2);
            Server jetty = new Server();
            ServerConnector connector = new ServerConnector(jetty);
            connector.setHost("127.0.0.1");
            connector.setPort(0);
            jetty.addConnector(connector);
            jetty.setHandler(new QueryApi(engine, new QueryMetrics(new PrometheusRegistry(), engine)));
            jetty.start();
            return new ApiServer(jetty, engine, "http://127.0.0.1:" + connector.getLocalPort());
        }

        @Override
        public void close() throws Exception {
            jetty.stop();
            engine.close();
        }
    }

    @Test
    void url_traceAndLogs_printWhatTheDataDirectoryPrints() {
        String from = Long.toString(fixture.blockStart(1) / 1_000_000_000L) + ".25";
        String to = Instant.ofEpochSecond(0, fixture.blockStart(4) + 123_456_789).toString();
        List<List<String>> lookups = List.of(
                List.of("trace", fixture.treeId.hex(), "--logs"),
                List.of("trace", fixture.treeId.hex(), "--logs", "--json"),
                List.of("trace", fixture.otherTenantTraceId.hex(), "--tenant", "team-b"),
                List.of("logs", "{ severity >= warn }", "--limit", "7"),
                List.of("logs", "{ }", "--from", from, "--to", to, "--limit", "1000", "--json"),
                List.of("logs", "{ log.source = \"app\" && severity = info }", "--since", "2h", "--limit", "1000"));
        for (List<String> lookup : lookups) {
            Run local = run(lookup, "--data", data);
            Run remote = run(lookup, "--url", server.url());
            assertEquals(0, local.exit(), local::toString);
            assertEquals(local, remote, "lookup " + lookup);
        }
    }

    @Test
    void url_spans_printsTheTracesThatHoldMatches() {
        Run r = Cli.run("spans", "{ status = error }", "--limit", "100", "--url", server.url());
        assertEquals(0, r.exit(), r::toString);
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).matches("start +trace id +root service +root span +duration"), r::toString);
        Set<String> expected = fixture.spans.stream().filter(s -> s.statusCode() == 2).map(s -> s.traceId().hex())
                .collect(Collectors.toCollection(TreeSet::new));
        Set<String> listed = lines.subList(1, lines.size() - 1).stream().map(line -> line.split(" +")[1])
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(expected, listed);
        // The tree's failing span is not its root; the server still names the whole trace's root, as Tempo does.
        String tree = lines.stream().filter(l -> l.contains(fixture.treeId.hex())).findFirst().orElseThrow();
        assertTrue(tree.contains(fixture.treeId.hex() + "  frontend      GET /checkout"), tree);
        assertTrue(lines.get(lines.size() - 1).startsWith(expected.size() + " traces, newest first"), r::toString);
    }

    @Test
    void spans_traceQl_aDataDirectoryAnswersWhatTheServerAnswers() {
        for (String q : List.of("{ resource.service.name = \"frontend\" } >> { resource.service.name = \"cart\" }",
                "{ resource.service.name = \"frontend\" } > { status = error }",
                "{ resource.service.name = \"checkout\" } ~ { resource.service.name = \"payment\" }",
                "{ status = error } && { name = \"reserve\" }",
                "{ } | count() > 3",
                "{ resource.service.name = \"cart\" } | by(name) | select(span.http.response.status_code)")) {
            Run local = Cli.run("spans", q, "--limit", "100", "--data", dir.toString());
            Run remote = Cli.run("spans", q, "--limit", "100", "--url", server.url());
            assertEquals(0, local.exit(), local::toString);
            assertEquals(remote.out(), local.out(), q);
            assertEquals(Cli.run("spans", q, "--limit", "100", "--json", "--url", server.url()).out(),
                    Cli.run("spans", q, "--limit", "100", "--json", "--data", dir.toString()).out(), q);
        }
        Run tree = Cli.run("spans", "{ resource.service.name = \"frontend\" } >> { resource.service.name = \"cart\" }",
                "--data", dir.toString());
        assertTrue(tree.out().contains(fixture.treeId.hex() + "  frontend      GET /checkout"), tree::toString);
    }

    @Test
    void spans_badTraceQl_saysWhatTheServersSearchSays_withACaret() throws Exception {
        String bad = "{ resource.service.name = \"frontend\" } >> { status = }";
        HttpResponse<String> refused = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(server.url()
                + "/api/search?q=" + URLEncoder.encode(bad, StandardCharsets.UTF_8))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(400, refused.statusCode());
        int at = bad.lastIndexOf('}');
        String message = "at " + at + ": expected a field, value or attribute, got '}'";
        assertTrue(refused.body().contains(message), refused::body);
        for (String where : List.of("--data", "--url")) {
            Run r = Cli.run("spans", bad, where, where.equals("--data") ? dir.toString() : server.url());
            assertEquals(QueryCommand.USAGE, r.exit(), r::toString);
            List<String> lines = r.err().lines().toList();
            assertEquals("needle query spans: bad query: " + message, lines.get(0));
            assertEquals("  " + bad, lines.get(1));
            assertEquals("  " + " ".repeat(at) + "^", lines.get(2));
        }
        Run metrics = Cli.run("spans", "{ } | rate()", "--data", dir.toString());
        assertEquals(QueryCommand.USAGE, metrics.exit(), metrics::toString);
        assertTrue(metrics.err().contains("/api/metrics/query_range"), metrics::toString);
    }

    @Test
    void url_explainAndMechanisms_printTheServersPlan() throws IOException {
        Run with = Cli.run("trace", fixture.treeId.hex(), "--explain", "--url", server.url());
        assertEquals(0, with.exit(), with::toString);
        assertTrue(with.out().contains("spans: 6 blocks listed, 0 pruned by time, 4 by TRACE_IDX"), with::toString);
        assertEquals(2, Cli.opened(with.out()));
        Run without = Cli.run("trace", fixture.treeId.hex(), "--explain", "--no-trace-idx", "--url", server.url());
        assertEquals(Fixture.BLOCKS, Cli.opened(without.out()));

        Run json = Cli.run("spans", "{ resource.service.name = \"nope\" }", "--explain", "--json", "--url", server.url());
        assertEquals(0, json.exit(), json::toString);
        assertEquals(Fixture.BLOCKS, Cli.plans(json.out()).get(0).totals().prunedByAttrIdx());
        assertEquals("[]", Cli.text(Cli.field(json.out(), "traces")));
    }

    @Test
    void url_absentTrace_exits4AndStillExplains() {
        Run r = Cli.run("trace", "c0ffee", "--explain", "--url", server.url());
        assertEquals(QueryCommand.NOT_FOUND, r.exit(), r::toString);
        assertTrue(r.err().contains("trace 00000000000000000000000000c0ffee not found (tenant single-tenant)"), r::toString);
        assertTrue(r.out().startsWith("spans: 6 blocks listed"), r::toString);

        Run ranged = Cli.run("trace", fixture.treeId.hex(), "--since", "1h", "--url", server.url());
        assertEquals(QueryCommand.NOT_FOUND, ranged.exit(), ranged::toString);
    }

    @Test
    void url_unreadableBlock_exits3NamingIt(@TempDir Path own) throws Exception {
        Fixture f = Fixture.write(own);
        try (FileChannel ch = FileChannel.open(FsBlockStore.readOnly(own).blockDir(f.treeBlock).resolve(BlockLayout.DATA),
                StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2);
        }
        try (ApiServer partial = ApiServer.start(own)) {
            Run r = Cli.run("trace", f.treeId.hex(), "--url", partial.url());
            assertEquals(QueryCommand.PARTIAL, r.exit(), r::toString);
            assertTrue(r.err().contains("block " + f.treeBlock + ": "), r::toString);
            assertTrue(r.out().contains("checkout: retry reservation"), r::toString);
        }
    }

    @Test
    void url_spansWithAnUnreadableBlock_exits3NamingItFromTheHeaders(@TempDir Path own) throws Exception {
        Fixture f = Fixture.write(own);
        try (FileChannel ch = FileChannel.open(FsBlockStore.readOnly(own).blockDir(f.treeBlock).resolve(BlockLayout.DATA),
                StandardOpenOption.WRITE)) {
            ch.truncate(ch.size() / 2);
        }
        try (ApiServer partial = ApiServer.start(own)) {
            // More traces than the blocks hold: every block may answer, the unreadable one too.
            Run r = Cli.run("spans", "{ }", "--limit", "100", "--url", partial.url());
            assertEquals(QueryCommand.PARTIAL, r.exit(), r::toString);
            assertTrue(r.err().contains("block " + f.treeBlock + ": "), r::toString);
        }
    }

    @Test
    void url_serverRefusesTheRequest_exits2WithItsMessage() {
        Run r = Cli.run("spans", "{ }", "--limit", "5000", "--url", server.url());
        assertEquals(QueryCommand.USAGE, r.exit(), r::toString);
        assertTrue(r.err().startsWith("needle query spans: the server at " + server.url() + " refused the request: limit:"),
                r::toString);
    }

    @Test
    void url_nobodyListening_exits1WithClearMessage() throws IOException {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        Run r = Cli.run("trace", fixture.treeId.hex(), "--url", "http://127.0.0.1:" + port);
        assertEquals(QueryCommand.ERROR, r.exit(), r::toString);
        assertEquals("needle query trace: cannot reach the server at http://127.0.0.1:" + port + ": connection refused"
                + " (is ./needle serve running there? or read a data directory with --data DIR)", r.err().strip());
    }

    @Test
    void url_notNeedlesApi_exits1SayingWhatCameBack() throws IOException {
        List<String> seen = new ArrayList<>();
        HttpServer other = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        other.createContext("/", exchange -> {
            seen.add(exchange.getRequestURI() + " tenant=" + exchange.getRequestHeaders().getFirst("X-Scope-OrgID"));
            boolean logs = exchange.getRequestURI().getPath().equals("/api/logs");
            byte[] body = (logs ? "no such page" : "<html>hello</html>").getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(logs ? 404 : 200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        other.start();
        try {
            String url = "http://127.0.0.1:" + other.getAddress().getPort();
            Run logs = Cli.run("logs", "{ severity = warn }", "--tenant", "team-b", "--no-zone-maps", "--url", url);
            assertEquals(QueryCommand.ERROR, logs.exit(), logs::toString);
            assertTrue(logs.err().contains("has no /api/logs (HTTP 404: no such page); is it a needle server?"),
                    logs::toString);
            Run spans = Cli.run("spans", "{ }", "--from", "1764446100.5", "--to", "1764446200", "--url", url + "/");
            assertEquals(QueryCommand.ERROR, spans.exit(), spans::toString);
            assertTrue(spans.err().contains("the answer of " + url + "/api/search is not JSON"), spans::toString);
            assertEquals(List.of(
                    "/api/logs?q=%7B%20severity%20%3D%20warn%20%7D&limit=20&disable=zone_maps tenant=team-b",
                    "/api/search?q=%7B%20%7D&limit=20&start=1764446100.5&end=1764446200 tenant=single-tenant"), seen);
        } finally {
            other.stop(0);
        }
    }

    private static Run run(List<String> lookup, String... more) {
        List<String> args = new ArrayList<>(lookup);
        args.addAll(List.of(more));
        return Cli.run(args.toArray(String[]::new));
    }
}
