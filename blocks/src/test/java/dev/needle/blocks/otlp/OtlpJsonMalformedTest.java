package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.needle.blocks.model.SpanRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Bodies that are not OTLP JSON: each gives an {@link OtlpDecodeException} with a bounded message,
 * never another exception, a stack overflow or a hang.
 */
final class OtlpJsonMalformedTest {

    /** Decodes {@code body} as spans and as logs; each must fail with an OtlpDecodeException. */
    private static void assertRefused(byte[] body) {
        assertRefused(body, false);
        assertRefused(body, true);
    }

    /** Decodes {@code body} as spans or as logs (for which a spans request's content is an unknown field, skipped). */
    private static void assertRefused(byte[] body, boolean logs) {
        OtlpDecodeException e = assertThrows(OtlpDecodeException.class,
                () -> decode(body, logs), () -> "accepted: " + preview(body));
        assertTrue(e.getMessage() != null && !e.getMessage().isEmpty() && e.getMessage().length() < 1_000,
                e.getMessage());
    }

    /** Decodes {@code body} as spans and as logs; each may succeed or fail, but only with an OtlpDecodeException. */
    private static void assertDecodesOrRefuses(byte[] body) {
        for (boolean logs : new boolean[] {false, true}) {
            try {
                decode(body, logs);
            } catch (OtlpDecodeException expected) {
                // refused cleanly
            } catch (Throwable t) {
                fail("unexpected " + t + " for " + preview(body), t);
            }
        }
    }

    private static void decode(byte[] body, boolean logs) throws IOException {
        if (logs) {
            Bodies.jsonLogs(body);
        } else {
            Bodies.jsonSpans(body);
        }
    }

    private static String preview(byte[] body) {
        String s = new String(body, StandardCharsets.UTF_8);
        return s.length() <= 200 ? s : s.substring(0, 200) + "…";
    }

