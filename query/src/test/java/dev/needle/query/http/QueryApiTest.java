package dev.needle.query.http;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.PendingBlock;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.QueryLimits;
import dev.needle.query.metrics.QueryMetrics;
import dev.needle.sidecar.cli.NeedleVersion;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Routing, methods, parameters and failures: every bad request is a 4xx with a message, never a 500. */
class QueryApiTest {

    @TempDir
    Path dir;
    private ApiFixture api;

    @BeforeEach
    void setUp() throws Exception {
        api = new ApiFixture(dir);
    }

    @AfterEach
    void tearDown() throws Exception {
        api.close();
    }

    private HttpTester.Response getA(String uri) throws Exception {
        return api.get(uri, "X-Scope-OrgID", A.value());
    }

    @Test
    void buildinfo_answersTemposShapeWithNeedlesVersion() throws Exception {
        HttpTester.Response r = api.get("/api/status/buildinfo");
        assertEquals(200, r.getStatus());
        assertEquals("application/json", r.get("Content-Type"));
        Map<String, Object> info = JsonTree.object(JsonTree.parse(r.getContent()));
        // Prometheus' version struct, which Tempo answers: six strings, nothing else.
        assertEquals(List.of("version", "revision", "branch", "buildUser", "buildDate", "goVersion"),
                List.copyOf(info.keySet()));
        info.values().forEach(v -> assertInstanceOf(String.class, v));
        assertEquals(NeedleVersion.version(), info.get("version"));
        assertTrue(((String) info.get("goVersion")).startsWith("java17"), info.toString());
    }

    @Test
    void echo_answersEcho() throws Exception {
        HttpTester.Response r = api.get("/api/echo");
        assertEquals(200, r.getStatus());
        assertEquals("echo", r.getContent());
        assertTrue(r.get("Content-Type").startsWith("text/plain"));
    }

    @Test
    void anyMethodButGet_is405AllowingGet() throws Exception {
        for (String method : List.of("POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")) {
            for (String uri : List.of("/api/echo", "/api/search", "/api/v2/traces/abc", "/nowhere")) {
                HttpTester.Response r = api.request(method, uri, "X-Scope-OrgID", A.value());
                assertEquals(405, r.getStatus(), method + " " + uri);
                assertEquals("GET", r.get("Allow"));
                if (!method.equals("HEAD")) {
                    assertTrue(ApiFixture.error(r).contains(method), r.getContent());
                }
            }
        }
    }

    @Test
    void unknownPath_is404Json() throws Exception {
        for (String uri : List.of("/", "/api", "/api/", "/api/search/", "/api/v2/traces", "/api/v3/traces/abc", "/metrics",
                "/api/v2/x")) {
            HttpTester.Response r = getA(uri);
            assertEquals(404, r.getStatus(), uri);
            assertTrue(ApiFixture.error(r).startsWith("no such endpoint"), uri);
        }
    }

    @Test
    void traversalInThePath_neverReachesATenantOrFile() throws Exception {
        // Jetty resolves or refuses dot segments before the handler; whatever is left is no trace id.
        for (String uri : List.of("/api/v2/traces/../x", "/api/v2/traces/..%2Fx", "/api/traces/%2e%2e/x",
                "/api/v2/traces/..", "/api/v2/traces/%2e%2e%2f%2e%2e%2fteam-b")) {
            int status = getA(uri).getStatus();
            assertTrue(status == 400 || status == 404, uri + " gave " + status);
        }
    }

