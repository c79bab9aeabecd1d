package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * OtlpWire against its reference, protobuf-java's parser followed by the conversion to records
 * ({@link ProtobufJavaDecode}): the same records, rejections and message, the same resource and
 * scope sharing, and a refusal exactly when protobuf-java refuses, for random, reshuffled,
 * truncated and bit-flipped requests.
 */
final class OtlpWireTest {

    /** Decodes {@code body} both ways; both must refuse it or give the same answer, which is returned (null when refused). */
    private static Decoded<SpanRecord> sameSpans(byte[] body, String what) {
        return same(body, what, b -> ProtobufJavaDecode.spans(b), OtlpWire::decodeSpans, SpanRecord::resource, SpanRecord::scope);
    }

    private static Decoded<LogRecord> sameLogs(byte[] body, String what) {
        return same(body, what, b -> ProtobufJavaDecode.logs(b), OtlpWire::decodeLogs, LogRecord::resource, LogRecord::scope);
    }

    private interface Decoder<T> {
        Decoded<T> decode(byte[] body) throws OtlpDecodeException;
    }

    private static <T> Decoded<T> same(byte[] body, String what, Decoder<T> reference, Decoder<T> wire,
                                       Function<T, Resource> resource, Function<T, Scope> scope) {
        Decoded<T> expected;
        try {
            expected = reference.decode(body);
        } catch (OtlpDecodeException e) {
            OtlpDecodeException refused = assertThrows(OtlpDecodeException.class, () -> wire.decode(body),
                    what + ": protobuf-java refuses it (" + e.getMessage() + ")");
            assertTrue(refused.getMessage().startsWith(e.getMessage().substring(0, e.getMessage().indexOf(':') + 1)),
                    refused.getMessage());
            return null;
        }
        Decoded<T> got;
        try {
            got = wire.decode(body);
        } catch (OtlpDecodeException e) {
            throw new AssertionError(what + ": protobuf-java accepts it, OtlpWire refuses it: " + e.getMessage(), e);
        }
        assertEquals(expected, got, what);
        assertEquals(sharing(expected.records(), resource), sharing(got.records(), resource), what + ": resources shared");
        assertEquals(sharing(expected.records(), scope), sharing(got.records(), scope), what + ": scopes shared");
        return got;
    }

