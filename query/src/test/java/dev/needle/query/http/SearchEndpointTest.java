package dev.needle.query.http;

import static dev.needle.query.http.ApiFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/search} over real blocks: Tempo's response shape, q and tags, limits, ranges, plans, errors. */
class SearchEndpointTest {

    private static final String PAYMENT_500 =
            "{ resource.service.name = \"payment\" && span.http.response.status_code = 500 }";

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

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private HttpTester.Response search(String params) throws Exception {
        return api.get("/api/search?" + params, "X-Scope-OrgID", A.value());
    }

    private Object searchOk(String params) throws Exception {
        HttpTester.Response r = search(params);
        assertEquals(200, r.getStatus(), params + ": " + r.getContent());
        assertEquals("application/json", r.get("Content-Type"));
        return JsonTree.parse(r.getContent());
    }

    private static List<Object> traceIds(Object body) {
        List<Object> ids = new ArrayList<>();
        for (Object t : JsonTree.array(body, "traces")) {
            ids.add(JsonTree.at(t, "traceID"));
        }
        return ids;
    }

    @Test
    void search_query_groupsMatchingSpansIntoTracesNewestFirst() throws Exception {
        Object body = searchOk("q=" + enc(PAYMENT_500));
        List<Object> expected = new ArrayList<>();
        for (int b = api.failedTraces.size() - 1; b >= 0; b--) {
            expected.add(api.failedTraces.get(b).hex());
        }
        assertEquals(expected, traceIds(body));
        Map<String, Object> first = JsonTree.object(body, "traces", 0);
        // Only the payment span matched, not the root: Tempo's placeholder, no root name.
        assertEquals(List.of("traceID", "rootServiceName", "startTimeUnixNano", "durationMs"), List.copyOf(first.keySet()));
        assertEquals(SearchEndpoint.NO_ROOT, first.get("rootServiceName"));
        SpanRecord payment = api.spansOf(api.failedTraces.get(3)).stream().filter(ApiFixture::hasStatus500)
                .findFirst().orElseThrow();
        assertEquals(Long.toString(payment.startTimeUnixNano()), first.get("startTimeUnixNano"));
        assertEquals(payment.durationNano() / 1_000_000, first.get("durationMs"));
        Map<String, Object> metrics = JsonTree.object(body, "metrics");
        assertEquals((long) ApiFixture.SPAN_BLOCKS_A, metrics.get("totalBlocks"));
        assertEquals((Long) metrics.get("totalBlocks") - (Long) metrics.get("inspectedBlocks"), metrics.get("skippedBlocks"));
        assertTrue(Long.parseLong((String) metrics.get("inspectedBytes")) > 0);
        assertFalse(JsonTree.object(body).containsKey("status"), "status only when partial");
        assertFalse(JsonTree.object(body).containsKey("explain"));
    }

    @Test
    void search_rootSpanMatched_namesRootServiceAndSpan() throws Exception {
        Object body = searchOk("q=" + enc("{ name = \"GET /long\" }"));
        assertEquals(List.of(api.crossing.hex()), traceIds(body));
        Map<String, Object> t = JsonTree.object(body, "traces", 0);
        assertEquals("frontend", t.get("rootServiceName"));
        assertEquals("GET /long", t.get("rootTraceName"));
        assertEquals(70_000L, t.get("durationMs"));

        Object rootless = searchOk("q=" + enc("{ name = \"add-to-cart\" }") + "&limit=1000");
        for (Object trace : JsonTree.array(rootless, "traces")) {
            assertEquals(SearchEndpoint.NO_ROOT, JsonTree.at(trace, "rootServiceName"));
        }
        assertTrue(traceIds(rootless).contains(api.rootless.hex()));
    }

    @Test
    void search_tags_matchTheSameTracesAsTheQuery() throws Exception {
        List<Object> byQuery = traceIds(searchOk("q=" + enc(PAYMENT_500)));
        assertEquals(byQuery, traceIds(searchOk("tags=" + enc("service.name=payment http.response.status_code=500"))));
        assertEquals(byQuery, traceIds(searchOk("tags=" + enc(" service.name=\"payment\"\thttp.response.status_code=\"500\" "))));
        assertEquals(List.of(api.crossing.hex()), traceIds(searchOk("tags=" + enc("service.name=frontend cache.hit=true")
                + "&start=" + (ApiFixture.T0_SECONDS + 175) + "&end=" + (ApiFixture.T0_SECONDS + 179))));
        assertTrue(traceIds(searchOk("tags=" + enc("service.name=nobody"))).isEmpty());
    }