    @Test
    void badCommonParams_are400NamingTheParam() throws Exception {
        String trace = "/api/v2/traces/" + api.failedTraces.get(0).hex() + "?";
        List<String[]> cases = List.of(
                new String[] {trace + "start=abc", "start: "},
                new String[] {trace + "start=-5", "start: "},
                new String[] {trace + "end=1e9", "end: "},
                new String[] {trace + "end=99999999999", "end: 99999999999 seconds is beyond"},
                new String[] {trace + "start=1764446100000000000", "start: 1764446100000000000 seconds is beyond"},
                new String[] {trace + "start=20&end=10", "start (20) is after end (10)"},
                new String[] {trace + "start=1&start=2", "start: given 2 times"},
                new String[] {trace + "explain=yes", "explain: expected true or false"},
                new String[] {trace + "logs=1", "logs: expected true or false"},
                new String[] {trace + "disable=time,bloom", "disable: unknown mechanism \"bloom\""},
                new String[] {"/api/search?start=1.5.5", "start: "},
                new String[] {"/api/search?limit=10%00", "limit: "},
                new String[] {"/api/logs?end=" + "9".repeat(40), "end: "},
                new String[] {"/api/logs?disable=limit", "disable: unknown mechanism"},
                new String[] {"/api/search?q=%zz", "the query string cannot be decoded"});
        for (String[] c : cases) {
            HttpTester.Response r = getA(c[0]);
            assertEquals(400, r.getStatus(), c[0] + ": " + r.getContent());
            assertTrue(ApiFixture.error(r).startsWith(c[1]), c[0] + ": " + ApiFixture.error(r));
        }
    }

    @Test
    void emptyAndFractionalParams_areAccepted() throws Exception {
        String id = api.failedTraces.get(0).hex();
        assertEquals(200, getA("/api/v2/traces/" + id + "?start=&end=&limit=&disable=&explain=").getStatus());
        assertEquals(200, getA("/api/v2/traces/" + id + "?start=0&end=" + (ApiFixture.T0_SECONDS + 1000) + ".123456789123")
                .getStatus());
        assertEquals(200, getA("/api/v2/traces/" + id + "?unknown=param&spss=3").getStatus());
    }

    @Test
    void randomInput_neverGives500() throws Exception {
        SplittableRandom random = new SplittableRandom(7);
        String alphabet = "{}()=<>!&|\".\\ +-_,/%09azAZ\u00e9\u0000\t\nseverityname.servicestatus";
        List<String> params = List.of("q", "tags", "start", "end", "limit", "disable", "explain", "logs");
        List<String> paths = List.of("/api/search", "/api/logs", "/api/v2/traces/", "/api/traces/");
        for (int i = 0; i < 400; i++) {
            String path = paths.get(random.nextInt(paths.size()));
            StringBuilder uri = new StringBuilder(path);
            if (path.endsWith("/")) {
                uri.append(enc(junk(random, alphabet)).replace("+", "%20"));
            }
            uri.append('?');
            for (int p = 0; p < 1 + random.nextInt(3); p++) {
                uri.append(params.get(random.nextInt(params.size()))).append('=')
                        .append(enc(junk(random, alphabet))).append('&');
            }
            HttpTester.Response r = getA(uri.toString());
            assertTrue(r.getStatus() < 500, uri + " gave " + r.getStatus() + ": " + r.getContent());
        }
    }

