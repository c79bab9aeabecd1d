package dev.needle.blocks.index;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The COUNTS format: golden bytes, a vector written from its layout by hand, and damage refused. */
class BlockCountsTest {

    /** Written once from {@link #spanSample()}; never regenerated. */
    private static final String GOLDEN_SPANS = "/golden/counts_spans_v1";
    /** Written once from {@link #logSample()}; never regenerated. */
    private static final String GOLDEN_LOGS = "/golden/counts_logs_v1";

    private static final long S = 1_000_000_000L;
    private static final Resource CHECKOUT = new Resource(List.of(KeyValue.of("service.name", "checkout"),
            KeyValue.of("k8s.pod.name", "checkout-1")), 2, "https://opentelemetry.io/schemas/1.26.0");
    /** Another pod of checkout: the same service, so the same span group. */
    private static final Resource CHECKOUT_2 = new Resource(List.of(KeyValue.of("service.name", "checkout"),
            KeyValue.of("k8s.pod.name", "checkout-2")), 0, "");
    private static final Resource NO_SERVICE = new Resource(List.of(KeyValue.of("host.name", "h")), 0, "");
    private static final Scope SCOPE = new Scope("lib", "1", List.of(KeyValue.of("scope.key", 1)), 0, "");

    private static SpanRecord span(long start, long duration, int kind, int status, String... keys) {
        return SpanRecord.builder().name("GET /" + start).kind(kind).statusCode(status)
                .startTimeUnixNano(start).endTimeUnixNano(start + duration)
                .attributes(Arrays.stream(keys).map(k -> KeyValue.of(k, "v")).toList()).build();
    }

    private static LogRecord log(long time, int severity, String text, AnyValue body, String... keys) {
        return LogRecord.builder().timeUnixNano(time).severityNumber(severity).severityText(text).body(body)
                .attributes(Arrays.stream(keys).map(k -> KeyValue.of(k, "v")).toList()).build();
    }

    /** Spans on both sides of a second's end, two pods of one service, one without a service, durations around 2 ns. */
    static BlockCounts.Builder spanSample() {
        BlockCounts.Builder b = new BlockCounts.Builder(Signal.SPANS);
        b.span(span(10 * S, 1, 2, 0), CHECKOUT, SCOPE);
        b.span(span(10 * S, 2, 2, 0, "http.route"), CHECKOUT_2, SCOPE);
        b.span(span(10 * S + 1, 3, 2, 0, "http.route"), CHECKOUT, SCOPE);
        b.span(span(11 * S, 1_500_000_000L, 2, 2), CHECKOUT, SCOPE);
        b.span(span(9 * S + 5, 1024, 3, 1, "db.system"), NO_SERVICE, Scope.EMPTY);
        b.span(span(9 * S + 5, 1025, 3, 1), NO_SERVICE, Scope.EMPTY);
        return b;
    }

    /** Logs of two streams, string and other bodies, a multi-byte line, a record at time 0. */
    static BlockCounts.Builder logSample() {
        BlockCounts.Builder b = new BlockCounts.Builder(Signal.LOGS);
        b.log(log(10 * S, 9, "INFO", AnyValue.of("hello"), "user.id"), CHECKOUT, SCOPE);
        b.log(log(10 * S - 1, 9, "INFO", AnyValue.of("héllo €"), "user.id"), CHECKOUT, SCOPE);
        b.log(log(10 * S + 1, 17, "ERROR", new AnyValue.Int(7)), CHECKOUT, SCOPE);
        b.log(log(10 * S, 9, "INFO", AnyValue.of("x")), CHECKOUT_2, Scope.EMPTY);
        b.log(log(0, 0, "", AnyValue.of("")), NO_SERVICE, Scope.EMPTY);
        return b;
    }

    private static byte[] golden(String name) throws Exception {
        try (InputStream in = BlockCountsTest.class.getResourceAsStream(name)) {
            return in.readAllBytes();
        }
    }

    @Test
    void encode_samples_areTheGoldenBytes() throws Exception {
        assertArrayEquals(golden(GOLDEN_SPANS), spanSample().file().orElseThrow());
        assertArrayEquals(golden(GOLDEN_LOGS), logSample().file().orElseThrow());
    }

