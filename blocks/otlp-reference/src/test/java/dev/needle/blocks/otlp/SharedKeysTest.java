package dev.needle.blocks.otlp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Attribute keys shared across requests ({@link SharedKeys}) through both decoders: one instance for
 * the same key from any request, keys that collide in a slot still decoded as protobuf-java decodes
 * them, and a key that is not UTF-8 (or has an unpaired surrogate) still refused, however like a held key it is.
 */
final class SharedKeysTest {

    private static final Bytes TRACE_ID = Bytes.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    private static final Bytes SPAN_ID = Bytes.wrap(new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
    private static final Decoder PROTOBUF = spans -> OtlpWire.decodeSpans(OtlpWireWriter.encodeSpans(spans)).records();
    private static final Decoder JSON = spans -> Bodies.jsonSpans(Bodies.spansJson(spans)).records();

    /** How a request's spans reach the server and are decoded there. */
    private interface Decoder {
        List<SpanRecord> decode(List<SpanRecord> spans) throws IOException;
    }

    private static SpanRecord span(Resource resource, List<KeyValue> attributes) {
        return SpanRecord.builder().resource(resource).traceId(TRACE_ID).spanId(SPAN_ID).name("op").kind(1)
                .startTimeUnixNano(1).endTimeUnixNano(2).attributes(attributes).build();
    }

    /** A one-span request whose span has the attributes {@code keys}, each key a new instance of its own. */
    private static List<SpanRecord> request(String... keys) {
        List<KeyValue> attributes = new ArrayList<>();
        for (String key : keys) {
            attributes.add(KeyValue.of(new String(key.toCharArray()), 1));
        }
        return List.of(span(Resource.EMPTY, attributes));
    }

    /** The keys of the one span of {@link #request}{@code (keys)} as {@code decoder} decodes it. */
    private static List<String> keys(Decoder decoder, String... keys) throws IOException {
        return decoder.decode(request(keys)).get(0).attributes().stream().map(KeyValue::key).toList();
    }

    private static void assertSameInstancesFromTwoRequests(Decoder decoder, String... keys) throws IOException {
        List<String> first = keys(decoder, keys);
        List<String> second = keys(decoder, keys);
        assertEquals(List.of(keys), second);
        for (int i = 0; i < keys.length; i++) {
            assertSame(first.get(i), second.get(i), keys[i]);
        }
    }

    @Test
    void protobuf_sameKeyInTwoRequests_sameInstance() throws IOException {
        assertSameInstancesFromTwoRequests(PROTOBUF, "service.name", "http.request.method", "größe.bytes", "x");
    }

    @Test
    void json_sameKeyInTwoRequests_sameInstance() throws IOException {
        assertSameInstancesFromTwoRequests(JSON, "service.namespace", "url.path", "größe.json", "y");
    }

    @Test
    void asciiKey_protobufAndJson_sameInstance() throws IOException {
        assertSame(keys(JSON, "server.address").get(0), keys(PROTOBUF, "server.address").get(0));
    }

    @Test
    void longKey_notShared_stillDecoded() throws IOException {
        String key = "k".repeat(SharedKeys.MAX_LENGTH + 1);
        String first = keys(PROTOBUF, key).get(0);
        String second = keys(PROTOBUF, key).get(0);
        assertEquals(key, second);
        assertNotSame(first, second);
        assertSameInstancesFromTwoRequests(PROTOBUF, "k".repeat(SharedKeys.MAX_LENGTH));
    }

    /**
     * Keys from a pool where many share a slot ("Aa" and "BB" have the same hash, so every string of
     * n such pairs has the same hash as the other 2^n - 1), of every length around MAX_LENGTH and
     * beyond ASCII, as resource, span and nested kvlist keys of real encoded requests.
     */
    @Test
    void collidingAndRandomKeys_decodedAsProtobufJavaAndJsonDecodeThem() throws IOException {
        List<String> pool = pool(new SplittableRandom(71));
        SplittableRandom random = new SplittableRandom(72);
        Map<String, Set<String>> instances = new HashMap<>();
        for (int request = 0; request < 60; request++) {
            List<SpanRecord> spans = spans(pool, random);
            byte[] body = OtlpWireWriter.encodeSpans(spans);
            Decoded<SpanRecord> wire = OtlpWire.decodeSpans(body);
            assertEquals(ProtobufJavaDecode.spans(body), wire, "request " + request);
            assertEquals(spans, wire.records(), "request " + request);
            assertEquals(spans, JSON.decode(spans), "JSON request " + request);
            for (SpanRecord s : wire.records()) {
                for (KeyValue kv : s.attributes()) {
                    instances.computeIfAbsent(kv.key(), k -> Collections.newSetFromMap(new IdentityHashMap<>())).add(kv.key());
                }
            }
        }
        int[] family = new int[2];
        int[] others = new int[2];
        instances.forEach((key, made) -> {
            int[] counts = key.startsWith("k.") ? family : others;
            if (WireBytes.bytes(key).length <= SharedKeys.MAX_LENGTH) {
                counts[0]++;
                counts[1] += made.size();
            }
        });
        // Keys alone in their slot are made once; the 64 of one slot replace each other and are made again.
        assertTrue(others[1] < 2 * others[0], others[1] + " instances of " + others[0] + " keys");
        assertTrue(family[1] > 2 * family[0], family[1] + " instances of " + family[0] + " keys of one slot");
    }

    @Test
    void manyThreads_collidingKeys_eachDecodedRight() throws Exception {
        List<String> pool = pool(new SplittableRandom(81));
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<Integer>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                SplittableRandom random = new SplittableRandom(82 + t);
                done.add(threads.submit(() -> {
                    int checked = 0;
                    for (int request = 0; request < 100; request++) {
                        List<SpanRecord> spans = spans(pool, random);
                        assertEquals(spans, PROTOBUF.decode(spans));
                        assertEquals(spans, JSON.decode(spans));
                        checked += spans.size();
                    }
                    return checked;
                }));
            }
            for (Future<Integer> f : done) {
                assertTrue(f.get() >= 100);
            }
        } finally {
            threads.shutdown();
        }
    }

    @Test
    void protobufKeyNotUtf8_likeAHeldKey_stillRefused() throws OtlpDecodeException {
        // "Aa" and {'@', 0x80} hash alike (31·65 + 97 = 31·64 + 128) and have the same length: same slot.
        byte[] held = WireBytes.bytes("Aa");
        byte[] invalid = {0x40, (byte) 0x80};
        OtlpWire.decodeSpans(WireBytes.spanRequest(attribute(held)));
        OtlpDecodeException e = assertThrows(OtlpDecodeException.class, () -> OtlpWire.decodeSpans(WireBytes.spanRequest(attribute(invalid))));
        assertEquals("not an OTLP ExportTraceServiceRequest: a string field is not valid UTF-8", e.getMessage());
        assertThrows(OtlpDecodeException.class, () -> ProtobufJavaDecode.spans(WireBytes.spanRequest(attribute(invalid))));
    }

    @Test
    void jsonKeyUnpairedSurrogate_likeAHeldKey_stillRefused() throws IOException {
        // "A\uD7E1" and "@\uD800" hash alike (31·65 + 0xD7E1 = 31·64 + 0xD800) and have the same length: same slot.
        String fields = "\"traceId\":\"0102030405060708090A0B0C0D0E0F10\",\"spanId\":\"0102030405060708\",\"attributes\":";
        Bodies.jsonSpans("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + fields
                + "[{\"key\":\"A\uD7E1\",\"value\":{\"intValue\":\"1\"}}]}]}]}]}");
        OtlpDecodeException e = assertThrows(OtlpDecodeException.class, () -> Bodies.jsonSpans(
                "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{" + fields + "[{\"key\":\"@\\uD800\",\"value\":{\"intValue\":\"1\"}}]}]}]}]}"));
        assertTrue(e.getMessage().startsWith("resourceSpans[0].scopeSpans[0].spans[0].attributes[0].key: string has an unpaired surrogate \\uD800"),
                e.getMessage());
    }

    /** A span attribute (field 9) of {@code key}'s bytes with a string value. */
    private static byte[] attribute(byte[] key) {
        return WireBytes.field(9, WireBytes.cat(WireBytes.field(1, key), WireBytes.field(2, WireBytes.field(1, WireBytes.bytes("v")))));
    }

    /** 2^6 keys of one hash, then random keys: ASCII and not, 0 to MAX_LENGTH + 2 chars. */
    private static List<String> pool(SplittableRandom random) {
        List<String> pool = new ArrayList<>();
        for (int bits = 0; bits < 64; bits++) {
            StringBuilder sb = new StringBuilder("k.");
            for (int i = 0; i < 6; i++) {
                sb.append((bits >> i & 1) == 0 ? "Aa" : "BB");
            }
            pool.add(sb.toString());
        }
        for (int i = 0; i < 300; i++) {
            StringBuilder sb = new StringBuilder();
            boolean ascii = random.nextInt(4) != 0;
            for (int n = random.nextInt(SharedKeys.MAX_LENGTH + 3); n > 0; n--) {
                int cp = ascii ? ' ' + random.nextInt(95) : 0xa0 + random.nextInt(Character.MAX_CODE_POINT - 0xa0);
                sb.appendCodePoint(Character.isSurrogate((char) cp) && cp < 0x10000 ? 'x' : cp);
            }
            pool.add(sb.toString());
        }
        return pool;
    }

    /** A request's spans under two resources, each attribute and nested kvlist key a new instance drawn from {@code pool}. */
    private static List<SpanRecord> spans(List<String> pool, SplittableRandom random) {
        List<Resource> resources = List.of(new Resource(keyValues(pool, random, 3), 0, ""),
                new Resource(keyValues(pool, random, 2), 0, ""));
        List<SpanRecord> spans = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            List<KeyValue> attributes = keyValues(pool, random, 1 + random.nextInt(8));
            attributes.add(new KeyValue(pick(pool, random), new AnyValue.KvList(keyValues(pool, random, 2))));
            spans.add(span(resources.get(i / 10), attributes));
        }
        return spans;
    }

    private static List<KeyValue> keyValues(List<String> pool, SplittableRandom random, int n) {
        List<KeyValue> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(KeyValue.of(pick(pool, random), random.nextInt(100)));
        }
        return out;
    }

    private static String pick(List<String> pool, SplittableRandom random) {
        return new String(pool.get(random.nextInt(pool.size())).toCharArray());
    }
}
