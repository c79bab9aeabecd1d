package dev.needle.ingest.http;

import static dev.needle.ingest.http.ReceiverFixture.JSON;
import static dev.needle.ingest.http.ReceiverFixture.PROTOBUF;
import static dev.needle.ingest.http.ReceiverFixture.gzip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.http.ReceiverFixture.RpcStatus;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.zip.GZIPInputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpTester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input: thousands of generated bad requests each get a 4xx, or a 200 when the bytes still
 * decode, never a 5xx; afterwards the receiver still takes a valid request and everything
 * acknowledged, before and during, is in the head.
 *
 * <p>Each reply is checked against an oracle: the same bytes decoded directly (inflated first for
 * gzip) must give a 200 with the same rejected count, and an exception a 400. Reproduce a failure
 * with {@code -Dneedle.fuzz.seed=<seed>}, which every failure message names.
 */
class OtlpReceiverBadInputTest {

    private static final long SEED = Long.getLong("needle.fuzz.seed", 20_261_129L);
    private static final String TENANT = "X-Scope-OrgID";
    private static final TenantId FUZZ = TenantId.of("fuzz");
    private static final TenantId KEPT = TenantId.of("kept");
    private static final Path EXAMPLES = Path.of("../../shared/otlp-examples");
    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    @TempDir
    Path dir;

    private ReceiverFixture fx;
    private Random random;
    private List<SpanRecord> keptSpans;
    private List<LogRecord> keptLogs;
    private int cases;
    private final List<String> failures = new ArrayList<>();
    /** How many replies had each status. */
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    /** Records acknowledged by a 200 during the test, per tenant: [spans, logs]. */
    private final Map<TenantId, long[]> acknowledged = new HashMap<>();

    @BeforeEach
    void startAndAcknowledgeSomething() throws Exception {
        fx = ReceiverFixture.start(dir);
        random = new Random(SEED);
        ExportTraceServiceRequest spans = Samples.traces("kept", 50, 1);
        ExportLogsServiceRequest logs = Samples.logs("kept", 50, 2);
        assertEquals(200, fx.post("/v1/traces", PROTOBUF, spans.toByteArray(), TENANT, KEPT.value()).getStatus());
        assertEquals(200, fx.post("/v1/logs", PROTOBUF, logs.toByteArray(), TENANT, KEPT.value()).getStatus());
        keptSpans = OtlpWire.decodeSpans(spans.toByteArray()).records();
        keptLogs = OtlpWire.decodeLogs(logs.toByteArray()).records();
    }

    @AfterEach
    void close() throws Exception {
        fx.close();
    }

    // --- The tests ------------------------------------------------------------------------------

    @Test
    void protobuf_truncatedFlippedAndSpliced_getA4xxOrDecode() throws Exception {
        for (Signal signal : Signal.values()) {
            byte[] small = protobuf(signal, 1, 10);
            byte[] large = protobuf(signal, 20, 11);
            for (int cut = 0; cut < small.length; cut++) {
                check("protobuf cut at " + cut, signal, PROTOBUF, null, Arrays.copyOf(small, cut));
            }
            for (int i = 0; i < 100; i++) {
                int cut = random.nextInt(large.length);
                check("large protobuf cut at " + cut, signal, PROTOBUF, null, Arrays.copyOf(large, cut));
            }
            for (int i = 0; i < 400; i++) {
                int flips = 1 + random.nextInt(4);
                check(i + ": protobuf with " + flips + " bits flipped", signal, PROTOBUF, null,
                        flip(i % 2 == 0 ? small : large, flips));
            }
            for (int i = 0; i < 100; i++) {
                check(i + ": spliced protobuf", signal, PROTOBUF, null, splice(large));
            }
        }
        assertNothingLostAndStillServing(1500, 200, 400);
    }