    @Test
    void decode_handWrittenVector_givesItsOneRow() throws Exception {
        // One span of service "a", kind 2, status 0, starting at 1.5 s, lasting 3 ns, with attribute key "k".
        byte[] body = HexFormat.of().parseHex(String.join("",
                "01",                                   // spans
                "8094ebdc03",                           // W = 1,000,000,000
                "02",                                   // b0 = zigzag(1): 1 s < 1.5 s <= 2 s
                "01", "016b",                           // one key: "k"
                "01", "11", "010c736572766963652e6e616d65010161", "00", "00", // resource: service.name = "a"
                "01", "00", "00", "04", "00",           // group: resource 0, no text, kind 2, status 0
                "01", "00", "00", "01", "01", "02", "01")); // row: bucket b0, group 0, 1 span, 1 in e = 2 (2 < 3 <= 4)
        BlockCounts c = BlockCounts.decode(withHeader(body), "vector");
        assertEquals(Signal.SPANS, c.signal());
        assertEquals(S, c.widthNanos());
        assertEquals(1, c.firstBucket());
        assertEquals(Set.of("k"), c.attributeKeys());
        assertEquals(List.of(new Resource(List.of(KeyValue.of("service.name", "a")), 0, "")), c.resources());
        assertEquals(List.of(new BlockCounts.Group(0, "", 2, 0)), c.groups());
        assertEquals(2 * S, c.bucketEndNanos(0));
        assertArrayEquals(new long[] {1}, c.rows().count());
        assertArrayEquals(new byte[] {2}, c.rows().exponents());
        assertArrayEquals(new long[] {1}, c.rows().histogramCounts());

        BlockCounts.Builder b = new BlockCounts.Builder(Signal.SPANS);
        b.span(span(1_500_000_000L, 3, 2, 0, "k"), new Resource(List.of(KeyValue.of("service.name", "a")), 0, ""),
                Scope.EMPTY);
        assertArrayEquals(withHeader(body), b.file().orElseThrow());
    }

    @Test
    void decode_spanSample_countsBySecondServiceKindAndStatus() throws Exception {
        BlockCounts c = BlockCounts.decode(golden(GOLDEN_SPANS), "spans");
        assertEquals(Set.of("db.system", "http.route", "scope.key"), c.attributeKeys());
        Resource checkout = new Resource(List.of(KeyValue.of("service.name", "checkout")), 0, "");
        assertEquals(List.of(checkout, Resource.EMPTY), c.resources());
        assertEquals(List.of(new BlockCounts.Group(0, "", 2, 0), new BlockCounts.Group(0, "", 2, 2),
                new BlockCounts.Group(1, "", 3, 1)), c.groups());
        BlockCounts.Rows rows = c.rows();
        // (9 s, 10 s]: both pods' spans at exactly 10 s and the unnamed service's at 9 s + 5;
        // (10 s, 11 s]: the span at 10 s + 1 and the error at 11 s.
        assertEquals(4, rows.size());
        assertArrayEquals(new long[] {0, 0, 1, 1}, rows.bucket());
        assertArrayEquals(new int[] {0, 2, 0, 1}, rows.group());
        assertArrayEquals(new long[] {2, 2, 1, 1}, rows.count());
        assertEquals(9, c.firstBucket());
        assertEquals(10 * S, c.bucketEndNanos(0));
        assertEquals(11 * S, c.bucketEndNanos(3));
        // 1 ns: no bucket; 2 ns: e = 1; 1024 ns: e = 10; 1025 ns: e = 11; 3 ns: e = 2; 1.5 s: e = 31.
        assertArrayEquals(new int[] {0, 1, 3, 4, 5}, rows.histogram());
        assertArrayEquals(new byte[] {1, 10, 11, 2, 31}, rows.exponents());
        assertArrayEquals(new long[] {1, 1, 1, 1, 1}, rows.histogramCounts());
    }