    /** For each record, the ordinal of the first record holding the same instance. */
    private static <T> List<Integer> sharing(List<T> records, Function<T, ?> part) {
        Map<Object, Integer> first = new IdentityHashMap<>();
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < records.size(); i++) {
            out.add(first.computeIfAbsent(part.apply(records.get(i)), k -> first.size()));
        }
        return out;
    }

    @Test
    void randomRequests_withInvalidRecords_sameAsProtobufJava() {
        RandomOtlp random = new RandomOtlp(17, true);
        SplittableRandom spoil = new SplittableRandom(18);
        int rejected = 0;
        for (int request = 0; request < 200; request++) {
            List<SpanRecord> spans = Invalid.spans(random.spans(), spoil);
            Decoded<SpanRecord> s = sameSpans(OtlpWireWriter.encodeSpans(spans), "spans request " + request);
            List<LogRecord> logs = Invalid.logs(random.logs(), spoil);
            Decoded<LogRecord> l = sameLogs(OtlpWireWriter.encodeLogs(logs), "logs request " + request);
            rejected += s.rejected() + l.rejected();
        }
        assertTrue(rejected > 200, "rejected " + rejected);
    }

    /** The receiver decodes the first bytes of a reused buffer: what follows them is never read. */
    @Test
    void bodyAtTheStartOfALongerBuffer_sameAsProtobufJava() {
        RandomOtlp random = new RandomOtlp(57, true);
        SplittableRandom spoil = new SplittableRandom(58);
        for (int request = 0; request < 100; request++) {
            byte[] spans = OtlpWireWriter.encodeSpans(Invalid.spans(random.spans(), spoil));
            same(spans, "spans request " + request, ProtobufJavaDecode::spans,
                    b -> capped(b, spoil, (buffer, length) -> OtlpWire.decodeSpans(buffer, length, Long.MAX_VALUE)),
                    SpanRecord::resource, SpanRecord::scope);
            byte[] logs = OtlpWireWriter.encodeLogs(Invalid.logs(random.logs(), spoil));
            same(logs, "logs request " + request, ProtobufJavaDecode::logs,
                    b -> capped(b, spoil, (buffer, length) -> OtlpWire.decodeLogs(buffer, length, Long.MAX_VALUE)),
                    LogRecord::resource, LogRecord::scope);
        }
    }

    private interface CappedDecoder<T> {
        Decoded<T> decode(byte[] buffer, int length) throws IOException;
    }

    /** Decodes {@code body} from the start of a longer buffer whose tail is random bytes. */
    private static <T> Decoded<T> capped(byte[] body, SplittableRandom random, CappedDecoder<T> decoder)
            throws OtlpDecodeException {
        byte[] buffer = Arrays.copyOf(body, body.length + 1 + random.nextInt(64));
        for (int i = body.length; i < buffer.length; i++) {
            buffer[i] = (byte) random.nextInt(256);
        }
        try {
            return decoder.decode(buffer, body.length);
        } catch (OtlpDecodeException e) {
            throw e;
        } catch (IOException e) {
            throw new AssertionError("no cap to pass: " + e.getMessage(), e);
        }
    }

    @Test
    void reshuffledRequests_mergedDuplicatesUnknownFieldsWrongWireTypes_sameAsProtobufJava() {
        RandomOtlp random = new RandomOtlp(27, true);
        SplittableRandom shuffle = new SplittableRandom(28);
        for (int request = 0; request < 200; request++) {
            byte[] spans = OtlpWireWriter.encodeSpans(Invalid.spans(random.spans(), shuffle));
            sameSpans(Reshuffle.message(spans, Reshuffle.TRACES, shuffle), "spans request " + request);
            byte[] logs = OtlpWireWriter.encodeLogs(Invalid.logs(random.logs(), shuffle));
            sameLogs(Reshuffle.message(logs, Reshuffle.LOGS, shuffle), "logs request " + request);
        }
    }

    @Test
    void examples_sameAsProtobufJavaAndAsJson() throws IOException {
        for (String name : List.of("trace.json", "logs.json", "events.json")) {
            Path file = Path.of("../../../shared/otlp-examples", name);
            assertTrue(Files.isRegularFile(file), "OTLP example not found at " + file.toAbsolutePath().normalize());
            byte[] json = Files.readAllBytes(file);
            if (name.equals("trace.json")) {
                Decoded<SpanRecord> fromJson = Bodies.jsonSpans(json);
                assertEquals(fromJson, sameSpans(OtlpWireWriter.encodeSpans(fromJson.records()), name));
            } else {
                Decoded<LogRecord> fromJson = Bodies.jsonLogs(json);
                assertEquals(fromJson, sameLogs(OtlpWireWriter.encodeLogs(fromJson.records()), name));
            }
        }
        assertEquals(Bodies.jsonSpans(Files.readAllBytes(Path.of("../../../shared/otlp-examples/trace.json"))),
                sameSpans(ProtoSamples.exampleTrace().toByteArray(), "builder-made trace.json"));
    }

    /** Bodies of a few KB: the builder samples and random requests. */
    private static List<byte[]> samples(boolean logs) {
        List<byte[]> out = new ArrayList<>();
        out.add(logs ? ProtoSamples.everyFieldLogs().toByteArray() : ProtoSamples.exampleTrace().toByteArray());
        RandomOtlp random = new RandomOtlp(logs ? 37 : 38, true);
        SplittableRandom spoil = new SplittableRandom(39);
        while (out.size() < 3) {
            byte[] body = logs ? OtlpWireWriter.encodeLogs(Invalid.logs(random.logs(), spoil))
                    : OtlpWireWriter.encodeSpans(Invalid.spans(random.spans(), spoil));
            if (body.length < 4_000) {
                out.add(Reshuffle.message(body, logs ? Reshuffle.LOGS : Reshuffle.TRACES, spoil));
            }
        }
        return out;
    }

    @Test
    void everyPrefix_sameAsProtobufJava() {
        int refused = 0;
        int prefixes = 0;
        for (boolean logs : new boolean[] {false, true}) {
            for (byte[] whole : samples(logs)) {
                for (int n = 0; n <= whole.length; n++, prefixes++) {
                    byte[] prefix = Arrays.copyOf(whole, n);
                    boolean ok = logs ? sameLogs(prefix, "prefix " + n) != null : sameSpans(prefix, "prefix " + n) != null;
                    refused += ok ? 0 : 1;
                }
            }
        }
        // A cut between two top-level fields is itself a valid (shorter) request; most cuts are not.
        assertTrue(refused > prefixes / 2, refused + " of " + prefixes + " refused");
    }

    @Test
    void bitFlips_sameAsProtobufJava() {
        SplittableRandom random = new SplittableRandom(47);
        int refused = 0;
        int flips = 0;
        for (boolean logs : new boolean[] {false, true}) {
            for (byte[] whole : samples(logs)) {
                for (int i = 0; i < 1_500; i++, flips++) {
                    byte[] body = whole.clone();
                    for (int k = 1 + random.nextInt(3); k > 0; k--) {
                        body[random.nextInt(body.length)] ^= (byte) (1 << random.nextInt(8));
                    }
                    boolean ok = logs ? sameLogs(body, "flipped " + i) != null : sameSpans(body, "flipped " + i) != null;
                    refused += ok ? 0 : 1;
                }
            }
        }
        assertTrue(refused > flips / 20 && refused < flips, refused + " of " + flips + " refused");
    }

    @Test
    void nesting_aroundTheLimits_sameAsProtobufJava() {
        // Values as kvlist chains (three messages a level) and array chains (two) under an event,
        // the deepest place, and unknown groups: kept, rejected with their span, or refused alike.
        int kept = 0;
        int rejected = 0;
        int refused = 0;
        for (int levels = ValueCodec.MAX_DEPTH - 2; levels < 200; levels++) {
            for (boolean kvlist : new boolean[] {false, true}) {
                byte[] value = WireBytes.field(1, WireBytes.bytes("x"));
                for (int i = 0; i < levels; i++) {
                    value = kvlist ? WireBytes.field(6, WireBytes.field(1, WireBytes.cat(WireBytes.field(1, WireBytes.bytes("k")), WireBytes.field(2, value))))
                            : WireBytes.field(5, WireBytes.field(1, value));
                }
                byte[] event = WireBytes.field(3, WireBytes.cat(WireBytes.field(1, WireBytes.bytes("k")), WireBytes.field(2, value)));
                Decoded<SpanRecord> d = sameSpans(WireBytes.spanRequest(WireBytes.field(11, event)), levels + " levels");
                kept += d != null && d.rejected() == 0 ? 1 : 0;
                rejected += d != null && d.rejected() == 1 ? 1 : 0;
                refused += d == null ? 1 : 0;
            }
        }
        assertTrue(kept > 0 && rejected > 0 && refused > 0, kept + " kept, " + rejected + " rejected, " + refused + " refused");
        for (int groups : new int[] {1, 50, OtlpWire.RECURSION_LIMIT - 5, OtlpWire.RECURSION_LIMIT - 4,
            OtlpWire.RECURSION_LIMIT - 3, OtlpWire.RECURSION_LIMIT, 100_000}) {
            byte[] group = new byte[4 * groups];
            for (int i = 0; i < groups; i++) {
                // Field 31: start-group tags, then as many end-group tags.
                group[2 * i] = (byte) 0xfb;
                group[2 * i + 1] = 0x01;
                group[2 * groups + 2 * i] = (byte) 0xfc;
                group[2 * groups + 2 * i + 1] = 0x01;
            }
            sameSpans(WireBytes.spanRequest(group), groups + " nested groups in a span");
            sameSpans(WireBytes.cat(group, WireBytes.spanRequest(new byte[0])), groups + " nested groups in the request");
        }
        OtlpDecodeException e = assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeSpans(
                WireBytes.spanRequest(WireBytes.cat(new byte[] {(byte) 0xfb, 0x01}, new byte[] {(byte) 0xf4, 0x01}))));
        assertEquals("not an OTLP ExportTraceServiceRequest: group 31 is not ended by its own end-group tag", e.getMessage());
    }

    @Test
    void mergedValues_keepWhatProtobufJavaKeeps() {
        byte[] array = WireBytes.field(5, WireBytes.field(1, WireBytes.field(1, WireBytes.bytes("a"))));
        byte[] string = WireBytes.field(1, WireBytes.bytes("s"));
        byte[] kvlist = WireBytes.field(6, WireBytes.field(1, WireBytes.cat(WireBytes.field(1, WireBytes.bytes("k")), WireBytes.field(2, string))));
        // An array begun, another kind, the array again: protobuf-java appends to the first array.
        byte[] value = WireBytes.cat(array, string, array, kvlist, string, kvlist, array);
        byte[] split = WireBytes.cat(WireBytes.field(2, WireBytes.cat(array, string)), WireBytes.field(2, WireBytes.cat(array, kvlist)));
        byte[] spans = WireBytes.spanRequest(WireBytes.cat(WireBytes.field(9, WireBytes.cat(WireBytes.field(1, WireBytes.bytes("v")), WireBytes.field(2, value))),
                WireBytes.field(9, WireBytes.cat(WireBytes.field(1, WireBytes.bytes("w")), split))));
        Decoded<SpanRecord> d = sameSpans(spans, "merged values");
        AnyValue a = AnyValue.of("a");
        assertEquals(List.of(new KeyValue("v", new AnyValue.Array(List.of(a, a, a))),
                new KeyValue("w", new AnyValue.KvList(List.of(KeyValue.of("k", "s"))))), d.records().get(0).attributes());
    }

    @Test
    void strings_notUtf8_refusedAsProtobufJavaRefusesThem() {
        byte[][] strings = {
            {(byte) 0xc0, (byte) 0x80}, // overlong NUL
            {(byte) 0xed, (byte) 0xa0, (byte) 0x80}, // a surrogate
            {(byte) 0xe2, (byte) 0x82}, // cut short
            {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // past U+10FFFF
            {(byte) 0xff}, {(byte) 0x80}, {'o', 'k', (byte) 0xc3, (byte) 0xa9}, // é: valid
        };
        int refused = 0;
        for (byte[] string : strings) {
            for (int repeat = 1; repeat <= 2; repeat++) {
                byte[] name = WireBytes.field(5, string);
                byte[] attribute = WireBytes.field(9, WireBytes.cat(WireBytes.field(1, string), WireBytes.field(2, WireBytes.field(1, string))));
                byte[] fields = repeat == 1 ? WireBytes.cat(name, attribute) : WireBytes.cat(name, attribute, name, attribute);
                refused += sameSpans(WireBytes.spanRequest(fields), Arrays.toString(string)) == null ? 1 : 0;
            }
        }
        assertEquals(2 * (strings.length - 1), refused);
    }

    @Test
    void lyingLengths_refusedWithoutAllocating() {
        byte[] huge = {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07}; // a string of 2 GiB − 1
        for (byte[] body : List.of(WireBytes.spanRequest(huge), WireBytes.cat(new byte[] {0x0a}, Arrays.copyOfRange(huge, 1, 6)))) {
            assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeSpans(body));
            assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeLogs(body));
        }
    }

    @Test
    void recordCap_countedBeforeDecoding() throws IOException {
        byte[] three = WireBytes.field(1, WireBytes.field(2, WireBytes.cat(WireBytes.field(2, new byte[0]), WireBytes.field(2, new byte[0]),
                WireBytes.field(2, new byte[0]))));
        assertEquals(3, OtlpWire.decodeSpans(three, three.length, 3).rejected(), "three empty spans, rejected for their ids");
        assertEquals(3, OtlpWire.decodeLogs(three, three.length, 3).records().size(), "three empty log records are valid");
        OtlpTooManyRecordsException e = assertThrows(OtlpTooManyRecordsException.class, () -> OtlpWire.decodeSpans(three, three.length, 2));
        assertEquals("the request holds 3 spans, more than the 2 one request may hold: send smaller batches", e.getMessage());
        e = assertThrows(OtlpTooManyRecordsException.class, () -> OtlpWire.decodeLogs(three, three.length, 2));
        assertEquals("the request holds 3 log records, more than the 2 one request may hold: send smaller batches",
                e.getMessage());
        // A million two-byte spans are refused by their count, not after a million records were built.
        ByteArrayOutputStream many = new ByteArrayOutputStream();
        for (int i = 0; i < 1_000_000; i++) {
            many.write(0x12);
            many.write(0);
        }
        byte[] body = WireBytes.field(1, WireBytes.field(2, many.toByteArray()));
        assertThrows(OtlpTooManyRecordsException.class, () -> OtlpWire.decodeSpans(body, body.length, 100_000));
        assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeSpans(body, 1_000, 100_000),
                "a body cut short is refused as such");
    }

    @Test
    void decodeException_namesTheMessage() {
        OtlpDecodeException spans = assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeSpans(new byte[] {0x0a, 0x05}));
        assertTrue(spans.getMessage().startsWith("not an OTLP ExportTraceServiceRequest: "), spans.getMessage());
        OtlpDecodeException logs = assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeLogs(new byte[] {0x0c}));
        assertEquals("not an OTLP ExportLogsServiceRequest: end-group tag of field 1 where no group is open", logs.getMessage());
    }

    /** Spoils some records of a random request: ids of every wrong kind, values one level too deep. */
    private static final class Invalid {
        private static final AnyValue TOO_DEEP = new RandomOtlp(0, false).chain(ValueCodec.MAX_DEPTH + 1);

        static List<SpanRecord> spans(List<SpanRecord> spans, SplittableRandom random) {
            List<SpanRecord> out = new ArrayList<>();
            Map<Resource, Resource> resources = new IdentityHashMap<>();
            Map<Scope, Scope> scopes = new IdentityHashMap<>();
            for (SpanRecord s : spans) {
                Resource resource = resources.computeIfAbsent(s.resource(), r -> random.nextInt(15) == 0
                        ? new Resource(deeper(r.attributes()), r.droppedAttributesCount(), r.schemaUrl()) : r);
                Scope scope = scopes.computeIfAbsent(s.scope(), c -> random.nextInt(15) == 0
                        ? new Scope(c.name(), c.version(), deeper(c.attributes()), c.droppedAttributesCount(), c.schemaUrl()) : c);
                Bytes traceId = s.traceId();
                Bytes spanId = s.spanId();
                Bytes parentSpanId = s.parentSpanId();
                List<KeyValue> attributes = s.attributes();
                switch (random.nextInt(12)) {
                    case 0 -> traceId = id(random);
                    case 1 -> spanId = id(random);
                    case 2 -> parentSpanId = id(random);
                    case 3 -> attributes = deeper(attributes);
                    default -> {
                    }
                }
                out.add(s.toBuilder().resource(resource).scope(scope).traceId(traceId).spanId(spanId)
                        .parentSpanId(parentSpanId).attributes(attributes).build());
            }
            return out;
        }

        static List<LogRecord> logs(List<LogRecord> logs, SplittableRandom random) {
            List<LogRecord> out = new ArrayList<>();
            for (LogRecord l : logs) {
                Bytes traceId = l.traceId();
                Bytes spanId = l.spanId();
                AnyValue body = l.body();
                switch (random.nextInt(10)) {
                    case 0 -> traceId = id(random);
                    case 1 -> spanId = id(random);
                    case 2 -> body = TOO_DEEP;
                    default -> {
                    }
                }
                out.add(l.toBuilder().body(body).traceId(traceId).spanId(spanId).build());
            }
            return out;
        }

        /** An id of a wrong length, all zero, or of a right length. */
        private static Bytes id(SplittableRandom random) {
            byte[] id = new byte[random.nextInt(4) == 0 ? 16 : random.nextInt(20)];
            if (id.length > 0 && random.nextBoolean()) {
                id[0] = 1;
            }
            return Bytes.wrap(id);
        }

        private static List<KeyValue> deeper(List<KeyValue> attributes) {
            List<KeyValue> out = new ArrayList<>(attributes);
            out.add(new KeyValue("deep", TOO_DEEP));
            return out;
        }
    }
}