    @Test
    void json_malformedAndWrongTypes_getA4xxOrDecode() throws Exception {
        List<Object[]> bases = List.of(
                new Object[] {Signal.SPANS, json(Signal.SPANS, 3, 12)},
                new Object[] {Signal.LOGS, json(Signal.LOGS, 3, 13)},
                new Object[] {Signal.SPANS, Files.readAllBytes(EXAMPLES.resolve("trace.json"))},
                new Object[] {Signal.LOGS, Files.readAllBytes(EXAMPLES.resolve("logs.json"))},
                new Object[] {Signal.LOGS, Files.readAllBytes(EXAMPLES.resolve("events.json"))});
        for (Object[] base : bases) {
            Signal signal = (Signal) base[0];
            byte[] json = (byte[]) base[1];
            for (int i = 0; i < 50; i++) {
                int cut = random.nextInt(json.length);
                check("JSON cut at " + cut, signal, JSON, null, Arrays.copyOf(json, cut));
            }
            for (int i = 0; i < 100; i++) {
                check(i + ": JSON edited", signal, JSON, null, editJson(json));
            }
            for (int i = 0; i < 150; i++) {
                check(i + ": JSON with a value of another type", signal, JSON, null, swapValue(json));
            }
        }
        for (Signal signal : Signal.values()) {
            for (String shape : WRONG_SHAPES) {
                check("JSON " + shape, signal, JSON, null, forSignal(shape, signal).getBytes(StandardCharsets.UTF_8));
            }
        }
        assertNothingLostAndStillServing(1500, 200, 400);
    }

    @Test
    void randomBytesAndGzipGarbage_getA4xxOrDecode() throws Exception {
        for (int i = 0; i < 400; i++) {
            Signal signal = i % 2 == 0 ? Signal.SPANS : Signal.LOGS;
            check(i + ": random bytes", signal, i % 4 < 2 ? PROTOBUF : JSON, null, randomBytes(random.nextInt(2000)));
        }
        for (int i = 0; i < 100; i++) {
            Signal signal = i % 2 == 0 ? Signal.SPANS : Signal.LOGS;
            String type = i % 4 < 2 ? PROTOBUF : JSON;
            byte[] valid = type.equals(PROTOBUF) ? protobuf(signal, 5, 100 + i) : json(signal, 5, 100 + i);
            byte[] gz = gzip(valid);
            check(i + ": gzip of random bytes", signal, type, "gzip", gzip(randomBytes(random.nextInt(2000))));
            check(i + ": random bytes said to be gzip", signal, type, "gzip", randomBytes(random.nextInt(200)));
            byte[] magic = randomBytes(10 + random.nextInt(200));
            magic[0] = 0x1f;
            magic[1] = (byte) 0x8b;
            magic[2] = 8;
            check(i + ": gzip magic then random bytes", signal, type, "gzip", magic);
            check(i + ": truncated gzip", signal, type, "gzip", Arrays.copyOf(gz, random.nextInt(gz.length)));
            check(i + ": gzip with a bit flipped", signal, type, "gzip", flip(gz, 1));
            check(i + ": gzip with garbage after it", signal, type, "gzip",
                    concat(gz, randomBytes(1 + random.nextInt(50))));
            check(i + ": gzip of garbage after valid", signal, type, "gzip", gzip(concat(valid, randomBytes(20))));
            if (type.equals(PROTOBUF)) {
                check(i + ": two gzip members", signal, type, "gzip", concat(gz, gzip(protobuf(signal, 2, 200 + i))));
            }
        }
        assertNothingLostAndStillServing(1000, 200, 400);
    }

