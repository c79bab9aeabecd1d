package dev.needle.ingest.http;

import static dev.needle.ingest.http.ReceiverFixture.JSON;
import static dev.needle.ingest.http.ReceiverFixture.PROTOBUF;
import static dev.needle.ingest.http.ReceiverFixture.gzip;
import static dev.needle.ingest.http.ReceiverFixture.status;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.ByteString;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpDecodeException;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.Ingestor;
import dev.needle.ingest.http.ReceiverFixture.RpcStatus;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.ingest.wal.WalSegmentFormat;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The OTLP/HTTP receiver over a real ingest pipeline: what it stores, and every reply it gives. */
class OtlpReceiverTest {

    /** The OTLP repository's example requests, read in place (relative to the ingest module). */
    private static final Path EXAMPLES = Path.of("../../shared/otlp-examples");
    private static final TenantId ACME = TenantId.of("acme");
    private static final String TENANT = "X-Scope-OrgID";

    @TempDir
    Path dir;

    private ReceiverFixture fx;

    @AfterEach
    void close() throws Exception {
        if (fx != null) {
            fx.close();
        }
    }

    private static List<SpanRecord> decoded(ExportTraceServiceRequest request) {
        try {
            return OtlpWire.decodeSpans(request.toByteArray()).records();
        } catch (OtlpDecodeException e) {
            throw new UncheckedIOException("a builder-made request always decodes", e);
        }
    }

    private static List<LogRecord> decoded(ExportLogsServiceRequest request) {
        try {
            return OtlpWire.decodeLogs(request.toByteArray()).records();
        } catch (OtlpDecodeException e) {
            throw new UncheckedIOException("a builder-made request always decodes", e);
        }
    }