    @Test
    void decode_logSample_countsByStreamAndSeverityWithBodyBytes() throws Exception {
        BlockCounts c = BlockCounts.decode(golden(GOLDEN_LOGS), "logs");
        assertEquals(Set.of("scope.key", "user.id"), c.attributeKeys());
        assertEquals(List.of(CHECKOUT, CHECKOUT_2, NO_SERVICE), c.resources());
        assertEquals(List.of(new BlockCounts.Group(0, "INFO", 9, 0), new BlockCounts.Group(0, "ERROR", 17, 0),
                new BlockCounts.Group(1, "INFO", 9, 0), new BlockCounts.Group(2, "", 0, 0)), c.groups());
        BlockCounts.Rows rows = c.rows();
        assertEquals(-1, c.firstBucket());
        assertArrayEquals(new long[] {0, 10, 10, 11}, rows.bucket());
        assertArrayEquals(new int[] {3, 0, 2, 1}, rows.group());
        assertArrayEquals(new long[] {1, 2, 1, 1}, rows.count());
        // "hello" 5 bytes + "héllo €" 10 bytes; the int body is not a string.
        assertArrayEquals(new long[] {0, 15, 1, 0}, rows.bytes());
        assertArrayEquals(new long[] {0, 0, 0, 1}, rows.notStrings());
    }

    @Test
    void bucketOf_isLeftOpenRightClosed() {
        assertEquals(9, BlockCounts.bucketOf(10 * S, S));
        assertEquals(10, BlockCounts.bucketOf(10 * S + 1, S));
        assertEquals(-1, BlockCounts.bucketOf(0, S));
        assertEquals(-2, BlockCounts.bucketOf(-S, S));
    }

    @Test
    void builder_withoutRecords_writesNoFile() {
        assertEquals(Optional.empty(), new BlockCounts.Builder(Signal.LOGS).file());
    }

    @Test
    void builder_pastTheGroupBound_writesNoFile() {
        BlockCounts.Builder b = new BlockCounts.Builder(Signal.LOGS);
        for (int i = 0; i <= BlockCounts.MAX_GROUPS; i++) {
            b.log(log(S, i, "", AnyValue.of("")), Resource.EMPTY, Scope.EMPTY);
        }
        assertEquals(Optional.empty(), b.file());
    }

    @Test
    void decode_unknownVersion_isCorrupt() throws Exception {
        byte[] file = golden(GOLDEN_SPANS);
        file[4] = 2;
        BlockCounts.CorruptCountsException e = assertThrows(BlockCounts.CorruptCountsException.class,
                () -> BlockCounts.decode(file, "v2"));
        assertEquals("v2: unknown version 2, expected 1", e.getMessage());
    }

    @Test
    void decode_everyTruncationAndBitFlip_isCorrupt() throws Exception {
        for (String name : List.of(GOLDEN_SPANS, GOLDEN_LOGS)) {
            byte[] file = golden(name);
            for (int n = 0; n < file.length; n++) {
                byte[] cut = Arrays.copyOf(file, n);
                assertThrows(BlockCounts.CorruptCountsException.class, () -> BlockCounts.decode(cut, "cut"), name + " " + n);
            }
            for (int bit = 0; bit < file.length * 8; bit++) {
                byte[] flipped = file.clone();
                flipped[bit / 8] ^= (byte) (1 << (bit % 8));
                assertThrows(BlockCounts.CorruptCountsException.class, () -> BlockCounts.decode(flipped, "flip"),
                        name + " bit " + bit);
            }
        }
    }

    @Test
    void decode_malformedBodiesUnderAValidChecksum_areCorruptWithoutAllocating() {
        String w = "8094ebdc03";
        for (String body : List.of(
                "03" + w + "00",                                     // unknown signal
                "01" + "00" + "00",                                  // width 0
                "01" + w + "00" + "ffffffff0f",                      // a key count past the body
                "02" + w + "00" + "00" + "00" + "00" + "02000001000001", // a row of a group that does not exist
                "02" + w + "00" + "00" + "0101000000" + "0100000000" + "01" + "0000000000", // a row counting nothing
                "02" + w + "00" + "00" + "0101000000" + "0100000000" + "02" + "0000010000" + "0000010000", // a row twice
                "01" + w + "00" + "00" + "00" + "00" + "00" + "ff")) { // a byte after the last row
            BlockCounts.CorruptCountsException e = assertThrows(BlockCounts.CorruptCountsException.class,
                    () -> BlockCounts.decode(withHeader(HexFormat.of().parseHex(body)), "bad"), body);
            assertTrue(e.getMessage().startsWith("bad: malformed body"), e.getMessage());
        }
    }

    private static byte[] withHeader(byte[] body) {
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(BlockCounts.HEADER_BYTES + body.length).order(ByteOrder.LITTLE_ENDIAN)
                .put(new byte[] {'N', 'C', 'N', 'T', 1, 0, 0, 0}).putInt(body.length).putInt((int) crc.getValue())
                .put(body).array();
    }
}
