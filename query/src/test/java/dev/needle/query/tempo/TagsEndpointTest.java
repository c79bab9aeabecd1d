package dev.needle.query.tempo;

import static dev.needle.query.http.ApiFixture.A;
import static dev.needle.query.http.ApiFixture.B;
import static dev.needle.query.http.ApiFixture.enc;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.Version1Tags;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanEvent;
import dev.needle.blocks.model.SpanLink;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.http.QueryApi;
import dev.needle.query.ql.QueryParser;
import dev.needle.query.tempopb.SearchTagValuesResponse;
import dev.needle.query.tempopb.SearchTagValuesV2Response;
import dev.needle.query.tempopb.SearchTagsResponse;
import dev.needle.query.tempopb.SearchTagsV2Response;
import dev.needle.query.tempopb.SearchTagsV2Scope;
import dev.needle.query.tempopb.TagValue;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tempo's tag endpoints over real blocks, each answer decoded strictly into Tempo's message. */
class TagsEndpointTest {

    private static final TenantId C = TenantId.of("team-c");

    /** Tenant A's span names, in the order of their UTF-8 bytes; the rootless trace's root ("GET /lost") never came. */
    private static final List<String> SPAN_NAMES = List.of("GET /checkout", "GET /long", "GET /shared", "GET /short",
            "add-to-cart", "charge");

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

    /** Tempo's intrinsics, in Tempo's order, less those needle's TraceQL does not take. */
    private static final String[] INTRINSICS = {"duration", "name", "status", "statusMessage", "kind",
        "rootServiceName", "rootName", "traceDuration", "event:name", "span:status", "span:statusMessage",
        "span:duration", "span:name", "span:kind", "trace:rootName", "trace:rootService", "trace:duration"};

    private <B extends Message.Builder> B get(TenantId tenant, String uri, B builder) throws Exception {
        HttpTester.Response r = api.get(uri, "X-Scope-OrgID", tenant.value());
        assertEquals(200, r.getStatus(), uri + ": " + r.getContent());
        assertEquals("COMPLETE", r.get(QueryApi.STATUS_HEADER), uri);
        return GrafanaDecode.decode(r.getContent(), builder);
    }

    private List<SearchTagsV2Scope> v2Tags(String params) throws Exception {
        return v2Tags(A, params);
    }

    private List<SearchTagsV2Scope> v2Tags(TenantId tenant, String params) throws Exception {
        return get(tenant, "/api/v2/search/tags" + params, SearchTagsV2Response.newBuilder()).getScopesList();
    }

    private List<String> v2Values(TenantId tenant, String tag, String params) throws Exception {
        return get(tenant, "/api/v2/search/tag/" + tag + "/values" + params, SearchTagValuesV2Response.newBuilder())
                .getTagValuesList().stream().map(v -> v.getType() + ":" + v.getValue()).toList();
    }

    private static SearchTagsV2Scope scope(String name, String... tags) {
        return SearchTagsV2Scope.newBuilder().setName(name).addAllTags(List.of(tags)).build();
    }

    @Test
    void v2Tags_everyScope_listsTheKeysOfTheBlocksAndNeedlesIntrinsics() throws Exception {
        List<SearchTagsV2Scope> all = List.of(scope("resource", "service.name"),
                scope("span", "cache.hit", "http.response.status_code", "user.id"),
                scope("intrinsic", INTRINSICS));
        assertEquals(all, v2Tags(""));
        assertEquals(all, v2Tags("?scope=none"));
        assertEquals(List.of(all.get(1)), v2Tags("?scope=span"));
        assertEquals(List.of(scope("instrumentation")), v2Tags("?scope=instrumentation"));
        assertEquals(List.of(scope("event")), v2Tags("?scope=event"), "asked for, a scope is answered, if empty");
        assertEquals(List.of(), v2Tags("?scope=trace"), "Tempo's trace scope has no attributes");
        assertEquals(List.of(scope("intrinsic", "duration", "name")), v2Tags("?scope=intrinsic&limit=2"));
        assertEquals(List.of(scope("span", "cache.hit", "http.response.status_code")), v2Tags("?scope=span&limit=2"));

        HttpTester.Response bad = api.get("/api/v2/search/tags?scope=spans", "X-Scope-OrgID", A.value());
        assertEquals(400, bad.getStatus());
        assertEquals("invalid scope: spans", ApiFixture.error(bad));
    }

