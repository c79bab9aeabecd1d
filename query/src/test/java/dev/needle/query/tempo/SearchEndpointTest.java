package dev.needle.query.tempo;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.http.JsonTree;
import dev.needle.query.http.QueryApi;
import dev.needle.query.tempopb.AnyValue;
import dev.needle.query.tempopb.KeyValue;
import dev.needle.query.tempopb.SearchResponse;
import dev.needle.query.tempopb.Span;
import dev.needle.query.tempopb.SpanSet;
import dev.needle.query.tempopb.TraceSearchMetadata;
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

/**
 * {@code /api/search} over real blocks. Every answer is decoded as Grafana decodes it (Tempo's
 * SearchResponse, unknown fields refused); needle's own counts and status are in headers.
 */
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

    private HttpTester.Response search(String params) throws Exception {
        return api.get("/api/search?" + params, "X-Scope-OrgID", A.value());
    }

    /** A 200 answer, decoded strictly as Grafana does. */
    private SearchResponse searchOk(String params) throws Exception {
        HttpTester.Response r = search(params);
        assertEquals(200, r.getStatus(), params + ": " + r.getContent());
        assertEquals("application/json", r.get("Content-Type"));
        return params.contains("explain=true") ? GrafanaDecode.searchExplained(r.getContent())
                : GrafanaDecode.search(r.getContent());
    }

    private static List<String> traceIds(SearchResponse body) {
        return body.getTracesList().stream().map(TraceSearchMetadata::getTraceID).toList();
    }

    private static KeyValue kv(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    @Test
    void search_query_answersWholeTracesNewestFirstInTemposShape() throws Exception {
        HttpTester.Response r = search("q=" + enc(PAYMENT_500));
        assertEquals(200, r.getStatus());
        SearchResponse body = GrafanaDecode.search(r.getContent());
        List<String> expected = new ArrayList<>();
        for (int b = api.failedTraces.size() - 1; b >= 0; b--) {
            expected.add(api.failedTraces.get(b).hex());
        }
        assertEquals(expected, traceIds(body));

        // Only the payment span matched, yet root, start and duration are the whole trace's.
        List<SpanRecord> spans = api.spansOf(api.failedTraces.get(3));
        SpanRecord root = spans.stream().filter(s -> s.parentSpanId().isEmpty()).findFirst().orElseThrow();
        SpanRecord payment = spans.stream().filter(ApiFixture::hasStatus500).findFirst().orElseThrow();
        TraceSearchMetadata first = body.getTraces(0);
        assertEquals("frontend", first.getRootServiceName());
        assertEquals("GET /checkout", first.getRootTraceName());
        assertEquals(root.startTimeUnixNano(), first.getStartTimeUnixNano());
        assertEquals(100, first.getDurationMs());
        assertEquals(1, first.getSpanSetsCount());
        SpanSet set = first.getSpanSets(0);
        assertEquals(1, set.getMatched());
        Span span = Span.newBuilder().setSpanID(payment.spanId().hex()).setName("charge")
                .setStartTimeUnixNano(payment.startTimeUnixNano()).setDurationNanos(payment.durationNano())
                .addAttributes(kv("service.name", AnyValue.newBuilder().setStringValue("payment").build()))
                .addAttributes(kv("http.response.status_code", AnyValue.newBuilder().setIntValue(500).build()))
                .build();
        assertEquals(List.of(span), set.getSpansList());

        assertEquals(ApiFixture.SPAN_BLOCKS_A, body.getMetrics().getTotalBlocks());
        assertTrue(body.getMetrics().getInspectedBytes() > 0);
        assertTrue(body.getMetrics().getInspectedSpans() > 0);
        // protobuf's JSON: 64-bit integers as strings, 32-bit ones as numbers; nothing beside traces and metrics.
        Object json = JsonTree.parse(r.getContent());
        assertEquals(List.of("traces", "metrics"), List.copyOf(JsonTree.object(json).keySet()));
        assertEquals(Long.toString(root.startTimeUnixNano()), JsonTree.at(json, "traces", 0, "startTimeUnixNano"));
        assertEquals(100L, JsonTree.at(json, "traces", 0, "durationMs"));
        assertEquals(Long.toString(payment.durationNano()),
                JsonTree.at(json, "traces", 0, "spanSets", 0, "spans", 0, "durationNanos"));

        assertEquals("COMPLETE", r.get(QueryApi.STATUS_HEADER));
        assertNull(r.get(QueryApi.MESSAGE_HEADER));
        assertEquals(ApiFixture.SPAN_BLOCKS_A, Integer.parseInt(r.get(QueryApi.INSPECTED_HEADER))
                + Integer.parseInt(r.get(QueryApi.SKIPPED_HEADER)));
    }

    @Test
    void search_rootOutsideTheMatchesAndTheRange_isStillTheRoot_andOnlyARootlessTraceGetsThePlaceholder() throws Exception {
        // The crossing trace's child lies in the last minute, its root ("GET /long", 70 s) in the one before.
        long lastMinute = ApiFixture.T0_SECONDS + 180;
        SearchResponse child = searchOk("q=" + enc("{ name = \"add-to-cart\" && resource.service.name = \"cart\" }")
                + "&start=" + (lastMinute + 5) + "&end=" + (lastMinute + 6));
        assertEquals(List.of(api.crossing.hex()), traceIds(child));
        TraceSearchMetadata crossing = child.getTraces(0);
        assertEquals("frontend", crossing.getRootServiceName());
        assertEquals("GET /long", crossing.getRootTraceName());
        assertEquals(70_000, crossing.getDurationMs());
        assertEquals((ApiFixture.T0_SECONDS + 120 + 55) * ApiFixture.SECOND, crossing.getStartTimeUnixNano());

        SearchResponse all = searchOk("q=" + enc("{ name = \"add-to-cart\" }") + "&limit=1000");
        assertTrue(traceIds(all).contains(api.rootless.hex()));
        for (TraceSearchMetadata t : all.getTracesList()) {
            boolean rootless = t.getTraceID().equals(api.rootless.hex());
            assertEquals(rootless ? SearchEndpoint.NO_ROOT : "frontend", t.getRootServiceName(), t.getTraceID());
            assertEquals(rootless, t.getRootTraceName().isEmpty(), t.getTraceID());
        }
    }

    @Test
    void search_spss_listsThatManyMatchingSpansAndCountsThemAll() throws Exception {
        String newest = "q=" + enc("{ }") + "&limit=1";
        SpanSet byDefault = searchOk(newest).getTraces(0).getSpanSets(0);
        assertEquals(3, byDefault.getMatched());
        assertEquals(3, byDefault.getSpansCount(), "Tempo's default of 3");
        SpanSet one = searchOk(newest + "&spss=1").getTraces(0).getSpanSets(0);
        assertEquals(3, one.getMatched());
        assertEquals(List.of(byDefault.getSpans(0)), one.getSpansList(), "the earliest matching span first");
        assertEquals(byDefault, searchOk(newest + "&spss=0").getTraces(0).getSpanSets(0), "0 means the default");
        assertTrue(byDefault.getSpans(0).getAttributesList().isEmpty(), "{ } names no attribute");

        HttpTester.Response tooMany = search(newest + "&spss=101");
        assertEquals(400, tooMany.getStatus());
        assertEquals("spans per span set exceeds 100. received 101", ApiFixture.error(tooMany));
        for (String bad : List.of("-1", "x", "1.5", "9999999999")) {
            HttpTester.Response r = search(newest + "&spss=" + bad);
            assertEquals(400, r.getStatus(), bad);
            assertTrue(ApiFixture.error(r).startsWith("invalid spss: "), bad);
        }
    }

    @Test
    void search_tags_matchTheSameTracesAsTheQuery() throws Exception {
        List<String> byQuery = traceIds(searchOk("q=" + enc(PAYMENT_500)));
        assertEquals(byQuery, traceIds(searchOk("tags=" + enc("service.name=payment http.response.status_code=500"))));
        assertEquals(byQuery, traceIds(searchOk("tags=" + enc(" service.name=\"payment\"\thttp.response.status_code=\"500\" "))));
        assertEquals(List.of(api.crossing.hex()), traceIds(searchOk("tags=" + enc("service.name=frontend cache.hit=true")
                + "&start=" + (ApiFixture.T0_SECONDS + 175) + "&end=" + (ApiFixture.T0_SECONDS + 179))));
        assertTrue(traceIds(searchOk("tags=" + enc("service.name=nobody"))).isEmpty());
    }

    @Test
    void search_limitAndRange_pickTheNewestTracesInRange() throws Exception {
        SearchResponse all = searchOk("q=" + enc("{ name = \"GET /checkout\" }"));
        assertEquals(20, all.getTracesCount(), "Tempo's default limit");
        List<String> newestThree = traceIds(searchOk("q=" + enc("{ name = \"GET /checkout\" }") + "&limit=3"));
        assertEquals(traceIds(all).subList(0, 3), newestThree);

        long minuteOne = ApiFixture.T0_SECONDS + 60;
        String inMinuteOne = "q=" + enc("{ name = \"GET /checkout\" }") + "&start=" + minuteOne + "&end="
                + (minuteOne + 59) + ".999&explain=true";
        List<String> expected = new ArrayList<>();
        for (SpanRecord s : api.spansA) {
            if (s.name().equals("GET /checkout") && s.startTimeUnixNano() >= minuteOne * ApiFixture.SECOND
                    && s.startTimeUnixNano() < (minuteOne + 60) * ApiFixture.SECOND) {
                expected.add(0, s.traceId().hex());
            }
        }
        assertEquals(5, expected.size());
        assertEquals(expected, traceIds(searchOk(inMinuteOne)));
        Object plans = JsonTree.parse(search(inMinuteOne).getContent());
        assertEquals(3L, JsonTree.at(plans, "explain", 0, "totals", "prunedByTime"));
        assertEquals(1 + 5, JsonTree.array(plans, "explain").size(), "the search's plan, then each trace lookup's");
        assertEquals(0L, JsonTree.at(plans, "explain", 1, "totals", "prunedByTime"), "a trace is looked up over all time");
    }

    @Test
    void search_noQuery_listsTheNewestTraces() throws Exception {
        List<String> ids = traceIds(searchOk("limit=2"));
        assertEquals(2, ids.size());
        SpanRecord newest = api.spansA.stream().max(Comparator.comparingLong(SpanRecord::startTimeUnixNano)).orElseThrow();
        assertEquals(newest.traceId().hex(), ids.get(0));
    }

    @Test
    void search_disableEveryMechanism_changesThePlanNotTheAnswer() throws Exception {
        String q = "q=" + enc("{ name = \"GET /long\" }") + "&explain=true";
        SearchResponse on = searchOk(q);
        SearchResponse off = searchOk(q + "&disable=" + enc("time,trace_idx,attr_idx,zone_maps"));
        assertEquals(on.getTracesList(), off.getTracesList());
        assertNotEquals(on.getMetrics(), off.getMetrics());
        Map<String, Object> onTotals = JsonTree.object(JsonTree.parse(search(q).getContent()), "explain", 0, "totals");
        HttpTester.Response offReply = search(q + "&disable=" + enc("time,trace_idx,attr_idx,zone_maps"));
        Object offJson = JsonTree.parse(offReply.getContent());
        Map<String, Object> offTotals = JsonTree.object(offJson, "explain", 0, "totals");
        assertTrue((Long) onTotals.get("prunedByAttrIdx") >= 2, onTotals.toString());
        assertEquals(0L, offTotals.get("prunedByAttrIdx"));
        assertEquals((long) ApiFixture.SPAN_BLOCKS_A, offTotals.get("opened"));
        assertEquals(Boolean.FALSE, JsonTree.at(offJson, "explain", 0, "mechanisms", "attrIdx"));
        assertEquals(Boolean.FALSE, JsonTree.at(offJson, "explain", 1, "mechanisms", "traceIdx"));
        assertEquals("0", offReply.get(QueryApi.SKIPPED_HEADER));
        assertTrue(Integer.parseInt(search(q).get(QueryApi.SKIPPED_HEADER)) >= 2, "ATTR_IDX rules most blocks out");
    }

    @Test
    void search_truncatedBlock_isPartialInHeadersAndTheBodyStaysTemposShape() throws Exception {
        api.truncateData(api.spanBlocksA.get(1));
        HttpTester.Response r = search("q=" + enc(PAYMENT_500));
        assertEquals(200, r.getStatus());
        assertEquals("PARTIAL", r.get(QueryApi.STATUS_HEADER));
        assertTrue(r.get(QueryApi.MESSAGE_HEADER).contains(api.spanBlocksA.get(1).name().toString()),
                r.get(QueryApi.MESSAGE_HEADER));
        assertEquals(3, GrafanaDecode.search(r.getContent()).getTracesCount());
    }

    @Test
    void search_badQuery_is400WithThePositionAsText() throws Exception {
        HttpTester.Response r = search("q=" + enc("{ name = \"x\" && }"));
        assertEquals(400, r.getStatus());
        String error = ApiFixture.error(r);
        assertTrue(error.startsWith("at 16: expected a condition"), error);
        for (String q : List.of("{", "name = \"x\"", "{ severity = 3 }", "{ duration > 2 }", "{ .a = 99999999999999999999 }")) {
            HttpTester.Response bad = search("q=" + enc(q));
            assertEquals(400, bad.getStatus(), q);
            assertTrue(ApiFixture.error(bad).startsWith("at "), q);
        }
    }

    @Test
    void search_badTags_is400NamingTags() throws Exception {
        for (String tags : List.of("service.name", "=x", "a=\"open", "a=b=c", "a=\"x\"y", "a=\"\\q\"")) {
            HttpTester.Response r = search("tags=" + enc(tags));
            assertEquals(400, r.getStatus(), tags);
            String error = ApiFixture.error(r);
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
            String error = ApiFixture.error(r);
            assertTrue(error.startsWith("limit: expected a whole number from 1 to 1000"), error);
        }
        searchOk("limit=1000");
    }

    @Test
    void search_traceIdsAreLowerCaseHexOf32Digits() throws Exception {
        SearchResponse body = searchOk("q=" + enc("{ name = \"GET /short\" }"));
        Bytes id = api.shortId;
        assertEquals(List.of(id.hex()), traceIds(body));
        assertEquals(32, id.hex().length());
    }

    @Test
    void grafanaDecode_refusesAFieldTemposMessageLacks() throws Exception {
        // What needle wrote before: Grafana >= 12.3 fails on it with "unknown field".
        assertThrows(InvalidProtocolBufferException.class,
                () -> GrafanaDecode.search("{\"traces\":[],\"metrics\":{\"skippedBlocks\":1}}"));
        assertThrows(InvalidProtocolBufferException.class,
                () -> GrafanaDecode.search("{\"traces\":[],\"status\":\"PARTIAL\"}"));
        assertThrows(InvalidProtocolBufferException.class,
                () -> GrafanaDecode.search("{\"traces\":[{\"spanSets\":[{\"spans\":[{\"spanId\":\"1\"}]}]}]}"));
        assertEquals(5, GrafanaDecode.search("{\"traces\":[{\"traceID\":\"ab\",\"durationMs\":5}]}").getTraces(0)
                .getDurationMs());
    }
}
