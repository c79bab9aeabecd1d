package dev.needle.query.tempo;

import static dev.needle.query.http.ApiFixture.A;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.http.JsonTree;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code /api/v2/traces/{id}} and {@code /api/traces/{id}} over real blocks: JSON and protobuf shapes, 404s, PARTIAL. */
class TraceEndpointTest {

    private static final String ORG_HEADER = "X-Scope-OrgID";

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

    private HttpTester.Response getA(String uri, String... headers) throws Exception {
        String[] all = new String[headers.length + 2];
        all[0] = ORG_HEADER;
        all[1] = A.value();
        System.arraycopy(headers, 0, all, 2, headers.length);
        return api.get(uri, all);
    }

    private static Set<Object> hexSpanIds(List<SpanRecord> spans) {
        return spans.stream().map(s -> s.spanId().hex()).collect(Collectors.toSet());
    }

    @Test
    void v2_presentTrace_returnsEverySpanAsOtlpJsonComplete() throws Exception {
        Bytes id = api.failedTraces.get(1);
        HttpTester.Response r = getA("/api/v2/traces/" + id.hex());
        assertEquals(200, r.getStatus(), r.getContent());
        assertEquals("application/json", r.get("Content-Type"));
        Object body = JsonTree.parse(r.getContent());
        assertEquals(Set.of("trace", "status"), JsonTree.object(body).keySet());
        assertEquals("COMPLETE", JsonTree.at(body, "status"));
        assertEquals(hexSpanIds(api.spansOf(id)), JsonTree.spanIds(JsonTree.at(body, "trace")));
        assertEquals(Set.of(id.hex()), JsonTree.otlpField(JsonTree.at(body, "trace"), "resourceSpans", "scopeSpans",
                "spans", "traceId"));
        assertEquals(Set.of("frontend", "cart", "payment"), serviceNames(JsonTree.at(body, "trace")));
    }

    @Test
    void v2_upperCaseAndShortIds_areLeftPaddedLikeTempo() throws Exception {
        Set<Object> expected = hexSpanIds(api.spansOf(api.shortId));
        for (String id : List.of("1234abcd5678ef90", "1234ABCD5678EF90", "0001234abcd5678ef90",
                api.shortId.hex().toUpperCase())) {
            HttpTester.Response r = getA("/api/v2/traces/" + id);
            assertEquals(200, r.getStatus(), id + ": " + r.getContent());
            assertEquals(expected, JsonTree.spanIds(JsonTree.at(JsonTree.parse(r.getContent()), "trace")), id);
        }
    }

    @Test
    void v2_crossingTrace_joinsBothBlocksAndStartEndNarrowIt() throws Exception {
        Object all = JsonTree.parse(getA("/api/v2/traces/" + api.crossing.hex()).getContent());
        assertEquals(hexSpanIds(api.spansOf(api.crossing)), JsonTree.spanIds(JsonTree.at(all, "trace")));
        assertEquals(2, JsonTree.spanIds(JsonTree.at(all, "trace")).size());

        long blockThree = ApiFixture.T0_SECONDS + 3 * 60;
        Object early = JsonTree.parse(getA("/api/v2/traces/" + api.crossing.hex() + "?end=" + (blockThree - 1)
                + "&explain=true").getContent());
        assertEquals(1, JsonTree.spanIds(JsonTree.at(early, "trace")).size());
        assertEquals(1L, JsonTree.at(early, "explain", 0, "totals", "prunedByTime"));
        Object late = JsonTree.parse(getA("/api/v2/traces/" + api.crossing.hex() + "?start=" + blockThree + ".5")
                .getContent());
        assertEquals(1, JsonTree.spanIds(JsonTree.at(late, "trace")).size());
    }

    @Test
    void v2_logsTrue_addsTheTracesLogRecords() throws Exception {
        Bytes id = api.failedTraces.get(2);
        Object body = JsonTree.parse(getA("/api/v2/traces/" + id.hex() + "?logs=true").getContent());
        List<LogRecord> expected = api.logsA.stream().filter(l -> l.traceId().equals(id)).toList();
        assertEquals(3, expected.size());
        Set<Object> logSpanIds = JsonTree.otlpField(JsonTree.at(body, "logs"), "resourceLogs", "scopeLogs", "logRecords",
                "spanId");
        assertEquals(expected.stream().map(l -> l.spanId().hex()).collect(Collectors.toSet()), logSpanIds);
        assertEquals(3, JsonTree.spanIds(JsonTree.at(body, "trace")).size());
    }