    @Test
    void v2Values_typedAsTempoTypesThem() throws Exception {
        List<String> services = List.of("string:cart", "string:frontend", "string:payment");
        assertEquals(services, v2Values(A, "resource.service.name", ""));
        assertEquals(services, v2Values(A, ".service.name", ""), "any scope");
        assertEquals(List.of("int:200", "int:500"), v2Values(A, "span.http.response.status_code", ""));
        assertEquals(List.of("bool:true"), v2Values(A, "span.cache.hit", ""));
        assertEquals(SPAN_NAMES.stream().map(n -> "string:" + n).toList(), v2Values(A, "name", ""));
        assertEquals(v2Values(A, "name", ""), v2Values(A, "span:name", ""));
        assertEquals(List.of("keyword:unset", "keyword:error"), v2Values(A, "status", ""));
        assertEquals(List.of("keyword:server"), v2Values(A, "kind", ""));
        assertEquals(List.of(), v2Values(A, "duration", ""));
        assertEquals(List.of(), v2Values(A, "span.nothing", ""));
        assertEquals(List.of("string:b-api", "string:b-db"), v2Values(B, "resource.service.name", ""),
                "each tenant its own");
        long users = api.spansA.stream().flatMap(sp -> sp.attributes().stream())
                .filter(kv -> kv.key().equals("user.id")).map(KeyValue::value).distinct().count();
        assertEquals(users, v2Values(A, "span.user.id", "").size());
        assertEquals(7, v2Values(A, "span.user.id", "?limit=7").size());

        for (String tag : List.of("service.name", "resources.x", "span.", "nope")) {
            HttpTester.Response r = api.get("/api/v2/search/tag/" + tag + "/values", "X-Scope-OrgID", A.value());
            assertEquals(400, r.getStatus(), tag);
            assertTrue(ApiFixture.error(r).startsWith("please provide a valid tagName"), tag);
        }
    }

    @Test
    void v2Values_q_keepsTheValuesOfMatchingSpans() throws Exception {
        String failing = "?q=" + enc("{ resource.service.name = \"payment\" && span.http.response.status_code = 500 }");
        assertEquals(List.of("string:charge"), v2Values(A, "name", failing));
        assertEquals(List.of("int:500"), v2Values(A, "span.http.response.status_code", failing));
        assertEquals(List.of("keyword:error"), v2Values(A, "status", failing));
        assertEquals(v2Values(A, "name", ""), v2Values(A, "name", "?q=" + enc("{ }")), "{ } is no filter");
        HttpTester.Response bad = api.get("/api/v2/search/tag/name/values?q=" + enc("{ name = }"),
                "X-Scope-OrgID", A.value());
        assertEquals(400, bad.getStatus());
        assertTrue(ApiFixture.error(bad).startsWith("q: at "), ApiFixture.error(bad));
    }

    @Test
    void v2Values_startAndEnd_keepTheBlocksThatOverlapThem() throws Exception {
        // The first minute's block: neither the rootless trace (minute 2) nor the crossing one (minutes 3 and 4).
        String minuteZero = "?start=" + ApiFixture.T0_SECONDS + "&end=" + (ApiFixture.T0_SECONDS + 59);
        assertEquals(List.of("string:GET /checkout", "string:GET /shared", "string:GET /short", "string:add-to-cart",
                "string:charge"), v2Values(A, "name", minuteZero));
    }

    @Test
    void tagsFileMissingOrDamaged_theBlockIsScannedInstead() throws Exception {
        // "GET /long" is only in the third block.
        Path tags = api.store.blockDir(api.spanBlocksA.get(2)).resolve(BlockTags.FILE);
        byte[] bytes = Files.readAllBytes(tags);
        bytes[bytes.length - 1] ^= 1;
        Files.write(tags, bytes);
        assertEquals(SPAN_NAMES.stream().map(n -> "string:" + n).toList(), v2Values(A, "name", ""));
        Files.delete(tags);
        assertEquals(SPAN_NAMES.stream().map(n -> "string:" + n).toList(), v2Values(A, "name", ""));
        assertEquals(3, v2Tags("").size());
    }

