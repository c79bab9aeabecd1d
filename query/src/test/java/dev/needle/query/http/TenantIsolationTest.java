package dev.needle.query.http;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.B;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Through every endpoint, a tenant sees only its own records, and a tenant id that could name a path is refused. */
class TenantIsolationTest {

    private static final List<String> DATA_ENDPOINTS = List.of("/api/v2/traces/0123456789abcdef0123456789abcdef",
            "/api/traces/0123456789abcdef0123456789abcdef", "/api/search?q=" + enc("{ }"), "/api/logs");

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

    private HttpTester.Response as(String tenant, String uri) throws Exception {
        return tenant == null ? api.get(uri) : api.get(uri, "X-Scope-OrgID", tenant);
    }

    @Test
    void traceById_otherTenantsTrace_is404() throws Exception {
        for (String tenant : new String[] {B.value(), null, "team-c"}) {
            for (Bytes id : List.of(api.failedTraces.get(0), api.crossing, api.shortId)) {
                assertEquals(404, as(tenant, "/api/v2/traces/" + id.hex()).getStatus(), tenant + " " + id);
                assertEquals(404, as(tenant, "/api/traces/" + id.hex()).getStatus(), tenant + " " + id);
            }
        }
    }

    @Test
    void traceById_idBothTenantsHave_showsEachOnlyItsOwnSpans() throws Exception {
        Object asB = JsonTree.parse(as(B.value(), "/api/v2/traces/" + api.shared.hex() + "?logs=true&explain=true")
                .getContent());
        Set<Object> bSpans = api.spansB.stream().filter(s -> s.traceId().equals(api.shared))
                .map(s -> s.spanId().hex()).collect(Collectors.toSet());
        assertEquals(bSpans, JsonTree.spanIds(JsonTree.at(asB, "trace")));
        assertEquals(bSpans, JsonTree.otlpField(JsonTree.at(asB, "logs"), "resourceLogs", "scopeLogs", "logRecords",
                "spanId"));
        assertEquals(1L, JsonTree.at(asB, "explain", 0, "totals", "blocksListed"), "only B's blocks are listed");

        Object asA = JsonTree.parse(as(A.value(), "/api/traces/" + api.shared.hex()).getContent());
        assertEquals(api.spansOf(api.shared).stream().map(s -> s.spanId().hex()).collect(Collectors.toSet()),
                JsonTree.spanIds(asA));
    }

    @Test
    void search_otherTenant_seesOnlyItsOwnTraces() throws Exception {
        Object asB = JsonTree.parse(as(B.value(), "/api/search?limit=1000").getContent());
        Set<Object> ids = new HashSet<>();
        for (Object t : JsonTree.array(asB, "traces")) {
            ids.add(JsonTree.at(t, "traceID"));
        }
        assertEquals(api.spansB.stream().map(s -> s.traceId().hex()).collect(Collectors.toSet()), ids);
        assertTrue(JsonTree.array(JsonTree.parse(as(B.value(), "/api/search?tags=service.name%3Dfrontend").getContent()),
                "traces").isEmpty());
        assertTrue(JsonTree.array(JsonTree.parse(as(null, "/api/search").getContent()), "traces").isEmpty());
        for (Object t : JsonTree.array(JsonTree.parse(as(A.value(), "/api/search?limit=1000").getContent()), "traces")) {
            assertTrue(api.spansA.stream().map(SpanRecord::traceId).anyMatch(id -> id.hex().equals(JsonTree.at(t, "traceID"))));
        }
    }

    @Test
    void logs_otherTenant_seesOnlyItsOwnRecords() throws Exception {
        Object asB = JsonTree.parse(as(B.value(), "/api/logs?limit=10000").getContent());
        assertEquals(api.logsB.stream().map(l -> l.spanId().hex()).collect(Collectors.toSet()),
                JsonTree.otlpField(JsonTree.at(asB, "logs"), "resourceLogs", "scopeLogs", "logRecords", "spanId"));
        Object none = JsonTree.parse(as("team-c", "/api/logs").getContent());
        assertTrue(JsonTree.array(none, "logs", "resourceLogs").isEmpty());
    }

    @Test
    void everyEndpoint_invalidTenant_is400NamingTheHeader() throws Exception {
        for (String tenant : List.of("..", ".", "../team-a", "team-a/../team-b", "a\\b", "wal", "WAL", "a|b", "x y",
                "x".repeat(151), "t\u00e9")) {
            for (String uri : DATA_ENDPOINTS) {
                HttpTester.Response r = as(tenant, uri);
                assertEquals(400, r.getStatus(), tenant + " " + uri);
                String error = ApiFixture.error(r);
                assertTrue(error.startsWith("X-Scope-OrgID: tenant id"), error);
            }
        }
    }
}