    @Test
    void hugeStringsDeepNestingAndBombs_getA4xxOrDecode() throws Exception {
        String span = """
                {"traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174","name":%s,
                 "startTimeUnixNano":%s,"attributes":[{"key":%s,"value":%s}]}""";
        String ok = "\"5\"";
        String str = "{\"stringValue\":\"v\"}";
        check("an 8 MB span name", Signal.SPANS, JSON, null, spans(span.formatted(quoted(8 << 20), ok, "\"k\"", str)));
        check("a 15 MB string value", Signal.SPANS, JSON, null,
                spans(span.formatted("\"n\"", ok, "\"k\"", "{\"stringValue\":" + quoted(15 << 20) + "}")));
        check("a 1 MB attribute key", Signal.SPANS, JSON, null,
                spans(span.formatted("\"n\"", ok, quoted(1 << 20), str)));
        check("a 1 MB trace id", Signal.SPANS, JSON, null,
                spans(span.formatted("\"n\"", ok, "\"k\"", str)
                        .replace("5B8EFFF798038103D269B633813FC60C", "AB".repeat(1 << 19))));
        check("a 5000-digit time", Signal.SPANS, JSON, null,
                spans(span.formatted("\"n\"", "9".repeat(5000), "\"k\"", str)));
        check("a 5000-digit time as a string", Signal.SPANS, JSON, null,
                spans(span.formatted("\"n\"", "\"" + "9".repeat(5000) + "\"", "\"k\"", str)));
        check("a 10 MB protobuf string value", Signal.SPANS, PROTOBUF, null, hugeProtobufValue(10 << 20));
        for (int depth : new int[] {100, 129, 200, 300}) {
            check("JSON kvlists nested " + depth + " deep", Signal.SPANS, JSON, null,
                    spans(span.formatted("\"n\"", ok, "\"k\"", nestedKvlists(depth))));
        }
        check("JSON arrays nested 100000 deep", Signal.LOGS, JSON, null,
                ("{\"resourceLogs\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}")
                        .getBytes(StandardCharsets.UTF_8));
        for (int depth : new int[] {100, 129, 190, 5_000}) {
            check("protobuf arrays nested " + depth + " deep", Signal.SPANS, PROTOBUF, null,
                    nestedProtobufArrays(depth));
        }
        // Bombs: 1 GiB once inflated, so no oracle; each must stop early with the status it names.
        bomb("zeros as JSON", Signal.SPANS, JSON, new byte[0], (byte) 0, 400);
        byte[] unknownField = {(15 << 3) | 2, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04};
        bomb("zeros in an unknown protobuf field", Signal.LOGS, PROTOBUF, unknownField, (byte) 0, 413);
        bomb("JSON whitespace", Signal.LOGS, JSON, utf8("{\"resourceLogs\":["), (byte) ' ', 413);
        // Jackson stops a string at 20 million characters.
        bomb("one JSON string", Signal.SPANS, JSON, utf8("{\"resourceSpans\":[{\"schemaUrl\":\""), (byte) 'a', 400);
        assertNothingLostAndStillServing(20, 200, 400, 413);
    }

    @Test
    void wrongContentTypesEncodingsAndTenants_getA4xxOrDecode() throws Exception {
        byte[] spans = protobuf(Signal.SPANS, 2, 20);
        for (String type : BAD_TYPES) {
            check("Content-Type " + type, Signal.SPANS, type, null, spans);
        }
        for (int i = 0; i < 200; i++) {
            check(i + ": a random Content-Type", Signal.LOGS, token(1 + random.nextInt(60)), null, spans);
        }
        for (String encoding : List.of("br", "deflate", "zstd", "compress", "gzip, gzip", "x-unknown", "*", "gzip;q=1",
                "\"gzip\"", "gzip\"", "\"", ",", "identity, ,", "x-gzip", " GZip ", "identity,gzip")) {
            check("Content-Encoding " + encoding, Signal.SPANS, PROTOBUF, encoding, gzip(spans));
        }
        for (int i = 0; i < 100; i++) {
            check(i + ": a random Content-Encoding", Signal.SPANS, JSON, token(1 + random.nextInt(30)), spans);
        }
        for (int i = 0; i < 300; i++) {
            String tenant = i % 3 == 0 ? token(1 + random.nextInt(200)) : tenantLike(1 + random.nextInt(160));
            send(i + ": tenant " + tenant, Signal.SPANS, PROTOBUF, null, spans, tenant);
        }
        assertNothingLostAndStillServing(600, 200, 400, 415);
    }

    // --- Sending and judging --------------------------------------------------------------------

    /** Sends {@code body} for the fuzz tenant, and judges the reply against the oracle. */
    private void check(String what, Signal signal, String contentType, String contentEncoding, byte[] body) {
        send(what, signal, contentType, contentEncoding, body, FUZZ.value());
    }

    private void send(String what, Signal signal, String contentType, String contentEncoding, byte[] body,
                      String tenant) {
        cases++;
        List<String> headers = new ArrayList<>(List.of(TENANT, tenant));
        if (contentEncoding != null) {
            headers.addAll(List.of("Content-Encoding", contentEncoding));
        }
        String path = signal == Signal.SPANS ? "/v1/traces" : "/v1/logs";
        HttpTester.Response r;
        try {
            // A quarter chunked, as the SDK sends gzip.
            r = random.nextInt(4) == 0
                    ? fx.postChunked(path, contentType, body, headers.toArray(String[]::new))
                    : fx.post(path, contentType, body, headers.toArray(String[]::new));
        } catch (Exception | AssertionError e) {
            failures.add(what + ": no reply: " + e);
            return;
        }
        Expected expected = expect(signal, contentType, contentEncoding, body, tenant);
        judge(what, signal, contentType, r, expected);
    }