    @Test
    void v1_tagNamesAndValues() throws Exception {
        assertEquals(List.of("cache.hit", "http.response.status_code", "service.name", "user.id"),
                get(A, "/api/search/tags", SearchTagsResponse.newBuilder()).getTagNamesList());
        assertEquals(List.of("cart", "frontend", "payment"),
                get(A, "/api/search/tag/service.name/values", SearchTagValuesResponse.newBuilder()).getTagValuesList());
        assertEquals(List.of("200", "500"), get(A, "/api/search/tag/http.response.status_code/values",
                SearchTagValuesResponse.newBuilder()).getTagValuesList());
        assertEquals(List.of("b-api", "b-db"),
                get(B, "/api/search/tag/service.name/values", SearchTagValuesResponse.newBuilder()).getTagValuesList());
    }

    @Test
    void intrinsicScope_listsOnlyWhatNeedlesTraceQlTakes() throws Exception {
        for (String word : INTRINSICS) {
            String literal = word.toLowerCase(Locale.ROOT).endsWith("duration") ? "1s"
                    : word.endsWith("status") ? "error" : word.endsWith("kind") ? "server" : "\"x\"";
            QueryParser.parse("{ " + word + " = " + literal + " }", Signal.SPANS);
        }
    }

    /** Tenant C: spans with events, links and status messages in two blocks, the second's TAGS as version 1 wrote it. */
    private void writeTenantC() throws Exception {
        Bytes trace = Bytes.fromHex("c".repeat(32));
        SpanLink retry = new SpanLink(Bytes.fromHex("d".repeat(32)), Bytes.fromHex("d".repeat(16)), "",
                List.of(KeyValue.of("ref.type", "retry")), 0, 0);
        SpanLink batch = new SpanLink(Bytes.fromHex("e".repeat(32)), Bytes.fromHex("e".repeat(16)), "",
                List.of(KeyValue.of("ref.type", "batch")), 0, 0);
        BlockWriter writer = new BlockWriter(api.store, api.allocator);
        writer.writeSpans(C, List.of(spanC(trace, 1, "c-api", "GET /pay", ApiFixture.T0,
                List.of(new SpanEvent(ApiFixture.T0, "exception", List.of(KeyValue.of("exception.type", "IOException")), 0)),
                List.of(retry), "card declined")));
        BlockRef second = writer.writeSpans(C, List.of(
                spanC(trace, 2, "c-ship", "GET /ship", ApiFixture.T0 + 60 * ApiFixture.SECOND,
                        List.of(new SpanEvent(ApiFixture.T0, "cache miss", List.of(KeyValue.of("cache.key.size", 42)), 0)),
                        List.of(batch), ""),
                spanC(trace, 3, "c-ship", "GET /ship", ApiFixture.T0 + 61 * ApiFixture.SECOND, List.of(), List.of(),
                        "timeout"))).ref();
        Version1Tags.downgrade(api.store.blockDir(second));
    }

    private static SpanRecord spanC(Bytes trace, int id, String service, String name, long start, List<SpanEvent> events,
                                    List<SpanLink> links, String statusMessage) {
        return SpanRecord.builder().resource(new Resource(List.of(KeyValue.of("service.name", service)), 0, ""))
                .scope(new Scope("io.test", "1.0", List.of(), 0, "")).traceId(trace)
                .spanId(Bytes.fromHex(String.format("%016x", id))).flags(1).name(name).kind(2)
                .startTimeUnixNano(start).endTimeUnixNano(start + ApiFixture.MS)
                .attributes(List.of(KeyValue.of("http.route", "/" + id))).events(events).links(links)
                .statusCode(statusMessage.isEmpty() ? 0 : 2).statusMessage(statusMessage).build();
    }

    @Test
    void v2Tags_eventAndLinkScopes_fromTagsFilesAndAVersion1BlockScanned() throws Exception {
        writeTenantC();
        SearchTagsV2Scope event = scope("event", "cache.key.size", "exception.type");
        SearchTagsV2Scope link = scope("link", "ref.type");
        assertEquals(List.of(scope("resource", "service.name"), scope("span", "http.route"), event, link,
                scope("intrinsic", INTRINSICS)), v2Tags(C, ""));
        assertEquals(List.of(event), v2Tags(C, "?scope=event"));
        assertEquals(List.of(link), v2Tags(C, "?scope=link"));
        assertEquals(List.of(scope("event", "cache.key.size")), v2Tags(C, "?scope=event&limit=1"));
        String minuteZero = "?start=" + ApiFixture.T0_SECONDS + "&end=" + (ApiFixture.T0_SECONDS + 59);
        assertEquals(List.of(scope("event", "exception.type")), v2Tags(C, "?scope=event&" + minuteZero.substring(1)));
    }