    private static String junk(SplittableRandom random, String alphabet) {
        StringBuilder s = new StringBuilder();
        int n = random.nextInt(24);
        for (int i = 0; i < n; i++) {
            s.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return s.toString();
    }

    @Test
    void failures_aStoreThatCannotBeListedIs503_oneInsideIs500_withAMessage() throws Exception {
        HeadSource failingHead = new HeadSource() {
            @Override
            public List<Part<SpanRecord>> spanParts(TenantId tenant) {
                throw new IllegalStateException("head lost");
            }

            @Override
            public List<Part<LogRecord>> logParts(TenantId tenant) {
                return List.of();
            }
        };
        Server server = new Server();
        LocalConnector connector = new LocalConnector(server);
        server.addConnector(connector);
        try (QueryEngine broken = new QueryEngine(new FailingStore(), HeadSource.EMPTY, 0, 1);
             QueryEngine headless = new QueryEngine(api.store, failingHead, 0, 1)) {
            server.setHandler(new QueryApi(broken, new QueryMetrics(new PrometheusRegistry(), broken)));
            server.start();
            for (String uri : List.of("/api/search", "/api/logs", "/api/v2/traces/abc", "/api/traces/abc")) {
                HttpTester.Response r = get(connector, uri);
                assertEquals(503, r.getStatus(), uri);
                assertEquals("5", r.get("Retry-After"), uri);
                assertTrue(ApiFixture.error(r).contains("the store could not be read") && ApiFixture.error(r).contains("disk on fire"), ApiFixture.error(r));
            }
            assertEquals(200, get(connector, "/api/echo").getStatus());
            assertEquals(400, get(connector, "/api/search?limit=0").getStatus(), "input is checked before the engine runs");
            server.stop();
            server.setHandler(new QueryApi(headless, new QueryMetrics(new PrometheusRegistry(), headless)));
            server.start();
            HttpTester.Response r = get(connector, "/api/search");
            assertEquals(500, r.getStatus());
            assertTrue(ApiFixture.error(r).contains("head lost"), ApiFixture.error(r));
        } finally {
            server.stop();
        }
    }

    @Test
    void aQueryPastItsLimits_is422Or503_sayingWhich_countedInMetrics_andTheNextAnswers() throws Exception {
        Server server = new Server();
        LocalConnector connector = new LocalConnector(server);
        server.addConnector(connector);
        PrometheusRegistry registry = new PrometheusRegistry();
        // Room for a few records per query, and a deadline no query meets.
        try (QueryEngine small = new QueryEngine(api.store, HeadSource.EMPTY, 0, 1,
                new QueryLimits(2_000, 2_000, Duration.ofMinutes(1)));
             QueryEngine slow = new QueryEngine(api.store, HeadSource.EMPTY, 0, 1,
                     new QueryLimits(1 << 30, 1 << 30, Duration.ofNanos(1)))) {
            QueryMetrics metrics = new QueryMetrics(registry, small);
            server.setHandler(new QueryApi(small, metrics));
            server.start();
            HttpTester.Response big = ApiFixture.send(connector, "GET", "/api/search?q=" + enc("{ }") + "&limit=1000",
                    "X-Scope-OrgID", A.value());
            assertEquals(422, big.getStatus(), big.getContent());
            assertTrue(big.getContent().contains("memory limit of 2000B"), big.getContent());
            assertEquals(200, get(connector, "/api/echo").getStatus());
            String trace = "/api/v2/traces/" + api.failedTraces.get(0).hex();
            HttpTester.Response one = ApiFixture.send(connector, "GET", "/loki/api/v1/query_range?query="
                    + enc("{service_name=\"frontend\"}") + "&limit=1&start=0", "X-Scope-OrgID", A.value());
            assertEquals(200, one.getStatus(), one.getContent());
            assertTrue(one.getContent().contains("\"values\":[["), "a small query still runs: " + one.getContent());
            server.stop();
            server.setHandler(new QueryApi(slow, new QueryMetrics(new PrometheusRegistry(), slow)));
            server.start();
            HttpTester.Response late = ApiFixture.send(connector, "GET", trace, "X-Scope-OrgID", A.value());
            assertEquals(503, late.getStatus(), late.getContent());
            assertTrue(late.getContent().contains("ran longer than its limit"), late.getContent());
            assertEquals(1.0, registry.scrape().stream().filter(m -> m.getMetadata().getName().equals("needle_query_aborted"))
                    .findFirst().orElseThrow().getDataPoints().stream()
                    .filter(p -> p.getLabels().get("reason").equals("memory")).mapToDouble(p ->
                            ((io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot) p).getValue())
                    .sum());
        } finally {
            server.stop();
        }
    }

    private static HttpTester.Response get(LocalConnector connector, String uri) throws Exception {
        return ApiFixture.send(connector, "GET", uri);
    }

    /** A store whose every operation fails, as a dead disk would. */
    private static final class FailingStore implements BlockStore {
        @Override
        public List<TenantId> tenants() throws IOException {
            throw new IOException("disk on fire");
        }

        @Override
        public List<BlockRef> list(TenantId tenant, Signal signal) throws IOException {
            throw new IOException("disk on fire");
        }

        @Override
        public SeekableByteChannel open(BlockRef block, String file) throws IOException {
            throw new IOException("disk on fire");
        }

        @Override
        public PendingBlock create(TenantId tenant, Signal signal) throws IOException {
            throw new IOException("disk on fire");
        }

        @Override
        public void delete(BlockRef block) throws IOException {
            throw new IOException("disk on fire");
        }
    }
}