    private void judge(String what, Signal signal, String contentType, HttpTester.Response r, Expected expected) {
        statuses.merge(r.getStatus(), 1, Integer::sum);
        if (r.getStatus() >= 500) {
            failures.add(what + ": " + r.getStatus() + " " + r.getContent());
            return;
        }
        if (r.getStatus() != expected.status()) {
            failures.add(what + ": status " + r.getStatus() + ", expected " + expected.status() + ": " + content(r));
            return;
        }
        try {
            if (r.getStatus() == 200) {
                long rejected = rejected(signal, r);
                if (rejected != expected.rejected()) {
                    failures.add(what + ": " + rejected + " rejected in the reply, expected " + expected.rejected());
                }
                long[] counts = acknowledged.computeIfAbsent(expected.tenant(), t -> new long[2]);
                counts[signal.ordinal()] += expected.records();
            } else {
                RpcStatus s = ReceiverFixture.status(r);
                if (s.code() != 3 && s.code() != 8 || s.message().isEmpty()) {
                    failures.add(what + ": Status " + s);
                }
            }
        } catch (IOException | RuntimeException e) {
            failures.add(what + ": an unreadable " + r.getStatus() + " reply (" + e + "): " + content(r));
        }
        String type = r.get(HttpHeader.CONTENT_TYPE);
        if (!PROTOBUF.equals(type) && !JSON.equals(type)) {
            failures.add(what + ": reply Content-Type " + type);
        }
    }

    private static String content(HttpTester.Response r) {
        String c = r.getContent();
        return c.length() > 300 ? c.substring(0, 300) + "…" : c;
    }

    /** A reply as the oracle sees it: the tenant, records and rejected count of a 200. */
    private record Expected(int status, TenantId tenant, int records, int rejected) {
    }

    /**
     * What the receiver should answer: 415 for a media type or content coding it does not take,
     * 400 for an invalid tenant, else 200 with what decoding the bytes directly gives, or 400 when
     * they do not decode.
     */
    private static Expected expect(Signal signal, String contentType, String contentEncoding, byte[] body,
                                   String tenantHeader) {
        String type = contentType == null ? "" : contentType.split(";", -1)[0].trim().toLowerCase(Locale.ROOT);
        boolean protobuf = type.equals(PROTOBUF);
        if (!protobuf && !type.equals(JSON)) {
            return new Expected(415, null, 0, 0);
        }
        List<String> codings = new ArrayList<>();
        for (String c : contentEncoding == null ? new String[0] : contentEncoding.split(",", -1)) {
            if (!c.isBlank() && !c.trim().equalsIgnoreCase("identity")) {
                codings.add(c.trim().toLowerCase(Locale.ROOT));
            }
        }
        boolean gzip = codings.equals(List.of("gzip")) || codings.equals(List.of("x-gzip"));
        if (!codings.isEmpty() && !gzip) {
            return new Expected(415, null, 0, 0);
        }
        TenantId tenant;
        try {
            tenant = TenantId.fromHeader(tenantHeader);
        } catch (IllegalArgumentException e) {
            return new Expected(400, null, 0, 0);
        }
        try (InputStream in = gzip
                ? new GZIPInputStream(new ByteArrayInputStream(body)) : new ByteArrayInputStream(body)) {
            Decoded<?> d = signal == Signal.SPANS
                    ? protobuf ? OtlpWire.decodeSpans(in.readAllBytes()) : OtlpJson.decodeSpans(in)
                    : protobuf ? OtlpWire.decodeLogs(in.readAllBytes()) : OtlpJson.decodeLogs(in);
            return new Expected(200, tenant, d.records().size(), d.rejected());
        } catch (IOException e) {
            return new Expected(400, null, 0, 0);
        }
    }

