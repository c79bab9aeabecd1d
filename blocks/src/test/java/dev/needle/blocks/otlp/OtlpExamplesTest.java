package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The OTLP repository's JSON examples, read where they are (never copied into this repository):
 * accepted whole, uppercase hex ids included, every value exactly as the file writes it.
 */
final class OtlpExamplesTest {

    /** Relative to the module directory, where Maven runs the tests: /work/main/query → /work/shared. */
    private static final Path EXAMPLES = Path.of("../../shared/otlp-examples");

    private static byte[] example(String name) throws IOException {
        Path file = EXAMPLES.resolve(name);
        assertTrue(Files.isRegularFile(file), "OTLP example " + name + " not found at " + file.toAbsolutePath().normalize()
                + " (the tests expect the shared examples two levels above the module directory)");
        return Files.readAllBytes(file);
    }

    private static final Resource SERVICE = new Resource(List.of(KeyValue.of("service.name", "my.service")), 0, "");
    private static final Scope LIBRARY = new Scope("my.library", "1.0.0",
            List.of(KeyValue.of("my.scope.attribute", "some scope attribute")), 0, "");

    @Test
    void traceJson_decodesExactly() throws IOException {
        Decoded<SpanRecord> decoded = Bodies.jsonSpans(example("trace.json"));
        assertEquals(new Decoded<>(List.of(SpanRecord.builder().resource(SERVICE).scope(LIBRARY)
                .traceId(Bytes.fromHex("5b8efff798038103d269b633813fc60c")).spanId(Bytes.fromHex("eee19b7ec3c1b174"))
                .parentSpanId(Bytes.fromHex("eee19b7ec3c1b173")).name("I'm a server span").kind(2)
                .startTimeUnixNano(1544712660000000000L).endTimeUnixNano(1544712661000000000L)
                .attributes(List.of(KeyValue.of("my.span.attr", "some value"))).build()), 0, ""), decoded);
        assertEquals(OtlpWire.decodeSpans(ProtoSamples.exampleTrace().toByteArray()), decoded, "JSON and builder-made protobuf agree");
    }

    @Test
    void traceJson_lowerCaseIds_sameRecords() throws IOException {
        String text = new String(example("trace.json"), StandardCharsets.UTF_8);
        String lower = text.replace("5B8EFFF798038103D269B633813FC60C", "5b8efff798038103d269b633813fc60c")
                .replace("EEE19B7EC3C1B17", "eee19b7ec3c1b17");
        assertTrue(!lower.equals(text));
        assertEquals(Bodies.jsonSpans(text), Bodies.jsonSpans(lower));
    }

    @Test
    void logsJson_everyValueTypeExactly() throws IOException {
        Decoded<LogRecord> decoded = Bodies.jsonLogs(example("logs.json"));
        assertEquals(0, decoded.rejected());
        assertEquals("", decoded.message());
        assertEquals(1, decoded.records().size());
        LogRecord log = decoded.records().get(0);
        assertEquals(SERVICE, log.resource());
        assertEquals(LIBRARY, log.scope());
        assertEquals(1544712660300000000L, log.timeUnixNano());
        assertEquals(1544712660300000000L, log.observedTimeUnixNano());
        assertEquals(10, log.severityNumber());
        assertEquals("Information", log.severityText());
        assertEquals(Bytes.fromHex("5B8EFFF798038103D269B633813FC60C"), log.traceId());
        assertEquals(Bytes.fromHex("EEE19B7EC3C1B174"), log.spanId());
        assertEquals(AnyValue.of("Example log record"), log.body());
        assertEquals(List.of(
                KeyValue.of("string.attribute", "some string"),
                new KeyValue("boolean.attribute", AnyValue.of(true)),
                KeyValue.of("int.attribute", 10L),
                new KeyValue("double.attribute", AnyValue.of(637.704)),
                new KeyValue("array.attribute", new AnyValue.Array(List.of(AnyValue.of("many"), AnyValue.of("values")))),
                new KeyValue("map.attribute", new AnyValue.KvList(List.of(KeyValue.of("some.map.key", "some value"))))),
                log.attributes());
        assertEquals(0, log.flags());
        assertEquals("", log.eventName());
        assertEquals(OtlpWire.decodeLogs(OtlpWireWriter.encodeLogs(decoded.records())), decoded);
    }

    @Test
    void eventsJson_eventNameAndStructuredBody() throws IOException {
        Decoded<LogRecord> decoded = Bodies.jsonLogs(example("events.json"));
        assertEquals(0, decoded.rejected());
        LogRecord event = decoded.records().get(0);
        assertEquals("browser.page_view", event.eventName());
        assertEquals(9, event.severityNumber());
        assertEquals("test severity text", event.severityText());
        assertEquals(Bytes.EMPTY, event.traceId());
        assertEquals(Bytes.EMPTY, event.spanId());
        assertEquals(List.of(KeyValue.of("event.attribute", "some event attribute")), event.attributes());
        assertEquals(new AnyValue.KvList(List.of(
                KeyValue.of("type", 0L),
                KeyValue.of("url", "https://www.guidgenerator.com/online-guid-generator.aspx"),
                KeyValue.of("referrer", "https://wwww.google.com"),
                KeyValue.of("title", "Free Online GUID Generator"))), event.body());
    }

    @Test
    void examples_reencodedAsJson_decodeToTheSameRecords() throws IOException {
        Decoded<SpanRecord> spans = Bodies.jsonSpans(example("trace.json"));
        assertEquals(spans, Bodies.jsonSpans(Bodies.spansJson(spans.records())));
        for (String name : List.of("logs.json", "events.json")) {
            Decoded<LogRecord> logs = Bodies.jsonLogs(example(name));
            assertEquals(logs, Bodies.jsonLogs(Bodies.logsJson(logs.records())), name);
        }
    }
}