    @Test
    void v2_explainTrue_addsEachSignalsPlanWithTotals() throws Exception {
        Object body = JsonTree.parse(getA("/api/v2/traces/" + api.failedTraces.get(0).hex() + "?explain=true&logs=true")
                .getContent());
        List<Object> plans = JsonTree.array(body, "explain");
        assertEquals(2, plans.size());
        assertEquals("spans", JsonTree.at(plans, 0, "signal"));
        assertEquals("logs", JsonTree.at(plans, 1, "signal"));
        Map<String, Object> totals = JsonTree.object(plans, 0, "totals");
        assertEquals((long) ApiFixture.SPAN_BLOCKS_A, totals.get("blocksListed"));
        assertEquals(3L, totals.get("matched"));
        long opened = (Long) totals.get("opened");
        assertEquals(ApiFixture.SPAN_BLOCKS_A, opened + (Long) totals.get("prunedByTraceIdx"));
        assertTrue(opened >= 1);
        assertEquals(ApiFixture.SPAN_BLOCKS_A, JsonTree.array(plans, 0, "blocks").size());
        assertEquals(Boolean.TRUE, JsonTree.at(plans, 0, "mechanisms", "traceIdx"));
    }

    @Test
    void v2_disableEveryMechanism_changesThePlanNotTheAnswer() throws Exception {
        String uri = "/api/v2/traces/" + api.failedTraces.get(3).hex() + "?explain=true&logs=true";
        Object on = JsonTree.parse(getA(uri).getContent());
        Object off = JsonTree.parse(getA(uri + "&disable=time,trace_idx,attr_idx,zone_maps").getContent());
        assertEquals(JsonTree.at(on, "trace"), JsonTree.at(off, "trace"));
        assertEquals(JsonTree.at(on, "logs"), JsonTree.at(off, "logs"));
        assertEquals(Boolean.FALSE, JsonTree.at(off, "explain", 0, "mechanisms", "traceIdx"));
        assertEquals(Boolean.FALSE, JsonTree.at(off, "explain", 0, "mechanisms", "zoneMaps"));
        assertEquals(0L, JsonTree.at(off, "explain", 0, "totals", "prunedByTraceIdx"));
        assertEquals((long) ApiFixture.SPAN_BLOCKS_A, JsonTree.at(off, "explain", 0, "totals", "opened"));
        assertNotEquals(JsonTree.at(on, "explain", 0, "totals"), JsonTree.at(off, "explain", 0, "totals"));
    }

    @Test
    void v2_acceptProtobuf_isATraceByIdResponse() throws Exception {
        Bytes id = api.failedTraces.get(1);
        for (String accept : List.of("application/protobuf", "application/x-protobuf",
                "text/html, application/protobuf;q=0.9")) {
            HttpTester.Response r = getA("/api/v2/traces/" + id.hex(), "Accept", accept);
            assertEquals(200, r.getStatus(), accept);
            assertEquals("application/protobuf", r.get("Content-Type"));
            Decoded d = Decoded.of(r.getContentBytes());
            assertEquals(0, d.status);
            assertNull(d.message);
            assertEquals(hexSpanIds(api.spansOf(id)), spanIds(d.trace));
            assertEquals(3, d.trace.getResourceSpansCount());
        }
    }

    @Test
    void v2_absentId_is404TextOrEmptyProtobuf() throws Exception {
        String absent = "/api/v2/traces/0123456789abcdef0123456789abcdef";
        HttpTester.Response json = getA(absent);
        assertEquals(404, json.getStatus());
        assertEquals("trace 0123456789abcdef0123456789abcdef not found", ApiFixture.error(json));
        HttpTester.Response proto = getA(absent, "Accept", "application/protobuf");
        assertEquals(404, proto.getStatus());
        assertEquals(0, proto.getContentBytes() == null ? 0 : proto.getContentBytes().length);
        // With the plan asked for, the 404 is JSON, so that it can carry why nothing was found.
        Object explained = JsonTree.parse(getA(absent + "?explain=true").getContent());
        assertEquals("trace 0123456789abcdef0123456789abcdef not found", JsonTree.at(explained, "error"));
        assertEquals((long) ApiFixture.SPAN_BLOCKS_A, JsonTree.at(explained, "explain", 0, "totals", "blocksListed"));
        assertEquals(0L, JsonTree.at(explained, "explain", 0, "totals", "matched"));
    }

    @Test
    void v2_truncatedDataFile_isPartialNamingTheBlock() throws Exception {
        BlockRef broken = api.spanBlocksA.get(3);
        api.truncateData(broken);
        HttpTester.Response r = getA("/api/v2/traces/" + api.crossing.hex());
        assertEquals(200, r.getStatus(), r.getContent());
        Object body = JsonTree.parse(r.getContent());
        assertEquals("PARTIAL", JsonTree.at(body, "status"));
        String message = (String) JsonTree.at(body, "message");
        assertTrue(message.contains(broken.name().toString()), message);
        SpanRecord root = api.spansOf(api.crossing).get(0);
        assertEquals(Set.of(root.spanId().hex()), JsonTree.spanIds(JsonTree.at(body, "trace")));

        Decoded d = Decoded.of(getA("/api/v2/traces/" + api.crossing.hex(), "Accept", "application/protobuf")
                .getContentBytes());
        assertEquals(1, d.status);
        assertTrue(d.message.contains(broken.name().toString()), d.message);
        assertEquals(Set.of(root.spanId().hex()), spanIds(d.trace));
    }

