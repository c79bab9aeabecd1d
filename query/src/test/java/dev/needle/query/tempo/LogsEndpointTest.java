package dev.needle.query.tempo;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.http.JsonTree;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/logs}: log selectors over real blocks, newest first, with status and plans. */
class LogsEndpointTest {

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

    private HttpTester.Response logs(String params) throws Exception {
        return api.get("/api/logs?" + params, "X-Scope-OrgID", A.value());
    }

    private Object logsOk(String params) throws Exception {
        HttpTester.Response r = logs(params);
        assertEquals(200, r.getStatus(), params + ": " + r.getContent());
        return JsonTree.parse(r.getContent());
    }

    private static Set<Object> logSpanIds(Object body) {
        return JsonTree.otlpField(JsonTree.at(body, "logs"), "resourceLogs", "scopeLogs", "logRecords", "spanId");
    }

    private Set<Object> expected(Predicate<LogRecord> match) {
        return api.logsA.stream().filter(match).map(l -> l.spanId().hex()).collect(Collectors.toSet());
    }

    @Test
    void logs_severityQuery_returnsTheMatchingRecordsComplete() throws Exception {
        Object body = logsOk("q=" + enc("{ severity >= 17 }"));
        assertEquals(Set.of("logs", "status"), JsonTree.object(body).keySet());
        assertEquals("COMPLETE", JsonTree.at(body, "status"));
        Set<Object> errors = expected(l -> l.severityNumber() >= 17);
        assertEquals(4, errors.size());
        assertEquals(errors, logSpanIds(body));
    }

    @Test
    void logs_resourceAndSeverity_andLimitKeepsTheNewest() throws Exception {
        String q = "q=" + enc("{ resource.service.name = \"cart\" && severity = info }");
        Set<Object> cart = expected(l -> l.severityNumber() == 9 && l.resource().attributes().get(0).value()
                .equals(new AnyValue.Str("cart")));
        assertEquals(cart, logSpanIds(logsOk(q)));
        List<Object> newestTwo = api.logsA.stream().filter(l -> cart.contains(l.spanId().hex()))
                .sorted(Comparator.comparingLong(LogRecord::eventTimeUnixNano).reversed()).limit(2)
                .map(l -> (Object) l.spanId().hex()).toList();
        assertEquals(Set.copyOf(newestTwo), logSpanIds(logsOk(q + "&limit=2")));
    }

    @Test
    void logs_noQuery_listsEveryRecordUpToTheLimit() throws Exception {
        assertEquals(expected(l -> true), logSpanIds(logsOk("")));
        assertEquals(5, logSpanIds(logsOk("limit=5")).size());
    }

    @Test
    void logs_explainAndDisable_changeThePlanNotTheAnswer() throws Exception {
        String q = "q=" + enc("{ severity >= 17 }") + "&explain=true";
        Object on = logsOk(q);
        Object off = logsOk(q + "&disable=zone_maps,attr_idx");
        assertEquals(JsonTree.at(on, "logs"), JsonTree.at(off, "logs"));
        assertEquals("logs", JsonTree.at(on, "explain", 0, "signal"));
        assertEquals(2L, JsonTree.at(on, "explain", 0, "totals", "blocksListed"));
        assertEquals(Boolean.TRUE, JsonTree.at(off, "explain", 0, "mechanisms", "time"));
        assertEquals(Boolean.FALSE, JsonTree.at(off, "explain", 0, "mechanisms", "zoneMaps"));
    }

    @Test
    void logs_truncatedBlock_isPartialNamingIt() throws Exception {
        api.truncateData(api.logBlocksA.get(0));
        Object body = logsOk("q=" + enc("{ severity >= 17 }"));
        assertEquals("PARTIAL", JsonTree.at(body, "status"));
        assertTrue(((String) JsonTree.at(body, "message")).contains(api.logBlocksA.get(0).name().toString()));
        assertEquals(2, logSpanIds(body).size());
    }

    @Test
    void logs_badQueryOrSpanField_is400() throws Exception {
        for (String q : List.of("{ duration > 2s }", "{ severity = loud }", "{ severity >= 17", "{ name = \"x\" }")) {
            HttpTester.Response r = logs("q=" + enc(q));
            assertEquals(400, r.getStatus(), q);
            assertTrue(ApiFixture.error(r).startsWith("at "), q);
        }
        assertEquals(400, logs("limit=10001").getStatus());
        assertEquals(200, logs("limit=10000").getStatus());
    }
}