    /** The rejected count of a 200 reply, read as its Content-Type says; a JSON reply without one is exactly {}. */
    private static long rejected(Signal signal, HttpTester.Response r) throws IOException {
        byte[] body = r.getContentBytes();
        if (PROTOBUF.equals(r.get(HttpHeader.CONTENT_TYPE))) {
            return signal == Signal.SPANS
                    ? ExportTraceServiceResponse.parseFrom(body).getPartialSuccess().getRejectedSpans()
                    : ExportLogsServiceResponse.parseFrom(body).getPartialSuccess().getRejectedLogRecords();
        }
        if (r.getContent().equals("{}")) {
            return 0;
        }
        String field = signal == Signal.SPANS ? "rejectedSpans" : "rejectedLogRecords";
        try (JsonParser p = JSON_FACTORY.createParser(body)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t == JsonToken.FIELD_NAME && p.currentName().equals(field)) {
                    if (p.nextToken() != JsonToken.VALUE_STRING) {
                        throw new IOException(field + " is not a string");
                    }
                    return Long.parseLong(p.getText());
                }
            }
        }
        throw new IOException("no " + field + " in " + r.getContent());
    }

    private void bomb(String what, Signal signal, String type, byte[] prefix, byte fill, int status) throws Exception {
        byte[] body = ReceiverFixture.bomb(prefix, fill, 1024);
        cases++;
        HttpTester.Response r = fx.post(signal == Signal.SPANS ? "/v1/traces" : "/v1/logs", type, body,
                TENANT, FUZZ.value(), "Content-Encoding", "gzip");
        judge("bomb of " + what, signal, type, r, new Expected(status, FUZZ, 0, 0));
    }

    /**
     * Nothing mishandled; at least {@code atLeast} cases, with every status of {@code seen} among
     * the replies (so that the generators reach past the first check); a valid request is still
     * taken; the head holds exactly what was acknowledged.
     */
    private void assertNothingLostAndStillServing(int atLeast, Integer... seen) throws Exception {
        assertTrue(failures.isEmpty(), () -> failures.size() + " of " + cases + " bad requests were mishandled (seed "
                + SEED + "):\n" + String.join("\n", failures.subList(0, Math.min(20, failures.size()))));
        assertTrue(cases >= atLeast, cases + " cases");
        assertTrue(statuses.keySet().containsAll(List.of(seen)), () -> "replies by status: " + statuses);
        ExportTraceServiceRequest after = Samples.traces("after", 5, 3);
        assertEquals(200, fx.post("/v1/traces", PROTOBUF, after.toByteArray(), TENANT, "after").getStatus());
        assertEquals(OtlpWire.decodeSpans(after.toByteArray()).records(), fx.pipeline.head().spans(TenantId.of("after")));
        assertEquals(keptSpans, fx.pipeline.head().spans(KEPT), "spans acknowledged before are all there");
        assertEquals(keptLogs, fx.pipeline.head().logs(KEPT), "log records acknowledged before are all there");
        for (Map.Entry<TenantId, long[]> e : acknowledged.entrySet()) {
            assertEquals(e.getValue()[Signal.SPANS.ordinal()], fx.pipeline.head().spans(e.getKey()).size(),
                    "spans acknowledged for " + e.getKey());
            assertEquals(e.getValue()[Signal.LOGS.ordinal()], fx.pipeline.head().logs(e.getKey()).size(),
                    "log records acknowledged for " + e.getKey());
        }
    }

    // --- Generators -----------------------------------------------------------------------------

    private static byte[] protobuf(Signal signal, int n, long seed) {
        return signal == Signal.SPANS ? Samples.traces("fuzz", n, seed).toByteArray()
                : Samples.logs("fuzz", n, seed).toByteArray();
    }

    private static byte[] json(Signal signal, int n, long seed) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (signal == Signal.SPANS) {
            OtlpJson.encodeSpans(OtlpWire.decodeSpans(Samples.traces("fuzz", n, seed).toByteArray()).records(), out);
        } else {
            OtlpJson.encodeLogs(OtlpWire.decodeLogs(Samples.logs("fuzz", n, seed).toByteArray()).records(), out);
        }
        return out.toByteArray();
    }

    private byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private byte[] flip(byte[] bytes, int bits) {
        byte[] b = bytes.clone();
        for (int i = 0; i < bits; i++) {
            int bit = random.nextInt(b.length * 8);
            b[bit / 8] ^= (byte) (1 << (bit % 8));
        }
        return b;
    }

    /** A random slice of {@code bytes} copied over another place. */
    private byte[] splice(byte[] bytes) {
        byte[] b = bytes.clone();
        int from = random.nextInt(b.length);
        int to = random.nextInt(b.length);
        int n = Math.min(1 + random.nextInt(64), Math.min(b.length - from, b.length - to));
        System.arraycopy(bytes, from, b, to, n);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    private static final String STRUCTURE = "{}[]\":,0-eE.\\ntfu";

    /** One random edit: a byte deleted, a JSON character inserted, a byte replaced, or a slice repeated. */
    private byte[] editJson(byte[] json) {
        int at = random.nextInt(json.length);
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length + 64);
        out.write(json, 0, at);
        switch (random.nextInt(4)) {
            case 0 -> out.write(json, at + 1, json.length - at - 1);
            case 1 -> {
                out.write(STRUCTURE.charAt(random.nextInt(STRUCTURE.length())));
                out.write(json, at, json.length - at);
            }
            case 2 -> {
                out.write(random.nextInt(256));
                out.write(json, at + 1, json.length - at - 1);
            }
            default -> {
                int n = Math.min(json.length - at, 1 + random.nextInt(40));
                out.write(json, at, n);
                out.write(json, at, json.length - at);
            }
        }
        return out.toByteArray();
    }

    /** The document with one value (a scalar, object or array) replaced by a value of some other type. */
    private byte[] swapValue(byte[] json) throws IOException {
        int values = 0;
        try (JsonParser p = JSON_FACTORY.createParser(json)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t.isScalarValue() || t.isStructStart()) {
                    values++;
                }
            }
        }
        int target = random.nextInt(values);
        ByteArrayOutputStream out = new ByteArrayOutputStream(json.length + 64);
        try (JsonParser p = JSON_FACTORY.createParser(json); JsonGenerator g = JSON_FACTORY.createGenerator(out)) {
            int i = 0;
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if ((t.isScalarValue() || t.isStructStart()) && i++ == target) {
                    writeOddValue(g);
                    p.skipChildren();
                } else {
                    g.copyCurrentEvent(p);
                }
            }
        }
        return out.toByteArray();
    }

    private void writeOddValue(JsonGenerator g) throws IOException {
        switch (random.nextInt(15)) {
            case 0 -> g.writeString("");
            case 1 -> g.writeString("not hex, base64 or a number");
            case 2 -> g.writeNumber(random.nextLong());
            case 3 -> g.writeNumber(-1);
            case 4 -> g.writeNumber(1.5e300);
            case 5 -> g.writeBoolean(random.nextBoolean());
            case 6 -> g.writeNull();
            case 7 -> {
                g.writeStartArray();
                g.writeEndArray();
            }
            case 8 -> {
                g.writeStartObject();
                g.writeEndObject();
            }
            case 9 -> {
                g.writeStartArray();
                g.writeNumber(1);
                g.writeString("a");
                g.writeNull();
                g.writeEndArray();
            }
            case 10 -> g.writeRawValue("1e400");
            case 11 -> g.writeString("18446744073709551616");
            case 12 -> g.writeString("5B8EFFF798038103D269B633813FC60C");
            case 13 -> g.writeNumber(new BigInteger("-123456789012345678901234567890"));
            default -> {
                g.writeStartObject();
                g.writeFieldName("stringValue");
                g.writeNumber(7);
                g.writeEndObject();
            }
        }
    }

    /** Requests of the wrong shape, written for spans and turned into logs by {@link #forSignal}. */
    private static final List<String> WRONG_SHAPES = List.of(
            "{}", "[]", "null", "true", "12", "\"resourceSpans\"", "{\"resourceSpans\":null}",
            "{\"resourceSpans\":{}}", "{\"resourceSpans\":\"x\"}", "{\"resourceSpans\":[1,2]}",
            "{\"resourceSpans\":[null]}", "{\"resourceSpans\":[[]]}", "{\"resourceSpans\":[{\"resource\":[]}]}",
            "{\"resourceSpans\":[{\"resource\":{\"attributes\":{}}}]}",
            "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":1,\"value\":2}]}}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":{}}]}", "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":{}}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[1]}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"traceId\":[]}]}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"kind\":\"SPAN_KIND_NONSENSE\"}]}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"startTimeUnixNano\":-5}]}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":[{\"key\":\"k\",\"value\":"
                    + "{\"intValue\":\"1.5\"}}]}]}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":[{\"key\":\"k\",\"value\":"
                    + "{\"bytesValue\":\"***\"}}]}]}]}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":[{\"key\":\"k\",\"value\":"
                    + "{\"doubleValue\":\"x\"}}]}]}]}]}",
            "{\"resourceSpans\":[]}{\"resourceSpans\":[]}", "{\"resourceSpans\":[]} x", "\uFEFF{\"resourceSpans\":[]}",
            "{\"resourceSpans\":[],\"resourceSpans\":5}", "{\"a\":{\"b\":{\"c\":[[[[{}]]]]}}}");

    private static String forSignal(String shape, Signal signal) {
        return signal == Signal.SPANS ? shape
                : shape.replace("resourceSpans", "resourceLogs").replace("scopeSpans", "scopeLogs")
                        .replace("\"spans\"", "\"logRecords\"");
    }

    private static final List<String> BAD_TYPES = List.of(
            "text/plain", "text/json", "application/protobuf", "application/grpc", "application/octet-stream",
            "application/x-www-form-urlencoded", "application/xml", "application/jsonl", "application/x-ndjson",
            "application/json-seq", "application/x-protobuf-json", "application/x-protobufs", "*/*", "application/*",
            "x-protobuf", "json", "application", "application/", "/json", ";application/json", "application /json",
            "application/ json", "multipart/mixed; boundary=x", "application/x-protobuf, application/json");

    /** Random printable ASCII without spaces, as a header value that arrives whole. */
    private String token(int n) {
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) (0x21 + random.nextInt(0x7e - 0x21 + 1)));
        }
        return sb.toString();
    }

    /** Mostly valid tenant characters, sometimes one that is not, sometimes a reserved name. */
    private String tenantLike(int n) {
        String alphabet = "abcXYZ019-_.";
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(random.nextInt(40) == 0 ? "/:%*".charAt(random.nextInt(4))
                    : alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return switch (random.nextInt(20)) {
            case 0 -> ".";
            case 1 -> "..";
            case 2 -> "wAl";
            default -> sb.toString();
        };
    }

    private static byte[] spans(String span) {
        return ("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[" + span + "]}]}]}").getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String quoted(int n) {
        return "\"" + "x".repeat(n) + "\"";
    }

    private static String nestedKvlists(int depth) {
        String value = "{\"stringValue\":\"leaf\"}";
        for (int i = 0; i < depth; i++) {
            value = "{\"kvlistValue\":{\"values\":[{\"key\":\"k" + i + "\",\"value\":" + value + "}]}}";
        }
        return value;
    }

    private static byte[] hugeProtobufValue(int n) {
        ExportTraceServiceRequest request = Samples.traces("fuzz", 1, 30);
        ScopeSpans scope = request.getResourceSpans(0).getScopeSpans(0);
        Span span = scope.getSpans(0).toBuilder().addAttributes(Samples.attr("huge", Samples.str("y".repeat(n))))
                .build();
        return request.toBuilder().setResourceSpans(0, request.getResourceSpans(0).toBuilder()
                .setScopeSpans(0, scope.toBuilder().setSpans(0, span))).build().toByteArray();
    }

    /**
     * A span whose one attribute is arrays nested {@code depth} deep, written byte by byte from the
     * inside out, so that no protobuf serializer recurses: AnyValue.array_value (5) holds
     * ArrayValue.values (1) holds AnyValue …
     */
    private static byte[] nestedProtobufArrays(int depth) {
        byte[] value = Samples.str("leaf").toByteArray();
        for (int i = 0; i < depth; i++) {
            value = field(5, field(1, value));
        }
        ExportTraceServiceRequest request = Samples.traces("fuzz", 1, 31);
        byte[] span = request.getResourceSpans(0).getScopeSpans(0).getSpans(0).toByteArray();
        // Span.attributes (9) holds KeyValue { key (1), value (2) }.
        byte[] keyValue = concat(field(1, "deep".getBytes(StandardCharsets.UTF_8)), field(2, value));
        byte[] spanWithDeep = concat(span, field(9, keyValue));
        // ExportTraceServiceRequest.resource_spans (1) > ResourceSpans.scope_spans (2) > ScopeSpans.spans (2).
        return field(1, field(2, field(2, spanWithDeep)));
    }

    /** A length-delimited protobuf field. */
    private static byte[] field(int number, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 8);
        writeVarint(out, (long) number << 3 | 2);
        writeVarint(out, content.length);
        out.writeBytes(content);
        return out.toByteArray();
    }

    private static void writeVarint(ByteArrayOutputStream out, long v) {
        while ((v & ~0x7fL) != 0) {
            out.write((int) (v & 0x7f) | 0x80);
            v >>>= 7;
        }
        out.write((int) v);
    }
}
