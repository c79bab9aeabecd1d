package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What OTLP/JSON readers must accept beyond what the writer writes, and the errors that name their place. */
final class OtlpJsonDecodeTest {

    private static final String IDS = "\"traceId\":\"5B8EFFF798038103D269B633813FC60C\",\"spanId\":\"EEE19B7EC3C1B174\"";

    /** The one span of a request whose span object holds {@code fields}. */
    private static SpanRecord span(String fields) throws IOException {
        Decoded<SpanRecord> decoded = Bodies.jsonSpans("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + IDS
                + (fields.isEmpty() ? "" : "," + fields) + "}]}]}]}");
        assertEquals("", decoded.message());
        return decoded.records().get(0);
    }

    /** The value of the one attribute of a span whose AnyValue object holds {@code valueFields}. */
    private static AnyValue value(String valueFields) throws IOException {
        return span("\"attributes\":[{\"key\":\"k\",\"value\":{" + valueFields + "}}]").attributes().get(0).value();
    }

    private static String error(String body) {
        return assertThrows(OtlpDecodeException.class, () -> Bodies.jsonSpans(body)).getMessage();
    }

    private static String spanError(String fields) {
        return error("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + fields + "}]}]}]}");
    }

    @Test
    void decode_snakeCaseKeys_sameAsCamelCase() throws IOException {
        String camel = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"a\",\"value\":{\"kvlistValue\":{\"values\":"
                + "[{\"key\":\"b\",\"value\":{\"arrayValue\":{\"values\":[{\"intValue\":\"1\"},{\"bytesValue\":\"AQ==\"}]}}}]}}}],"
                + "\"droppedAttributesCount\":1},\"schemaUrl\":\"r\",\"scopeSpans\":[{\"scope\":{\"name\":\"s\","
                + "\"droppedAttributesCount\":2},\"schemaUrl\":\"s\",\"spans\":[{" + IDS + ",\"parentSpanId\":\"EEE19B7EC3C1B173\","
                + "\"traceState\":\"t\",\"startTimeUnixNano\":\"5\",\"endTimeUnixNano\":\"6\",\"droppedAttributesCount\":3,"
                + "\"events\":[{\"timeUnixNano\":\"7\",\"droppedAttributesCount\":4}],\"droppedEventsCount\":5,"
                + "\"links\":[{" + IDS + ",\"traceState\":\"u\",\"droppedAttributesCount\":6}],\"droppedLinksCount\":7,"
                + "\"status\":{\"code\":2,\"message\":\"m\"}}]}]}]}";
        String snake = camel.replace("resourceSpans", "resource_spans").replace("scopeSpans", "scope_spans")
                .replace("schemaUrl", "schema_url").replace("traceId", "trace_id").replace("spanId", "span_id")
                .replace("parentSpanId", "parent_span_id")
                .replace("traceState", "trace_state").replace("UnixNano", "_unix_nano").replace("startTime", "start_time")
                .replace("endTime", "end_time")
                .replace("droppedAttributesCount", "dropped_attributes_count")
                .replace("droppedEventsCount", "dropped_events_count").replace("droppedLinksCount", "dropped_links_count")
                .replace("kvlistValue", "kvlist_value").replace("arrayValue", "array_value")
                .replace("intValue", "int_value").replace("bytesValue", "bytes_value");
        assertTrue(!snake.contains("Value\"") && !snake.contains("Count\"") && snake.contains("\"time_unix_nano\""), snake);
        Decoded<SpanRecord> expected = Bodies.jsonSpans(camel);
        assertEquals(1, expected.records().size());
        assertEquals(3, expected.records().get(0).droppedAttributesCount());
        assertEquals(expected, Bodies.jsonSpans(snake));
    }

    @Test
    void decode_enumNames_acceptedLeniently() throws IOException {
        assertEquals(2, span("\"kind\":\"SPAN_KIND_SERVER\"").kind());
        assertEquals(3, span("\"kind\":\"3\"").kind());
        assertEquals(-4, span("\"kind\":-4").kind());
        assertEquals(2, span("\"status\":{\"code\":\"STATUS_CODE_ERROR\"}").statusCode());
        LogRecord log = Bodies.jsonLogs("{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":"
                + "\"SEVERITY_NUMBER_WARN\"}]}]}]}").records().get(0);
        assertEquals(13, log.severityNumber());
        assertTrue(spanError("\"kind\":\"SPAN_KIND_BOGUS\"").startsWith(
                "resourceSpans[0].scopeSpans[0].spans[0].kind: unknown SpanKind 'SPAN_KIND_BOGUS' (line 1, column "));
    }

    @Test
    void decode_64BitIntegers_asStringsOrNumbers() throws IOException {
        assertEquals(1544712660000000000L, span("\"startTimeUnixNano\":1544712660000000000").startTimeUnixNano());
        assertEquals(1544712660000000000L, span("\"startTimeUnixNano\":\"1544712660000000000\"").startTimeUnixNano());
        assertEquals(1544712660000000000L, span("\"startTimeUnixNano\":1.54471266e18").startTimeUnixNano());
        assertEquals(-1L, span("\"startTimeUnixNano\":\"18446744073709551615\"").startTimeUnixNano());
        assertEquals(-1L, span("\"endTimeUnixNano\":18446744073709551615").endTimeUnixNano());
        assertEquals(AnyValue.of(Long.MIN_VALUE), value("\"intValue\":-9223372036854775808"));
        assertEquals(AnyValue.of(Long.MAX_VALUE), value("\"intValue\":\"9223372036854775807\""));
        // Nineteen digits as a string: within a long, and past it (the exact path, as 64 bits for a uint64).
        assertEquals(AnyValue.of(Long.MIN_VALUE), value("\"intValue\":\"-9223372036854775808\""));
        assertEquals(AnyValue.of(1L), value("\"intValue\":\"0000000000000000001\""));
        assertEquals(-8446744073709551617L, span("\"startTimeUnixNano\":\"9999999999999999999\"").startTimeUnixNano());
        assertEquals(AnyValue.of(1000L), value("\"intValue\":\"1e3\""));
        assertEquals(AnyValue.of(0L), value("\"intValue\":\"0e999999999\""));
        assertEquals(-1, span("\"droppedAttributesCount\":4294967295").droppedAttributesCount());
        assertEquals(-1, span("\"flags\":\"4294967295\"").flags());
        String at = "resourceSpans[0].scopeSpans[0].spans[0].";
        assertTrue(spanError("\"startTimeUnixNano\":-1").startsWith(at + "startTimeUnixNano: expected an unsigned 64-bit"
                + " integer, got the number '-1' (line 1, column "));
        assertTrue(spanError("\"startTimeUnixNano\":\"18446744073709551616\"").startsWith(at + "startTimeUnixNano: expected"));
        assertTrue(spanError("\"droppedAttributesCount\":4294967296").startsWith(at + "droppedAttributesCount: expected an"
                + " unsigned 32-bit integer, got the number '4294967296'"));
        assertTrue(spanError("\"flags\":1.5").startsWith(at + "flags: expected"));
        assertTrue(spanError("\"flags\":\"1e999999999\"").startsWith(at + "flags: expected"));
        assertTrue(spanError("\"flags\":\"1e-999999999\"").startsWith(at + "flags: expected"));
        assertTrue(spanError("\"flags\":\" 1\"").startsWith(at + "flags: expected"));
        assertTrue(spanError("\"attributes\":[{\"value\":{\"intValue\":\"9223372036854775808\"}}]")
                .startsWith(at + "attributes[0].value.intValue: expected a 64-bit integer"));
        assertTrue(spanError("\"attributes\":[{\"value\":{\"intValue\":\"-9223372036854775809\"}}]")
                .startsWith(at + "attributes[0].value.intValue: expected a 64-bit integer"));
    }

    @Test
    void decode_doubles_specialStringsAndSignedZero() throws IOException {
        assertEquals(AnyValue.of(Double.NaN), value("\"doubleValue\":\"NaN\""));
        assertEquals(AnyValue.of(Double.POSITIVE_INFINITY), value("\"doubleValue\":\"Infinity\""));
        assertEquals(AnyValue.of(Double.NEGATIVE_INFINITY), value("\"doubleValue\":\"-Infinity\""));
        assertEquals(AnyValue.of(-0.0), value("\"doubleValue\":-0"));
        assertEquals(AnyValue.of(-0.0), value("\"doubleValue\":-0.0"));
        assertEquals(AnyValue.of(0.0), value("\"doubleValue\":0"));
        assertEquals(AnyValue.of(1.5), value("\"doubleValue\":\"1.5\""));
        assertEquals(AnyValue.of(637.704), value("\"doubleValue\":637.704"));
        assertEquals(AnyValue.of(1e300), value("\"doubleValue\":1E300"));
        assertTrue(spanError("\"attributes\":[{\"value\":{\"doubleValue\":\"nan\"}}]").contains("doubleValue: expected a double"));
        assertTrue(spanError("\"attributes\":[{\"value\":{\"doubleValue\":true}}]").contains("doubleValue: expected a double, got true"));
    }

    @Test
    void decode_bytes_standardOrUrlSafeBase64_paddedOrNot() throws IOException {
        AnyValue fbff = new AnyValue.Blob(Bytes.fromHex("fbff"));
        assertEquals(fbff, value("\"bytesValue\":\"+/8=\""));
        assertEquals(fbff, value("\"bytesValue\":\"+/8\""));
        assertEquals(fbff, value("\"bytesValue\":\"-_8=\""));
        assertEquals(new AnyValue.Blob(Bytes.EMPTY), value("\"bytesValue\":\"\""));
    }

    @Test
    void decode_nulls_countAsAbsent() throws IOException {
        SpanRecord s = span("\"name\":null,\"kind\":null,\"attributes\":[null,{\"key\":\"k\",\"value\":null},"
                + "{\"key\":\"a\",\"value\":{\"arrayValue\":{\"values\":[null,{\"boolValue\":false}]}}}],\"events\":null,"
                + "\"status\":null");
        assertEquals("", s.name());
        assertEquals(List.of(new KeyValue("k", AnyValue.Empty.INSTANCE),
                new KeyValue("a", new AnyValue.Array(List.of(AnyValue.Empty.INSTANCE, AnyValue.of(false))))), s.attributes());
        Decoded<SpanRecord> nullResource = Bodies.jsonSpans("{\"resourceSpans\":[null,{\"resource\":null,\"scopeSpans\":"
                + "[{\"scope\":null,\"spans\":[null,{" + IDS + "}]}]}]}");
        assertEquals(Resource.EMPTY, nullResource.records().get(0).resource());
        assertEquals(Scope.EMPTY, nullResource.records().get(0).scope());
    }

    @Test
    void decode_unknownFields_skippedWhateverTheirShape() throws IOException {
        SpanRecord plain = span("\"name\":\"n\",\"attributes\":[{\"key\":\"k\",\"value\":{\"stringValue\":\"v\"}}]");
        String junk = "{\"a\":[1,{\"b\":[[],{}]},\"c\",null,true],\"d\":{\"e\":{\"f\":-1.5e3}}}";
        assertEquals(plain, span("\"x\":" + junk + ",\"name\":\"n\",\"attributes\":[{\"key\":\"k\",\"y\":" + junk
                + ",\"value\":{\"z\":" + junk + ",\"stringValue\":\"v\",\"stringValueStrindex\":7}}]"));
        Decoded<SpanRecord> decoded = Bodies.jsonSpans("{\"x\":" + junk + ",\"resourceSpans\":[{\"resource\":{\"entityRefs\":["
                + junk + "]},\"scopeSpans\":[{\"q\":" + junk + ",\"spans\":[{" + IDS + "}]}],\"w\":" + junk + "}]}");
        assertEquals(1, decoded.records().size());
    }

    @Test
    void decode_keysInAnyOrder_recordsStillShareTheirResourceAndScope() throws IOException {
        Decoded<SpanRecord> decoded = Bodies.jsonSpans("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + IDS
                + "},{\"spanId\":\"EEE19B7EC3C1B175\",\"traceId\":\"5B8EFFF798038103D269B633813FC60C\"}],"
                + "\"schemaUrl\":\"s\",\"scope\":{\"name\":\"x\"}}],\"schemaUrl\":\"r\",\"resource\":{\"attributes\":"
                + "[{\"value\":{\"stringValue\":\"svc\"},\"key\":\"service.name\"}]}}]}");
        List<SpanRecord> spans = decoded.records();
        assertEquals(2, spans.size());
        assertEquals(new Resource(List.of(KeyValue.of("service.name", "svc")), 0, "r"), spans.get(0).resource());
        assertEquals(new Scope("x", "", List.of(), 0, "s"), spans.get(0).scope());
        assertSame(spans.get(0).resource(), spans.get(1).resource());
        assertSame(spans.get(0).scope(), spans.get(1).scope());
    }

    @Test
    void decode_attributeKeys_oneInstancePerDistinctKeyOfARequest() throws IOException {
        StringBuilder spans = new StringBuilder();
        // 300 distinct keys fill many of the table's slots; "\\u0061" is an escaped "a", and each long key passes the shared length.
        for (int i = 0; i < 300; i++) {
            String longKey = "k".repeat(70) + i;
            spans.append(i == 0 ? "" : ",").append("{").append(IDS).append(",\"attributes\":[")
                    .append("{\"key\":\"\\u0061.key\",\"value\":{\"intValue\":\"1\"}},")
                    .append("{\"key\":\"key.").append(i).append("\",\"value\":{\"intValue\":\"2\"}},")
                    .append("{\"key\":\"").append(longKey).append("\",\"value\":{\"intValue\":\"3\"}}]}");
        }
        List<SpanRecord> got = Bodies.jsonSpans("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[" + spans + "]}]}]}").records();
        assertEquals(300, got.size());
        for (int i = 0; i < 300; i++) {
            List<KeyValue> attributes = got.get(i).attributes();
            assertEquals(List.of(KeyValue.of("a.key", 1), KeyValue.of("key." + i, 2), KeyValue.of("k".repeat(70) + i, 3)),
                    attributes);
            assertSame(got.get(0).attributes().get(0).key(), attributes.get(0).key());
        }
    }

    @Test
    void decode_unicode_escapesAndPairsKeptUnpairedSurrogateRefused() throws IOException {
        assertEquals("🚀\u0000\"\\é", span("\"name\":\"\\uD83D\\uDE80\\u0000\\\"\\\\\\u00e9\"").name());
        assertTrue(spanError("\"name\":\"a\\uD800b\"").startsWith(
                "resourceSpans[0].scopeSpans[0].spans[0].name: string has an unpaired surrogate \\uD800"));
        assertTrue(spanError("\"name\":\"\\uDC00\"").contains("unpaired surrogate"));
    }

    @Test
    void decode_wrongTypes_errorNamesPathAndPosition() {
        String body = "{\"resourceSpans\":[{\"scopeSpans\":[{},{\"spans\":[{},{},{},{},{\"startTimeUnixNano\":{}}]}]}]}";
        assertEquals("resourceSpans[0].scopeSpans[1].spans[4].startTimeUnixNano: expected an unsigned 64-bit integer, "
                + "got an object (line 1, column 80)", error(body));
        assertEquals("request: expected an object, got an array (line 1, column 1)", error("[]"));
        assertEquals("request: expected an object, got the end of the input (line 1, column 0)", error(""));
        assertEquals("resourceSpans: expected an array, got an object (line 1, column 18)", error("{\"resourceSpans\":{}}"));
        assertEquals("resourceSpans[1]: expected an object, got the number '5' (line 1, column 22)",
                error("{\"resourceSpans\":[{},5]}"));
        assertTrue(spanError("\"name\":5").startsWith("resourceSpans[0].scopeSpans[0].spans[0].name: expected a string, got"));
        assertTrue(spanError("\"attributes\":[{\"value\":{\"boolValue\":\"true\"}}]").contains(
                "attributes[0].value.boolValue: expected true or false, got the string 'true'"));
        assertTrue(spanError("\"attributes\":{}").contains("spans[0].attributes: expected an array"));
        assertTrue(spanError("\"traceId\":12").contains("spans[0].traceId: expected a string"));
        assertTrue(spanError("\"status\":[]").contains("spans[0].status: expected an object"));
        assertTrue(error("{} {}").startsWith("request: unexpected content after the request object"));
    }
}