    /** Valid documents of a few KB: the examples, the every-field samples, a random request. */
    private static List<byte[]> validDocuments() throws IOException {
        List<byte[]> docs = new ArrayList<>();
        for (String name : List.of("trace.json", "logs.json", "events.json")) {
            Path file = Path.of("../../shared/otlp-examples", name);
            assertTrue(Files.isRegularFile(file), "OTLP example not found at " + file.toAbsolutePath().normalize());
            docs.add(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8));
        }
        docs.add(Bodies.logsJson(OtlpWire.decodeLogs(ProtoSamples.everyFieldLogs().toByteArray()).records()));
        RandomOtlp random = new RandomOtlp(7, false);
        byte[] doc;
        do {
            doc = Bodies.spansJson(random.spans());
        } while (doc.length > 20_000 || doc.length < 3_000);
        docs.add(doc);
        return docs;
    }

    @Test
    void truncated_atEverySeventhByte_refused() throws IOException {
        for (byte[] doc : validDocuments()) {
            assertDecodesOrRefuses(doc);
            for (int n = 0; n < doc.length; n += 7) {
                assertRefused(Arrays.copyOf(doc, n));
            }
        }
    }

    @Test
    void wrongTypes_refused() {
        String ids = "\"traceId\":\"5B8EFFF798038103D269B633813FC60C\",\"spanId\":\"EEE19B7EC3C1B174\"";
        String[] spanFields = {
            "\"traceId\":[]", "\"spanId\":{}", "\"parentSpanId\":true", "\"traceState\":1", "\"flags\":\"x\"",
            "\"name\":[\"n\"]", "\"kind\":{}", "\"kind\":1.5", "\"startTimeUnixNano\":true", "\"endTimeUnixNano\":\"\"",
            "\"attributes\":{\"key\":\"k\"}", "\"attributes\":[5]", "\"attributes\":[{\"key\":5}]",
            "\"attributes\":[{\"value\":\"v\"}]", "\"attributes\":[{\"value\":{\"stringValue\":5}}]",
            "\"attributes\":[{\"value\":{\"intValue\":\"ten\"}}]", "\"attributes\":[{\"value\":{\"intValue\":true}}]",
            "\"attributes\":[{\"value\":{\"bytesValue\":[]}}]", "\"attributes\":[{\"value\":{\"arrayValue\":[]}}]",
            "\"attributes\":[{\"value\":{\"arrayValue\":{\"values\":{}}}}]",
            "\"attributes\":[{\"value\":{\"arrayValue\":{\"values\":[5]}}}]",
            "\"attributes\":[{\"value\":{\"kvlistValue\":{\"values\":[[]]}}}]",
            "\"droppedAttributesCount\":-1", "\"events\":{}", "\"events\":[[]]", "\"events\":[{\"timeUnixNano\":{}}]",
            "\"droppedEventsCount\":[]", "\"links\":[{\"traceId\":false}]", "\"links\":[{\"flags\":-1}]",
            "\"droppedLinksCount\":1e40", "\"status\":\"ok\"", "\"status\":{\"code\":[]}", "\"status\":{\"message\":1}",
        };
        for (String field : spanFields) {
            assertRefused(("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + ids + "," + field + "}]}]}]}")
                    .getBytes(StandardCharsets.UTF_8), false);
        }
        for (String body : new String[] {"null", "5", "\"x\"", "true", "[]", "[{}]", "{}{}", "{} x"}) {
            assertRefused(body.getBytes(StandardCharsets.UTF_8));
        }
        String[] bodies = {
            "{\"resourceSpans\":{}}",
            "{\"resourceSpans\":[[]]}", "{\"resourceSpans\":[{\"resource\":[]}]}", "{\"resourceSpans\":[{\"resource\":5}]}",
            "{\"resourceSpans\":[{\"resource\":{\"attributes\":5}}]}", "{\"resourceSpans\":[{\"scopeSpans\":{}}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":\"s\"}]}]}", "{\"resourceSpans\":[{\"schemaUrl\":{}}]}",
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":{}}]}]}", "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[1]}]}]}",
            "{\"resourceLogs\":{},\"resourceSpans\":{}}",
            "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":\"text\"}]}]}],\"resourceSpans\":{}}",
            "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"severityNumber\":\"LOUD\"}]}]}],\"resourceSpans\":{}}",
        };
        for (String body : bodies) {
            assertRefused(body.getBytes(StandardCharsets.UTF_8), false);
        }
    }

    @Test
    void deepNesting_hundredThousandLevels_refusedWithoutStackOverflow() {
        int levels = 100_000;
        String span = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":[{\"key\":\"k\",\"value\":";
        String log = "{\"resourceLogs\":[{\"scopeLogs\":[{\"logRecords\":[{\"body\":";
        assertRefused(nest(span, "{\"arrayValue\":{\"values\":[", "{}", "]}}", levels, "}]}]}]}]}"));
        assertRefused(nest(span, "{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":", "{}", "}]}}", levels, "}]}]}]}]}"));
        assertRefused(nest(log, "{\"arrayValue\":{\"values\":[", "{}", "]}}", levels, "}]}]}]}"));
        assertRefused(nest("{\"resourceSpans\":[],\"unknown\":", "[", "0", "]", levels, "}"));
        assertRefused(nest("{\"unknown\":", "{\"a\":", "0", "}", levels, "}"));
        assertRefused(nest("", "[", "", "]", levels, ""));
        assertRefused(nest("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":[{\"value\":", "{\"arrayValue\":"
                + "{\"values\":[", "", "", levels, ""));
    }

    private static byte[] nest(String head, String open, String middle, String close, int levels, String tail) {
        StringBuilder sb = new StringBuilder(head);
        sb.append(open.repeat(levels)).append(middle).append(close.repeat(levels)).append(tail);
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void garbage_randomBytesAndPunctuation_refused() {
        SplittableRandom random = new SplittableRandom(11);
        byte[] alphabet = "{}[]\":,0123456789.eE-+ tfnrulsaxX\\".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 3_000; i++) {
            byte[] body = new byte[random.nextInt(300)];
            boolean punctuation = random.nextBoolean();
            for (int j = 0; j < body.length; j++) {
                body[j] = punctuation ? alphabet[random.nextInt(alphabet.length)] : (byte) random.nextInt(256);
            }
            assertDecodesOrRefuses(body);
        }
        byte[][] bodies = {
            {(byte) 0xFF, (byte) 0xFE, 0, 0, '{', 0, 0, 0}, // UTF-32 LE byte order mark
            {0, 0, (byte) 0xFF, (byte) 0xFE}, // an unusual UCS-4 order
            {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'}, // invalid UTF-8 inside a string
            {'{', '"', 'a', (byte) 0xFF, '"', ':', '1', '}'}, // invalid UTF-8 inside a key
            {'{', '"', 'r', 'e', 's', 'o', 'u', 'r', 'c', 'e', 'S', 'p', 'a', 'n', 's', '"', ':', '[', (byte) 0x80, ']', '}'},
            "{\"resourceSpans\":[NaN]}".getBytes(StandardCharsets.UTF_8),
            "{\"resourceSpans\":[],}".getBytes(StandardCharsets.UTF_8),
            "{'resourceSpans':[]}".getBytes(StandardCharsets.UTF_8),
            "{\"resourceSpans\":[] /* comment */}".getBytes(StandardCharsets.UTF_8),
            "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"\u0001\"}]}]}]}".getBytes(StandardCharsets.UTF_8),
        };
        for (byte[] body : bodies) {
            assertRefused(body);
        }
    }

    @Test
    void bitFlips_ofAValidDocument_decodeOrRefuseCleanly() throws IOException {
        SplittableRandom random = new SplittableRandom(13);
        for (byte[] doc : validDocuments()) {
            for (int i = 0; i < 500; i++) {
                byte[] flipped = doc.clone();
                for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                    flipped[random.nextInt(flipped.length)] ^= (byte) (1 << random.nextInt(8));
                }
                assertDecodesOrRefuses(flipped);
            }
        }
    }

    @Test
    void hugeValid_documentWithLongStrings_accepted() throws IOException {
        String huge = "ü".repeat(1_000_000);
        SpanRecord span = OtlpRoundTripTest.withAttributes(
                OtlpRoundTripTest.span(dev.needle.blocks.model.Resource.EMPTY, dev.needle.blocks.model.Scope.EMPTY, 1),
                List.of(dev.needle.blocks.model.KeyValue.of(huge, huge)));
        assertTrue(Bodies.jsonSpans(Bodies.spansJson(List.of(span))).records().equals(List.of(span)));
    }
}