    @Test
    void v2_partialWithNoSpanFound_isStill200() throws Exception {
        Bytes onlyInBroken = api.failedTraces.get(3);
        api.truncateData(api.spanBlocksA.get(3));
        HttpTester.Response r = getA("/api/v2/traces/" + onlyInBroken.hex());
        assertEquals(200, r.getStatus(), r.getContent());
        Object body = JsonTree.parse(r.getContent());
        assertEquals("PARTIAL", JsonTree.at(body, "status"));
        assertTrue(JsonTree.array(body, "trace", "resourceSpans").isEmpty());
    }

    @Test
    void v1_presentTrace_isOtlpJsonAndProtobufTrace() throws Exception {
        Bytes id = api.failedTraces.get(0);
        HttpTester.Response r = getA("/api/traces/" + id.hex());
        assertEquals(200, r.getStatus());
        Object body = JsonTree.parse(r.getContent());
        assertEquals(Set.of("resourceSpans"), JsonTree.object(body).keySet());
        assertEquals(hexSpanIds(api.spansOf(id)), JsonTree.spanIds(body));

        HttpTester.Response proto = getA("/api/traces/" + id.hex(), "Accept", "application/protobuf");
        assertEquals(200, proto.getStatus());
        assertEquals(hexSpanIds(api.spansOf(id)), spanIds(ExportTraceServiceRequest.parseFrom(proto.getContentBytes())));

        Object explained = JsonTree.parse(getA("/api/traces/" + id.hex() + "?explain=true").getContent());
        assertNotNull(JsonTree.at(explained, "explain", 0, "totals", "opened"));
    }

    @Test
    void v1_absentAndPartial_are404AndFlagged() throws Exception {
        assertEquals(404, getA("/api/traces/0123456789abcdef0123456789abcdef").getStatus());
        BlockRef broken = api.spanBlocksA.get(3);
        api.truncateData(broken);
        Object body = JsonTree.parse(getA("/api/traces/" + api.crossing.hex()).getContent());
        assertEquals("PARTIAL", JsonTree.at(body, "status"));
        assertTrue(((String) JsonTree.at(body, "message")).contains(broken.name().toString()));
    }

    @Test
    void traceEndpoints_badIds_are400NamingTheId() throws Exception {
        for (String prefix : List.of("/api/v2/traces/", "/api/traces/")) {
            for (String id : List.of("", "xyz", "0123456789abcdef0123456789abcdef0", "12%2034", "12-34", "..x",
                    "%D9%A3", "abc/def")) {
                HttpTester.Response r = getA(prefix + id);
                assertEquals(400, r.getStatus(), prefix + id + ": " + r.getContent());
                String error = ApiFixture.error(r);
                assertTrue(error.startsWith("trace id: expected 1 to 32 hex digits"), error);
            }
        }
    }

    @Test
    void v2_logsWithProtobuf_areLeftOutNotAnError() throws Exception {
        HttpTester.Response r = getA("/api/v2/traces/" + api.failedTraces.get(0).hex() + "?logs=true",
                "Accept", "application/protobuf");
        assertEquals(200, r.getStatus());
        assertFalse(spanIds(Decoded.of(r.getContentBytes()).trace).isEmpty());
    }

    private static Set<Object> serviceNames(Object otlp) {
        return JsonTree.array(otlp, "resourceSpans").stream()
                .map(rs -> JsonTree.at(rs, "resource", "attributes", 0, "value", "stringValue"))
                .collect(Collectors.toSet());
    }

    private static Set<Object> spanIds(ExportTraceServiceRequest trace) {
        return trace.getResourceSpansList().stream().flatMap(rs -> rs.getScopeSpansList().stream())
                .flatMap(ss -> ss.getSpansList().stream())
                .map(s -> HexFormat.of().formatHex(s.getSpanId().toByteArray())).collect(Collectors.toSet());
    }

    /** A TraceByIDResponse read field by field, as a client without Tempo's .proto would. */
    private static final class Decoded {
        ExportTraceServiceRequest trace;
        int status;
        String message;

        static Decoded of(byte[] bytes) throws IOException {
            Decoded d = new Decoded();
            CodedInputStream in = CodedInputStream.newInstance(bytes);
            while (!in.isAtEnd()) {
                int tag = in.readTag();
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 1 -> d.trace = ExportTraceServiceRequest.parseFrom(in.readByteArray());
                    case 3 -> d.status = in.readEnum();
                    case 4 -> d.message = in.readString();
                    default -> throw new IOException("unexpected field " + WireFormat.getTagFieldNumber(tag));
                }
            }
            assertNotNull(d.trace, "field 1, trace, is always written");
            return d;
        }
    }
}