    @Test
    void search_limitAndRange_pickTheNewestTracesInRange() throws Exception {
        Object all = searchOk("q=" + enc("{ name = \"GET /checkout\" }"));
        assertEquals(20, JsonTree.array(all, "traces").size());
        List<Object> newestThree = traceIds(searchOk("q=" + enc("{ name = \"GET /checkout\" }") + "&limit=3"));
        assertEquals(traceIds(all).subList(0, 3), newestThree);

        long minuteOne = ApiFixture.T0_SECONDS + 60;
        Object inMinuteOne = searchOk("q=" + enc("{ name = \"GET /checkout\" }") + "&start=" + minuteOne + "&end="
                + (minuteOne + 59) + ".999&explain=true");
        List<Object> expected = new ArrayList<>();
        for (SpanRecord s : api.spansA) {
            if (s.name().equals("GET /checkout") && s.startTimeUnixNano() >= minuteOne * ApiFixture.SECOND
                    && s.startTimeUnixNano() < (minuteOne + 60) * ApiFixture.SECOND) {
                expected.add(0, s.traceId().hex());
            }
        }
        assertEquals(5, expected.size());
        assertEquals(expected, traceIds(inMinuteOne));
        assertEquals(3L, JsonTree.at(inMinuteOne, "explain", 0, "totals", "prunedByTime"));
    }

    @Test
    void search_noQuery_listsTheNewestTraces() throws Exception {
        List<Object> ids = traceIds(searchOk("limit=2"));
        assertEquals(2, ids.size());
        SpanRecord newest = api.spansA.stream().max(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).orElseThrow();
        assertEquals(newest.traceId().hex(), ids.get(0));
    }

    @Test
    void search_disableEveryMechanism_changesThePlanNotTheAnswer() throws Exception {
        String q = "q=" + enc("{ name = \"GET /long\" }") + "&explain=true";
        Object on = searchOk(q);
        Object off = searchOk(q + "&disable=" + enc("time,trace_idx,attr_idx,zone_maps"));
        assertEquals(JsonTree.at(on, "traces"), JsonTree.at(off, "traces"));
        Map<String, Object> onTotals = JsonTree.object(on, "explain", 0, "totals");
        Map<String, Object> offTotals = JsonTree.object(off, "explain", 0, "totals");
        assertTrue((Long) onTotals.get("prunedByAttrIdx") >= 2, onTotals.toString());
        assertEquals(0L, offTotals.get("prunedByAttrIdx"));
        assertEquals((long) ApiFixture.SPAN_BLOCKS_A, offTotals.get("opened"));
        assertEquals(Boolean.FALSE, JsonTree.at(off, "explain", 0, "mechanisms", "attrIdx"));
        assertNotEquals(JsonTree.at(on, "metrics"), JsonTree.at(off, "metrics"));
    }

    @Test
    void search_truncatedBlock_isFlaggedPartial() throws Exception {
        api.truncateData(api.spanBlocksA.get(1));
        Object body = searchOk("q=" + enc(PAYMENT_500));
        assertEquals("PARTIAL", JsonTree.at(body, "status"));
        assertTrue(((String) JsonTree.at(body, "message")).contains(api.spanBlocksA.get(1).name().toString()));
        assertEquals(3, JsonTree.array(body, "traces").size());
    }

    @Test
    void search_badQuery_is400WithThePosition() throws Exception {
        HttpTester.Response r = search("q=" + enc("{ name = \"x\" && }"));
        assertEquals(400, r.getStatus());
        String error = (String) JsonTree.at(JsonTree.parse(r.getContent()), "error");
        assertTrue(error.startsWith("at 16: expected a condition"), error);
        for (String q : List.of("{", "name = \"x\"", "{ severity = 3 }", "{ duration > 2 }", "{ .a = 99999999999999999999 }")) {
            HttpTester.Response bad = search("q=" + enc(q));
            assertEquals(400, bad.getStatus(), q);
            assertTrue(((String) JsonTree.at(JsonTree.parse(bad.getContent()), "error")).startsWith("at "), q);
        }
    }

    @Test
    void search_badTags_is400NamingTags() throws Exception {
        for (String tags : List.of("service.name", "=x", "a=\"open", "a=b=c", "a=\"x\"y", "a=\"\\q\"")) {
            HttpTester.Response r = search("tags=" + enc(tags));
            assertEquals(400, r.getStatus(), tags);
            String error = (String) JsonTree.at(JsonTree.parse(r.getContent()), "error");
            assertTrue(error.startsWith("tags: at "), tags + ": " + error);
        }
        HttpTester.Response both = search("q=" + enc("{ }") + "&tags=a=b");
        assertEquals(400, both.getStatus());
    }

    @Test
    void search_badLimit_is400NamingLimit() throws Exception {
        for (String limit : List.of("0", "1001", "-1", "abc", "1e3", "99999999999")) {
            HttpTester.Response r = search("limit=" + limit);
            assertEquals(400, r.getStatus(), limit);
            String error = (String) JsonTree.at(JsonTree.parse(r.getContent()), "error");
            assertTrue(error.startsWith("limit: expected a whole number from 1 to 1000"), error);
        }
        assertEquals(200, search("limit=1000").getStatus());
    }

    @Test
    void search_traceIdsAreLowerCaseHexOf32Digits() throws Exception {
        Object body = searchOk("q=" + enc("{ name = \"GET /short\" }"));
        Bytes id = api.shortId;
        assertEquals(List.of(id.hex()), traceIds(body));
        assertEquals(32, id.hex().length());
    }
}