    @Test
    void v2Values_eventLinkEventNameAndStatusMessage() throws Exception {
        writeTenantC();
        assertEquals(List.of("string:IOException"), v2Values(C, "event.exception.type", ""));
        assertEquals(List.of("int:42"), v2Values(C, "event.cache.key.size", ""), "from the version 1 block, scanned");
        assertEquals(List.of("string:batch", "string:retry"), v2Values(C, "link.ref.type", ""));
        assertEquals(List.of("string:cache miss", "string:exception"), v2Values(C, "event:name", ""));
        assertEquals(List.of("string:card declined", "string:timeout"), v2Values(C, "statusMessage", ""));
        assertEquals(v2Values(C, "statusMessage", ""), v2Values(C, "span:statusMessage", ""));
        assertEquals(List.of(), v2Values(C, ".exception.type", ""), "Tempo's unscoped lookup has no events");
        assertEquals(List.of("string:c-api", "string:c-ship"), v2Values(C, "rootServiceName", ""));
        assertEquals(v2Values(C, "rootServiceName", ""), v2Values(C, "trace:rootService", ""));
        assertEquals(List.of("string:GET /pay", "string:GET /ship"), v2Values(C, "rootName", ""));
        assertEquals(v2Values(C, "rootName", ""), v2Values(C, "trace:rootName", ""));
        assertEquals(List.of("string:frontend"), v2Values(A, "rootServiceName", ""), "only roots, not cart or payment");
        assertEquals(List.of("string:GET /checkout", "string:GET /long", "string:GET /shared", "string:GET /short"),
                v2Values(A, "rootName", ""), "the rootless trace's root never came");
        assertEquals(1, v2Values(C, "event:name", "?limit=1").size());

        String api = "?q=" + enc("{ resource.service.name = \"c-api\" }");
        assertEquals(List.of("string:exception"), v2Values(C, "event:name", api));
        assertEquals(List.of("string:card declined"), v2Values(C, "statusMessage", api));
        assertEquals(List.of("string:retry"), v2Values(C, "link.ref.type", api));
        assertEquals(List.of("string:c-api"), v2Values(C, "rootServiceName", api));
        String minuteOne = "?start=" + (ApiFixture.T0_SECONDS + 60) + "&end=" + (ApiFixture.T0_SECONDS + 119);
        assertEquals(List.of("string:cache miss"), v2Values(C, "event:name", minuteOne));
        assertEquals(List.of("string:timeout"), v2Values(C, "statusMessage", minuteOne));
        assertEquals(List.of(), v2Values(A, "event:name", ""), "tenant A's spans have no events");
    }

    @Test
    void v1_tagNamesOfEveryScope_valuesOfResourceSpanAndInstrumentationOnly() throws Exception {
        writeTenantC();
        assertEquals(List.of("cache.key.size", "exception.type", "http.route", "ref.type", "service.name"),
                get(C, "/api/search/tags", SearchTagsResponse.newBuilder()).getTagNamesList());
        assertEquals(List.of(), get(C, "/api/search/tag/exception.type/values", SearchTagValuesResponse.newBuilder())
                .getTagValuesList(), "Tempo's v1 values do not look in events");
        assertEquals(List.of("c-api", "c-ship"), get(C, "/api/search/tag/service.name/values",
                SearchTagValuesResponse.newBuilder()).getTagValuesList());
    }

    @Test
    void unreadableBlock_isPartialInTheHeaders() throws Exception {
        Files.delete(api.store.blockDir(api.spanBlocksA.get(2)).resolve(BlockTags.FILE));
        api.truncateData(api.spanBlocksA.get(2));
        HttpTester.Response r = api.get("/api/v2/search/tag/name/values", "X-Scope-OrgID", A.value());
        assertEquals(200, r.getStatus());
        assertEquals("PARTIAL", r.get(QueryApi.STATUS_HEADER));
        assertTrue(r.get(QueryApi.MESSAGE_HEADER).contains(api.spanBlocksA.get(2).name().toString()));
        List<String> values = GrafanaDecode.decode(r.getContent(), SearchTagValuesV2Response.newBuilder())
                .getTagValuesList().stream().map(TagValue::getValue).toList();
        assertTrue(values.contains("GET /checkout") && !values.contains("GET /long"), values.toString());
    }
}