    private static byte[] json(List<SpanRecord> spans) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        OtlpJson.encodeSpans(spans, out);
        return out.toByteArray();
    }

    private static void assertOk(HttpTester.Response r, String contentType) {
        assertEquals(200, r.getStatus(), () -> r.getContent());
        assertEquals(contentType, r.get(HttpHeader.CONTENT_TYPE));
    }

    private static RpcStatus assertError(HttpTester.Response r, int status, int code, String contentType)
            throws Exception {
        assertEquals(status, r.getStatus(), () -> r.getContent());
        assertEquals(contentType, r.get(HttpHeader.CONTENT_TYPE));
        RpcStatus s = status(r);
        assertEquals(code, s.code(), s::message);
        assertFalse(s.message().isEmpty());
        return s;
    }

    // --- What is stored -------------------------------------------------------------------------

    @ParameterizedTest
    @CsvSource({"trace.json, /v1/traces", "logs.json, /v1/logs", "events.json, /v1/logs"})
    void post_otlpExampleJson_isAcceptedAndStoredExactly(String file, String path) throws Exception {
        fx = ReceiverFixture.start(dir);
        byte[] body = Files.readAllBytes(EXAMPLES.resolve(file));

        HttpTester.Response r = fx.post(path, JSON, body);

        assertOk(r, JSON);
        assertEquals("{}", r.getContent());
        if (path.equals("/v1/traces")) {
            Decoded<SpanRecord> expected = OtlpJson.decodeSpans(new ByteArrayInputStream(body));
            assertEquals(0, expected.rejected());
            assertFalse(expected.records().isEmpty());
            assertEquals(expected.records(), fx.pipeline.head().spans(TenantId.DEFAULT));
            fx.pipeline.cutAndPublish();
            assertEquals(0, fx.pipeline.head().rows(), "published");
            List<SpanRecord> found = fx.querySpans(TenantId.DEFAULT);
            assertEquals(expected.records().size(), found.size());
            assertEquals(new HashSet<>(expected.records()), new HashSet<>(found));
        } else {
            Decoded<LogRecord> expected = OtlpJson.decodeLogs(new ByteArrayInputStream(body));
            assertEquals(0, expected.rejected());
            assertFalse(expected.records().isEmpty());
            assertEquals(expected.records(), fx.pipeline.head().logs(TenantId.DEFAULT));
            fx.pipeline.cutAndPublish();
            assertEquals(0, fx.pipeline.head().rows(), "published");
            List<LogRecord> found = fx.queryLogs(TenantId.DEFAULT);
            assertEquals(expected.records().size(), found.size());
            assertEquals(new HashSet<>(expected.records()), new HashSet<>(found));
        }
    }

    @Test
    void traces_protobuf_areStoredAndAnsweredWithAProtobufResponse() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("checkout", 20, 1);

        HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, request.toByteArray(), TENANT, "acme");

        assertOk(r, PROTOBUF);
        assertFalse(ExportTraceServiceResponse.parseFrom(r.getContentBytes()).hasPartialSuccess());
        assertEquals(decoded(request), fx.pipeline.head().spans(ACME));
    }

    @Test
    void logs_protobuf_areStoredAndAnsweredWithAProtobufResponse() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportLogsServiceRequest request = Samples.logs("checkout", 20, 2);

        HttpTester.Response r = fx.post("/v1/logs", PROTOBUF, request.toByteArray(), TENANT, "acme");

        assertOk(r, PROTOBUF);
        assertFalse(ExportLogsServiceResponse.parseFrom(r.getContentBytes()).hasPartialSuccess());
        assertEquals(decoded(request), fx.pipeline.head().logs(ACME));
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "Application/JSON; charset=utf-8", "application/json;charset=UTF-8"})
    void traces_json_areStoredAndAnsweredWithAnEmptyJsonObject(String contentType) throws Exception {
        fx = ReceiverFixture.start(dir);
        List<SpanRecord> spans = decoded(Samples.traces("checkout", 20, 3));

        HttpTester.Response r = fx.post("/v1/traces", contentType, json(spans));

        assertOk(r, JSON);
        assertEquals("{}", r.getContent());
        assertEquals(spans, fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    @Test
    void traces_protobufContentTypeWithParameters_isAccepted() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("checkout", 3, 4);

        HttpTester.Response r = fx.post("/v1/traces", "APPLICATION/X-PROTOBUF; proto=opentelemetry",
                request.toByteArray());

        assertOk(r, PROTOBUF);
        assertEquals(decoded(request), fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    @Test
    void traces_gzipWithContentLength_isInflated() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("checkout", 200, 5);

        HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, gzip(request.toByteArray()),
                "Content-Encoding", "gzip");

        assertOk(r, PROTOBUF);
        assertEquals(decoded(request), fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    @Test
    void traces_gzipChunkedWithoutContentLength_isInflated() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("checkout", 500, 6);
        byte[] body = gzip(request.toByteArray());
        assertTrue(body.length > 3 * 8192, "several chunks");

        HttpTester.Response r = fx.postChunked("/v1/traces", PROTOBUF, body, "Content-Encoding", "gzip");

        assertOk(r, PROTOBUF);
        assertEquals(decoded(request), fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    @Test
    void traces_jsonGzipChunked_isInflated() throws Exception {
        fx = ReceiverFixture.start(dir);
        List<SpanRecord> spans = decoded(Samples.traces("checkout", 300, 7));

        HttpTester.Response r = fx.postChunked("/v1/traces", JSON, gzip(json(spans)), "Content-Encoding", "GZIP");

        assertOk(r, JSON);
        assertEquals("{}", r.getContent());
        assertEquals(spans, fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    @Test
    void traces_gzipOfTwoMembersInTwoChunks_isReadWhole() throws Exception {
        fx = ReceiverFixture.start(dir);
        // Two serialized requests one after the other are one request holding both (protobuf merges repeated fields).
        ExportTraceServiceRequest first = Samples.traces("checkout", 10, 8);
        ExportTraceServiceRequest second = Samples.traces("cart", 10, 9);

        HttpTester.Response r = fx.postChunks("/v1/traces", PROTOBUF,
                List.of(gzip(first.toByteArray()), gzip(second.toByteArray())), "Content-Encoding", "gzip");

        assertOk(r, PROTOBUF);
        List<SpanRecord> both = new ArrayList<>(decoded(first));
        both.addAll(decoded(second));
        assertEquals(both.size(), fx.pipeline.head().spans(TenantId.DEFAULT).size(), "the second member was read too");
        assertEquals(both, fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    @Test
    void traces_identityContentEncoding_isAccepted() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("checkout", 2, 10);

        HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, request.toByteArray(), "Content-Encoding", "identity");

        assertOk(r, PROTOBUF);
        assertEquals(decoded(request), fx.pipeline.head().spans(TenantId.DEFAULT));
    }

    // --- Partial success ------------------------------------------------------------------------

    @Test
    void traces_someInvalidSpans_partialSuccessInProtobuf_andTheRestIsKept() throws Exception {
        fx = ReceiverFixture.start(dir);
        Random random = new Random(11);
        Span valid = Samples.span(random, 0);
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder().addResourceSpans(
                Samples.traces("checkout", 0, 0).getResourceSpans(0).toBuilder().clearScopeSpans()
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .addSpans(valid)
                                .addSpans(valid.toBuilder().setTraceId(ByteString.copyFrom(new byte[16])))
                                .addSpans(valid.toBuilder().setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4})))))
                .build();

        HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, request.toByteArray());

        assertOk(r, PROTOBUF);
        ExportTraceServiceResponse response = ExportTraceServiceResponse.parseFrom(r.getContentBytes());
        assertTrue(response.hasPartialSuccess());
        assertEquals(2, response.getPartialSuccess().getRejectedSpans());
        String message = response.getPartialSuccess().getErrorMessage();
        assertTrue(message.contains("trace_id is all zero"), message);
        assertTrue(message.contains("span_id has 4 bytes"), message);
        assertEquals(OtlpWire.decodeSpans(request.toByteArray()).message(), message);
        assertEquals(decoded(request), fx.pipeline.head().spans(TenantId.DEFAULT));
        assertEquals(1, fx.pipeline.head().spans(TenantId.DEFAULT).size());
    }

    // --- What the write-ahead log takes ---------------------------------------------------------

    @Test
    void walEntry_ofAProtobufRequestWithNothingRejected_isItsBytesAsReceived() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("checkout", 4, 31);
        // A field no OTLP version has: encoding the decoded spans anew would drop it.
        byte[] sent = concat(request.toByteArray(), new byte[] {(byte) 0xF8, 0x06, 0x01});

        assertOk(fx.post("/v1/traces", PROTOBUF, sent), PROTOBUF);
        assertOk(fx.post("/v1/traces", PROTOBUF, gzip(sent), "Content-Encoding", "gzip"), PROTOBUF);

        List<WalEntry> entries = walEntries();
        assertEquals(2, entries.size());
        assertArrayEquals(sent, entries.get(0).payload());
        assertArrayEquals(sent, entries.get(1).payload(), "decompressed, as it came");
    }

    @Test
    void walEntry_ofAPartlyRejectedOrJsonRequest_isTheAcceptedRecordsEncodedOnce() throws Exception {
        fx = ReceiverFixture.start(dir);
        Span valid = Samples.span(new Random(12), 0);
        ExportTraceServiceRequest partly = ExportTraceServiceRequest.newBuilder().addResourceSpans(
                Samples.traces("checkout", 0, 0).getResourceSpans(0).toBuilder().clearScopeSpans()
                        .addScopeSpans(ScopeSpans.newBuilder().addSpans(valid)
                                .addSpans(valid.toBuilder().setTraceId(ByteString.copyFrom(new byte[16])))))
                .build();
        List<SpanRecord> jsonSpans = decoded(Samples.traces("cart", 3, 32));

        assertOk(fx.post("/v1/traces", PROTOBUF, partly.toByteArray()), PROTOBUF);
        assertOk(fx.post("/v1/traces", JSON, json(jsonSpans)), JSON);

        List<WalEntry> entries = walEntries();
        assertEquals(2, entries.size());
        assertEquals(decoded(partly), OtlpWire.decodeSpans(entries.get(0).payload()).records());
        assertEquals(1, decoded(partly).size(), "the rejected span is not logged");
        assertEquals(jsonSpans, OtlpWire.decodeSpans(entries.get(1).payload()).records());
    }

    private List<WalEntry> walEntries() throws Exception {
        List<WalEntry> entries = new ArrayList<>();
        try (var segments = Files.list(dir.resolve("wal"))) {
            for (Path segment : segments.filter(p -> p.toString().endsWith(".wal")).sorted().toList()) {
                try (FileChannel channel = FileChannel.open(segment)) {
                    entries.addAll(WalSegmentFormat.read(channel).entries());
                }
            }
        }
        return entries;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    @Test
    void traces_someInvalidSpans_partialSuccessInJson() throws Exception {
        fx = ReceiverFixture.start(dir);
        String body = """
                {"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{"name":"s"},"spans":[
                 {"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","name":"ok",
                  "startTimeUnixNano":"1544712660000000000","endTimeUnixNano":"1544712661000000000"},
                 {"traceId":"00000000000000000000000000000000","spanId":"EEE19B7EC3C1B175","name":"zero trace"},
                 {"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE1","name":"short span id"}]}]}]}
                """;

        HttpTester.Response r = fx.post("/v1/traces", JSON, body.getBytes(StandardCharsets.UTF_8));

        assertOk(r, JSON);
        String expectedMessage = OtlpJson.decodeSpans(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)))
                .message();
        assertEquals(Map.of("rejectedSpans", "2", "errorMessage", expectedMessage),
                partialSuccess(r.getContentBytes()));
        assertEquals(1, fx.pipeline.head().spans(TenantId.DEFAULT).size());
    }

    @Test
    void logs_anInvalidRecord_partialSuccessInJson() throws Exception {
        fx = ReceiverFixture.start(dir);
        String body = """
                {"resourceLogs":[{"scopeLogs":[{"logRecords":[
                 {"timeUnixNano":"1544712660300000000","body":{"stringValue":"kept"}},
                 {"timeUnixNano":"1544712660300000000","traceId":"ABCDEF","body":{"stringValue":"short trace id"}}]}]}]}
                """;

        HttpTester.Response r = fx.post("/v1/logs", JSON, body.getBytes(StandardCharsets.UTF_8));

        assertOk(r, JSON);
        Map<String, Object> partial = partialSuccess(r.getContentBytes());
        assertEquals("1", partial.get("rejectedLogRecords"), "an int64 is a JSON string");
        assertTrue(((String) partial.get("errorMessage")).contains("trace_id has 3 bytes"), partial::toString);
        assertEquals(1, fx.pipeline.head().logs(TenantId.DEFAULT).size());
    }

    @ParameterizedTest
    @ValueSource(strings = {JSON, PROTOBUF})
    void traces_rejectionMessageCutInsideASurrogatePair_isStillWritten(String contentType) throws Exception {
        fx = ReceiverFixture.start(dir);
        // The message quotes the scope name cut after 40 characters: here between the halves of an emoji.
        String scope = "s".repeat(39) + "\uD83D\uDE00";
        String body = "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":\"" + scope + "\"},\"spans\":["
                + "{\"traceId\":\"00000000000000000000000000000000\",\"spanId\":\"EEE19B7EC3C1B175\"}]}]}]}";
        List<SpanRecord> kept = OtlpJson.decodeSpans(new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)))
                .records();
        byte[] request = contentType.equals(JSON) ? body.getBytes(StandardCharsets.UTF_8)
                : ExportTraceServiceRequest.newBuilder().addResourceSpans(ResourceSpans.newBuilder()
                        .addScopeSpans(ScopeSpans.newBuilder()
                                .setScope(InstrumentationScope.newBuilder().setName(scope))
                                .addSpans(Span.newBuilder().setTraceId(ByteString.copyFrom(new byte[16]))
                                        .setSpanId(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5, 6, 7, 8})))))
                        .build().toByteArray();

        HttpTester.Response r = fx.post("/v1/traces", contentType, request);

        assertOk(r, contentType);
        assertTrue(kept.isEmpty(), "the one span is rejected");
        String message = contentType.equals(JSON) ? (String) partialSuccess(r.getContentBytes()).get("errorMessage")
                : ExportTraceServiceResponse.parseFrom(r.getContentBytes()).getPartialSuccess().getErrorMessage();
        assertTrue(message.contains("s".repeat(39)), message);
    }

    /** The fields of {"partialSuccess":{…}}, strings as strings and numbers as numbers. */
    private static Map<String, Object> partialSuccess(byte[] body) throws Exception {
        Map<String, Object> fields = new HashMap<>();
        try (JsonParser p = new JsonFactory().createParser(body)) {
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            assertEquals("partialSuccess", p.nextFieldName());
            assertEquals(JsonToken.START_OBJECT, p.nextToken());
            for (String name = p.nextFieldName(); name != null; name = p.nextFieldName()) {
                JsonToken t = p.nextToken();
                fields.put(name, t == JsonToken.VALUE_STRING ? p.getText() : p.getNumberValue());
            }
            assertEquals(JsonToken.END_OBJECT, p.nextToken());
            assertNull(p.nextToken());
        }
        return fields;
    }

    // --- Errors ---------------------------------------------------------------------------------

    @Test
    void post_undecodableProtobuf_is400WithAProtobufStatus() throws Exception {
        fx = ReceiverFixture.start(dir);
        // Field 1, length-delimited, with a length far past the end.
        byte[] body = {0x0a, (byte) 0xff, (byte) 0xff, 0x7f, 1, 2, 3};

        RpcStatus s = assertError(fx.post("/v1/traces", PROTOBUF, body), 400, 3, PROTOBUF);

        assertTrue(s.message().contains("ExportTraceServiceRequest"), s.message());
        assertEquals(0, fx.pipeline.head().rows());
    }

    @Test
    void post_undecodableJson_is400WithAJsonStatus() throws Exception {
        fx = ReceiverFixture.start(dir);

        RpcStatus s = assertError(fx.post("/v1/logs", JSON, "{\"resourceLogs\":[".getBytes(StandardCharsets.UTF_8)),
                400, 3, JSON);

        assertFalse(s.message().isBlank());
        assertEquals(0, fx.pipeline.head().rows());
    }

    @Test
    void post_saysGzipButIsNot_is400NamingGzip() throws Exception {
        fx = ReceiverFixture.start(dir);

        RpcStatus s = assertError(fx.post("/v1/traces", PROTOBUF, Samples.traces("a", 1, 12).toByteArray(),
                "Content-Encoding", "gzip"), 400, 3, PROTOBUF);

        assertTrue(s.message().contains("gzip"), s.message());
    }

    @Test
    void post_truncatedGzip_is400() throws Exception {
        fx = ReceiverFixture.start(dir);
        byte[] gz = gzip(Samples.traces("a", 50, 13).toByteArray());
        byte[] truncated = Arrays.copyOf(gz, gz.length / 2);

        RpcStatus s = assertError(fx.post("/v1/traces", PROTOBUF, truncated, "Content-Encoding", "gzip"), 400, 3,
                PROTOBUF);

        assertTrue(s.message().contains("gzip"), s.message());
        assertEquals(0, fx.pipeline.head().rows());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/", "/v1/metrics", "/v1/traces/", "/v1/trace", "/V1/TRACES", "/v1/logs/x"})
    void post_unknownPath_is404(String path) throws Exception {
        fx = ReceiverFixture.start(dir);

        assertError(fx.post(path, PROTOBUF, new byte[0]), 404, 12, PROTOBUF);
        assertError(fx.post(path, JSON, "{}".getBytes(StandardCharsets.UTF_8)), 404, 12, JSON);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET", "PUT", "DELETE", "OPTIONS", "PATCH"})
    void traces_methodOtherThanPost_is405WithAllowPost(String method) throws Exception {
        fx = ReceiverFixture.start(dir);

        HttpTester.Response r = fx.send(ReceiverFixture.request(method, "/v1/traces", JSON, new byte[0], null));

        assertEquals(405, r.getStatus());
        assertEquals("POST", r.get(HttpHeader.ALLOW));
        assertEquals(JSON, r.get(HttpHeader.CONTENT_TYPE));
        assertEquals(12, status(r).code());
    }

    @Test
    void post_contentLengthOverTheLimit_is413BeforeReading() throws Exception {
        fx = ReceiverFixture.start(dir);
        byte[] head = ("POST /v1/traces HTTP/1.1\r\nHost: test\r\nContent-Type: application/x-protobuf\r\n"
                + "Content-Length: " + (OtlpReceiver.DEFAULT_MAX_BODY_BYTES + 1) + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);

        RpcStatus s = assertError(fx.send(head), 413, 8, PROTOBUF);

        assertTrue(s.message().contains(Long.toString(OtlpReceiver.DEFAULT_MAX_BODY_BYTES)), s.message());
        assertEquals(0, fx.metric("needle_ingest_request_bytes_total", "signal", "spans"), "nothing read");
        assertEquals(1, fx.metric("needle_ingest_requests_rejected_total", "signal", "spans", "reason", "too_large"));
    }

    @Test
    void post_whileDecodingHoldsTheWholeBudget_is503WithRetryAfter_andLaterAccepted() throws Exception {
        DecodeBudget budget = new DecodeBudget(2L * DecodeBudget.EXPANSION << 20, 200);
        fx = ReceiverFixture.startWith(dir, budget);
        byte[] body = Samples.traces("a", 10, 3).toByteArray();
        try (DecodeBudget.Reservation other = budget.reserve()) {
            other.cover(2L << 20);
            HttpTester.Response busy = fx.post("/v1/traces", PROTOBUF, body);
            RpcStatus s = assertError(busy, 503, 14, PROTOBUF);
            assertEquals("1", busy.get("Retry-After"));
            assertTrue(s.message().contains("as many requests as its memory allows"), s.message());
            assertEquals(0, fx.pipeline.head().rows());
        }
        assertEquals(200, fx.post("/v1/traces", PROTOBUF, body).getStatus());
        assertEquals(0, budget.reservedBytes(), "every reservation is given back");
    }

    @Test
    void post_chunkedBodyOverTheLimit_is413() throws Exception {
        fx = ReceiverFixture.start(dir, ReceiverFixture.NO_CUTS, 4096, n -> { });
        byte[] body = Samples.traces("a", 100, 14).toByteArray();

        RpcStatus s = assertError(fx.postChunked("/v1/traces", PROTOBUF, body), 413, 8, PROTOBUF);

        assertTrue(s.message().contains("larger than the limit of 4096 bytes"), s.message());
        assertEquals(0, fx.pipeline.head().rows());
    }

    @Test
    void post_gzipThatInflatesPastTheLimit_is413() throws Exception {
        fx = ReceiverFixture.start(dir, ReceiverFixture.NO_CUTS, 4096, n -> { });
        ExportTraceServiceRequest request = Samples.traces("a", 1, 15);
        byte[] body = gzip(request.toBuilder().setResourceSpans(0, request.getResourceSpans(0).toBuilder()
                .setSchemaUrl("x".repeat(10_000))).build().toByteArray());
        assertTrue(body.length < 4096);

        RpcStatus s = assertError(fx.post("/v1/traces", PROTOBUF, body, "Content-Encoding", "gzip"), 413, 8, PROTOBUF);

        assertTrue(s.message().contains("decompressed"), s.message());
    }

    @Test
    void post_gzipBomb_isStoppedWhileInflating() throws Exception {
        fx = ReceiverFixture.start(dir);
        // An unknown length-delimited field (number 15) of 1 GiB: a parser reads on through the zeros.
        byte[] unknownField = {(15 << 3) | 2, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04};
        byte[] bomb = ReceiverFixture.bomb(unknownField, (byte) 0, 1024);
        assertTrue(bomb.length < 2_000_000, "1 GiB of zeros in about 1 MB: " + bomb.length);

        long started = System.nanoTime();
        RpcStatus s = assertError(fx.postChunked("/v1/traces", PROTOBUF, bomb, "Content-Encoding", "gzip"), 413, 8,
                PROTOBUF);
        long millis = (System.nanoTime() - started) / 1_000_000;

        assertTrue(s.message().contains("decompressed"), s.message());
        // 64 MiB of zeros come from about 64 KiB of the body: the rest was never inflated.
        double read = fx.metric("needle_ingest_request_bytes_total", "signal", "spans");
        assertTrue(read > 0 && read < bomb.length / 4.0, "read " + read + " of " + bomb.length + " bytes");
        assertTrue(millis < 20_000, "took " + millis + " ms");
    }

    @Test
    void post_jsonWhitespaceBomb_isStoppedWhileInflating() throws Exception {
        fx = ReceiverFixture.start(dir);
        byte[] bomb = ReceiverFixture.bomb("{\"resourceSpans\":[".getBytes(StandardCharsets.UTF_8), (byte) ' ', 1024);

        RpcStatus s = assertError(fx.post("/v1/traces", JSON, bomb, "Content-Encoding", "gzip"), 413, 8, JSON);

        assertTrue(s.message().contains("decompressed"), s.message());
        assertTrue(fx.metric("needle_ingest_request_bytes_total", "signal", "spans") < bomb.length / 4.0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "application/protobuf", "application/octet-stream", "application/xml",
            "application/jsonx", "json", "application/x-protobuf+json", "multipart/form-data; boundary=x", ""})
    void post_unsupportedContentType_is415(String contentType) throws Exception {
        fx = ReceiverFixture.start(dir);

        RpcStatus s = assertError(fx.post("/v1/traces", contentType, Samples.traces("a", 1, 16).toByteArray()), 415, 3,
                JSON);

        assertTrue(s.message().contains("application/x-protobuf or application/json"), s.message());
        assertEquals(0, fx.pipeline.head().rows());
    }

    @Test
    void post_noContentType_is415() throws Exception {
        fx = ReceiverFixture.start(dir);

        HttpTester.Response r = fx.post("/v1/logs", null, Samples.logs("a", 1, 17).toByteArray());

        assertError(r, 415, 3, JSON);
        assertEquals("{\"code\":3,\"message\":\"no Content-Type: send application/x-protobuf or application/json\"}",
                r.getContent());
    }

    @ParameterizedTest
    @ValueSource(strings = {"br", "deflate", "zstd", "compress", "gzip, gzip", "gzip, br", "x-snappy"})
    void post_unsupportedContentEncoding_is415NamingIt(String encoding) throws Exception {
        fx = ReceiverFixture.start(dir);

        RpcStatus s = assertError(fx.post("/v1/traces", JSON, "{}".getBytes(StandardCharsets.UTF_8),
                "Content-Encoding", encoding), 415, 3, JSON);

        assertTrue(s.message().contains("'" + encoding + "'"), s.message());
    }

    @ParameterizedTest
    @ValueSource(strings = {"\"gzip\"", "gzip\"", "a\"b", "\""})
    void post_contentEncodingWithQuotes_is415NotA500(String encoding) throws Exception {
        fx = ReceiverFixture.start(dir);

        assertError(fx.post("/v1/traces", PROTOBUF, gzip(Samples.traces("a", 1, 26).toByteArray()),
                "Content-Encoding", encoding), 415, 3, PROTOBUF);
    }

    @Test
    void post_headWithinARequestOfItsBound_is429WithRetryAfter5_beforeTheBodyIsDecoded() throws Exception {
        // No wait for room: the publisher would make it (it cuts at half the bound).
        IngestLimits tinyHead = new IngestLimits(300_000, 100_000_000, 1L << 40, Duration.ofHours(1), 4_000,
                Duration.ZERO, 1L << 30, 64L << 20);
        fx = ReceiverFixture.start(dir, tinyHead, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, n -> { });
        byte[] body = Samples.traces("a", 3, 18).toByteArray();

        HttpTester.Response refused = null;
        HttpTester.Response garbage;
        // The publisher cuts under the pipeline's monitor (cutAndPublish is synchronized): held here, it
        // cannot make room, and the head fills up.
        synchronized (fx.pipeline) {
            for (int i = 0; i < 50 && refused == null; i++) {
                HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, body);
                if (r.getStatus() != 200) {
                    refused = r;
                }
            }
            // Not a 400: the body is not decoded.
            garbage = fx.post("/v1/traces", PROTOBUF, new byte[] {(byte) 0xff, (byte) 0xff, 1, 2, 3});
        }

        assertTrue(refused != null, "the head filled up");
        RpcStatus s = assertError(refused, 429, 8, PROTOBUF);
        assertTrue(s.message().contains("head"), s.message());
        assertEquals("5", refused.get(HttpHeader.RETRY_AFTER));
        assertError(garbage, 429, 8, PROTOBUF);
        assertEquals("5", garbage.get(HttpHeader.RETRY_AFTER));
        assertEquals(2, fx.metric("needle_ingest_requests_rejected_total", "signal", "spans", "reason", "refused"));
        assertEquals(0, fx.metric("needle_ingest_records_rejected_total", "signal", "spans", "reason", "refused"),
                "records never decoded are not counted");
    }

    @Test
    void post_largerThanTheLastRequestTaken_passesTheCheckBeforeDecoding_andIsRefusedOnceDecoded() throws Exception {
        IngestLimits tinyHead = new IngestLimits(300_000, 100_000_000, 1L << 40, Duration.ofHours(1), 8_000,
                Duration.ZERO, 1L << 30, 64L << 20);
        fx = ReceiverFixture.start(dir, tinyHead, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, n -> { });
        assertEquals(200, fx.post("/v1/traces", PROTOBUF, Samples.traces("a", 1, 18).toByteArray()).getStatus());
        long held = fx.pipeline.head().heapBytes();
        assertTrue(2 * held <= tinyHead.maxHeadBytes(), "one span's " + held + " bytes leave room for another");

        HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, Samples.traces("a", 50, 19).toByteArray());

        assertError(r, 429, 8, PROTOBUF);
        assertEquals("5", r.get(HttpHeader.RETRY_AFTER));
        assertEquals(50, fx.metric("needle_ingest_records_rejected_total", "signal", "spans", "reason", "refused"));
        assertEquals(held, fx.pipeline.head().heapBytes(), "nothing of it taken");
    }

    @Test
    void post_writeAheadLogBacklogOverItsBound_is503WithRetryAfter() throws Exception {
        CountDownLatch fsyncing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        IngestLimits tinyBacklog = new IngestLimits(300_000, 100_000_000, 1L << 40, Duration.ofHours(1), 1L << 30,
                1, 64L << 20);
        // The first fsync stalls, so that the first request's entry stays pending.
        fx = ReceiverFixture.start(dir, tinyBacklog, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, nanos -> {
            if (first.getAndSet(false)) {
                fsyncing.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });
        ExecutorService background = Executors.newSingleThreadExecutor();
        try {
            ExportTraceServiceRequest request = Samples.traces("a", 3, 19);
            Future<HttpTester.Response> stalled = background.submit(
                    () -> fx.post("/v1/traces", PROTOBUF, request.toByteArray()));
            assertTrue(fsyncing.await(10, TimeUnit.SECONDS));

            HttpTester.Response r = fx.post("/v1/traces", PROTOBUF, Samples.traces("b", 3, 20).toByteArray());

            RpcStatus s = assertError(r, 503, 14, PROTOBUF);
            assertTrue(s.message().contains("write-ahead log"), s.message());
            assertEquals("1", r.get(HttpHeader.RETRY_AFTER));
            release.countDown();
            assertOk(stalled.get(10, TimeUnit.SECONDS), PROTOBUF);
            assertEquals(decoded(request), fx.pipeline.head().spans(TenantId.DEFAULT), "only the first is kept");
        } finally {
            release.countDown();
            background.shutdownNow();
        }
    }

    @Test
    void post_ingestorFailsUnexpectedly_is500WithAStatus() throws Exception {
        Ingestor broken = new Ingestor() {
            @Override
            public void admit() {
                // Admits every request: it fails once decoded.
            }

            @Override
            public void acceptSpans(TenantId tenant, List<SpanRecord> spans, byte[] protobuf, int length) {
                throw new IllegalStateException("disk on fire");
            }

            @Override
            public void acceptLogs(TenantId tenant, List<LogRecord> logs, byte[] protobuf, int length) {
                throw new IllegalStateException("disk on fire");
            }
        };
        fx = ReceiverFixture.startWith(dir, broken);

        RpcStatus s = assertError(fx.post("/v1/traces", JSON, "{}".getBytes(StandardCharsets.UTF_8)), 500, 13, JSON);

        assertTrue(s.message().contains("disk on fire"), s.message());
    }

    // --- Tenants --------------------------------------------------------------------------------

    @ParameterizedTest
    @ValueSource(strings = {"..", ".", "../etc", "a/b", "a b", "wal", "WAL", "tenant:1", "ümlaut"})
    void post_invalidTenant_is400AndStoresNothing(String tenant) throws Exception {
        fx = ReceiverFixture.start(dir);

        RpcStatus s = assertError(fx.post("/v1/traces", PROTOBUF, Samples.traces("a", 2, 21).toByteArray(),
                TENANT, tenant), 400, 3, PROTOBUF);

        assertTrue(s.message().contains(TENANT), s.message());
        assertEquals(0, fx.pipeline.head().rows());
    }

    @Test
    void post_tenantTooLong_is400() throws Exception {
        fx = ReceiverFixture.start(dir);

        RpcStatus s = assertError(fx.post("/v1/logs", JSON, "{}".getBytes(StandardCharsets.UTF_8), TENANT,
                "t".repeat(151)), 400, 3, JSON);

        assertTrue(s.message().contains("too long"), s.message());
    }

    @Test
    void post_tenantHeader_putsRecordsUnderItsTenantOnly() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest acme = Samples.traces("acme-svc", 5, 22);
        ExportTraceServiceRequest globex = Samples.traces("globex-svc", 7, 23);
        ExportTraceServiceRequest none = Samples.traces("anon-svc", 2, 24);

        assertOk(fx.post("/v1/traces", PROTOBUF, acme.toByteArray(), TENANT, "acme"), PROTOBUF);
        assertOk(fx.post("/v1/traces", PROTOBUF, globex.toByteArray(), TENANT, "globex"), PROTOBUF);
        assertOk(fx.post("/v1/traces", PROTOBUF, none.toByteArray()), PROTOBUF);

        assertEquals(decoded(acme), fx.pipeline.head().spans(ACME));
        assertEquals(decoded(globex), fx.pipeline.head().spans(TenantId.of("globex")));
        assertEquals(decoded(none), fx.pipeline.head().spans(TenantId.of("single-tenant")));
        fx.pipeline.cutAndPublish();
        assertEquals(new HashSet<>(decoded(acme)), new HashSet<>(fx.querySpans(ACME)));
        assertEquals(new HashSet<>(decoded(globex)), new HashSet<>(fx.querySpans(TenantId.of("globex"))));
        assertEquals(new HashSet<>(decoded(none)), new HashSet<>(fx.querySpans(TenantId.DEFAULT)));
    }

    // --- Metrics --------------------------------------------------------------------------------

    @Test
    void metrics_countRequestsRecordsAndRejections() throws Exception {
        fx = ReceiverFixture.start(dir);
        ExportTraceServiceRequest request = Samples.traces("a", 20, 25);
        Span valid = request.getResourceSpans(0).getScopeSpans(0).getSpans(0);
        ExportTraceServiceRequest partial = request.toBuilder().setResourceSpans(0, request.getResourceSpans(0)
                .toBuilder().setScopeSpans(0, ScopeSpans.newBuilder().addSpans(valid)
                        .addSpans(valid.toBuilder().clearSpanId()))).build();

        fx.post("/v1/traces", PROTOBUF, request.toByteArray());
        fx.post("/v1/traces", PROTOBUF, partial.toByteArray());
        fx.post("/v1/traces", "text/plain", request.toByteArray());
        fx.post("/v1/logs", JSON, "nope".getBytes(StandardCharsets.UTF_8));
        fx.post("/v1/nothing", JSON, new byte[0]);

        assertEquals(2, fx.metric("needle_ingest_requests_total", "signal", "spans", "encoding", "protobuf",
                "status", "200"));
        assertEquals(1, fx.metric("needle_ingest_requests_total", "signal", "spans", "encoding", "other",
                "status", "415"));
        assertEquals(1, fx.metric("needle_ingest_requests_total", "signal", "logs", "encoding", "json",
                "status", "400"));
        assertEquals(1, fx.metric("needle_ingest_requests_total", "signal", "other", "encoding", "json",
                "status", "404"));
        assertEquals(21, fx.metric("needle_ingest_records_accepted_total", "signal", "spans"));
        assertEquals(1, fx.metric("needle_ingest_records_rejected_total", "signal", "spans", "reason", "invalid"));
        assertEquals(1, fx.metric("needle_ingest_requests_rejected_total", "signal", "spans",
                "reason", "unsupported_media_type"));
        assertEquals(1, fx.metric("needle_ingest_requests_rejected_total", "signal", "logs", "reason", "undecodable"));
        assertEquals(request.getSerializedSize() + partial.getSerializedSize(),
                fx.metric("needle_ingest_request_bytes_total", "signal", "spans"));
        assertEquals(3, fx.metric("needle_ingest_request_duration_seconds_count", "signal", "spans"));
    }
}
