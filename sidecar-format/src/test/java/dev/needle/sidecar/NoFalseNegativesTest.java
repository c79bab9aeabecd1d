package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one rule, for the sidecar alone: every key that went into a built file is found again after
 * the file is encoded and decoded (or written and read), for every shape of key the format meets.
 * A single miss would let a query skip a block that holds its answer.
 */
class NoFalseNegativesTest {

    /** The file's word count by docs/DESIGN.md's sizing rule, computed here without the code under test. */
    private static int expectedWords(long distinctKeys) {
        long bits = 64;
        while (bits < BloomSidecar.BITS_PER_KEY * distinctKeys) {
            bits <<= 1;
        }
        return (int) (bits / 64);
    }

    private static int wordsField(byte[] file) {
        return (file[8] & 0xFF) | (file[9] & 0xFF) << 8 | (file[10] & 0xFF) << 16 | (file[11] & 0xFF) << 24;
    }

    private static Sidecar decodeVerified(Optional<byte[]> file) {
        assertTrue(file.isPresent(), "a file is built");
        Sidecar sidecar = BloomSidecar.decode(file.get());
        assertTrue(sidecar.isVerified(), sidecar::detail);
        return sidecar;
    }

    private static byte[] idOf(long lo, long hi) {
        byte[] id = new byte[16];
        for (int i = 0; i < 8; i++) {
            id[i] = (byte) (lo >>> (8 * i));
            id[8 + i] = (byte) (hi >>> (8 * i));
        }
        return id;
    }

    // ---------------------------------------------------------------- trace ids

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {1, 2, 1_000, 65_537, BloomSidecar.MAX_KEYS})
    void mayContainTraceId_randomIdsAddedAsBytes(int n) {
        SplittableRandom rnd = new SplittableRandom(0x5EED_0001L + n);
        byte[][] ids = new byte[n][];
        TraceIdxBuilder builder = new TraceIdxBuilder();
        for (int i = 0; i < n; i++) {
            ids[i] = TraceIdFamilies.random(rnd);
            builder.add(ids[i].clone());
        }
        assertEquals(n, builder.distinctKeys());
        byte[] file = builder.build().orElseThrow();
        assertEquals(expectedWords(n), wordsField(file));
        Sidecar sidecar = decodeVerified(Optional.of(file));

        int missedBytes = 0;
        int missedHalves = 0;
        for (byte[] id : ids) {
            if (!sidecar.mayContainTraceId(id)) {
                missedBytes++;
            }
            if (!sidecar.mayContainTraceId(TraceIdFamilies.lo(id), TraceIdFamilies.hi(id))) {
                missedHalves++;
            }
        }
        assertEquals(0, missedBytes, "ids added as bytes, looked up as bytes, not found");
        assertEquals(0, missedHalves, "ids added as bytes, looked up as (lo, hi), not found");
    }

    @ParameterizedTest(name = "n = {0}")
    @ValueSource(ints = {1, 100, 300_000, BloomSidecar.MAX_KEYS})
    void mayContainTraceId_randomIdsAddedAsHalves(int n) {
        SplittableRandom rnd = new SplittableRandom(0x5EED_0002L + n);
        long[] los = new long[n];
        long[] his = new long[n];
        TraceIdxBuilder builder = new TraceIdxBuilder();
        for (int i = 0; i < n; i++) {
            los[i] = rnd.nextLong();
            his[i] = rnd.nextLong();
            builder.add(los[i], his[i]);
        }
        Sidecar sidecar = decodeVerified(builder.build());
        assertEquals(expectedWords(n), sidecar.bits().orElseThrow().words());

        int missed = 0;
        for (int i = 0; i < n; i++) {
            if (!sidecar.mayContainTraceId(los[i], his[i]) || !sidecar.mayContainTraceId(idOf(los[i], his[i]))) {
                missed++;
            }
        }
        assertEquals(0, missed, "ids added as (lo, hi) not found");
    }

    static Stream<Arguments> structuredFamilies() {
        List<Arguments> cases = new ArrayList<>();
        for (String family : List.of("xray", "padded64", "counter")) {
            for (int n : new int[] {10_000, BloomSidecar.MAX_KEYS}) {
                cases.add(Arguments.of(family, n));
            }
        }
        return cases.stream();
    }

    /** Ids of one family laid end to end, as a sorted trace-id column would hold them. */
    private static byte[] structuredColumn(String family, int n, SplittableRandom rnd) {
        byte[] column = new byte[16 * n];
        for (int i = 0; i < n; i++) {
            byte[] id = switch (family) {
                case "xray" -> TraceIdFamilies.xray(
                        TraceIdFamilies.XRAY_EPOCH_SECONDS + (long) i * TraceIdFamilies.XRAY_SPAN_SECONDS / n, rnd);
                case "padded64" -> TraceIdFamilies.padded64(rnd);
                case "counter" -> TraceIdFamilies.counter(0x0100_0000 + i);
                default -> throw new IllegalArgumentException(family);
            };
            System.arraycopy(id, 0, column, 16 * i, 16);
        }
        return column;
    }

    @ParameterizedTest(name = "{0}, n = {1}")
    @MethodSource("structuredFamilies")
    void mayContainTraceId_structuredIds(String family, int n) {
        byte[] column = structuredColumn(family, n, new SplittableRandom(0x5EED_0003L + n));
        TraceIdxBuilder builder = new TraceIdxBuilder();
        for (int i = 0; i < n; i++) {
            builder.add(column, 16 * i);
        }
        Sidecar sidecar = decodeVerified(builder.build());

        int missed = 0;
        for (int i = 0; i < n; i++) {
            byte[] id = Arrays.copyOfRange(column, 16 * i, 16 * i + 16);
            if (!sidecar.mayContainTraceId(id)
                    || !sidecar.mayContainTraceId(TraceIdFamilies.lo(id), TraceIdFamilies.hi(id))) {
                missed++;
            }
        }
        assertEquals(0, missed, family + " ids not found");
    }

    @Test
    void add_allZeroTraceIdAlone() {
        Sidecar sidecar = decodeVerified(new TraceIdxBuilder().add(new byte[16]).build());
        BloomBits bits = sidecar.bits().orElseThrow();
        assertEquals(1, bits.words(), "one key: the 64-bit minimum");
        assertEquals(BloomSidecar.K, bits.bitCount(), "the zero id sets its own 7 bits");
        assertTrue(sidecar.mayContainTraceId(new byte[16]));
        assertTrue(sidecar.mayContainTraceId(0L, 0L));

        byte[] viaHalves = new TraceIdxBuilder().add(0L, 0L).build().orElseThrow();
        assertArrayEquals(new TraceIdxBuilder().add(new byte[16]).build().orElseThrow(), viaHalves);
    }

    @Test
    void add_allZeroTraceIdAmongOthersAndRepeated() {
        SplittableRandom rnd = new SplittableRandom(0x5EED_0004L);
        int n = 20_000;
        long[] los = new long[n];
        long[] his = new long[n];
        for (int i = 0; i < n; i++) {
            los[i] = rnd.nextLong();
            his[i] = rnd.nextLong();
        }
        TraceIdxBuilder once = new TraceIdxBuilder().add(0L, 0L);
        TraceIdxBuilder repeated = new TraceIdxBuilder();
        for (int i = 0; i < n; i++) {
            once.add(los[i], his[i]);
            if (i % 5_000 == 0) {
                repeated.add(new byte[16]); // the zero id again and again, never adjacent to itself
            }
            repeated.add(los[i], his[i]);
        }
        repeated.add(0L, 0L);
        assertEquals(n + 1, once.distinctKeys());
        assertEquals(n + 1, repeated.distinctKeys());
        byte[] file = once.build().orElseThrow();
        assertArrayEquals(file, repeated.build().orElseThrow());

        Sidecar sidecar = decodeVerified(Optional.of(file));
        assertTrue(sidecar.mayContainTraceId(new byte[16]));
        assertTrue(sidecar.mayContainTraceId(0L, 0L));
        for (int i = 0; i < n; i++) {
            assertTrue(sidecar.mayContainTraceId(los[i], his[i]));
        }
        // Ids next to zero: only one half zero.
        Sidecar halves = decodeVerified(new TraceIdxBuilder().add(0L, 1L).add(1L, 0L).add(0L, -1L).build());
        assertTrue(halves.mayContainTraceId(0L, 1L));
        assertTrue(halves.mayContainTraceId(1L, 0L));
        assertTrue(halves.mayContainTraceId(0L, -1L));
    }

    // ---------------------------------------------------------------- MAX_KEYS, no keys, duplicates

    /** MAX_KEYS distinct ids: hi = i keeps them distinct by construction. */
    private static TraceIdxBuilder maxKeys(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        TraceIdxBuilder builder = new TraceIdxBuilder();
        for (int i = 0; i < BloomSidecar.MAX_KEYS; i++) {
            builder.add(rnd.nextLong(), i);
        }
        return builder;
    }

    @Test
    void build_exactlyMaxKeys() {
        TraceIdxBuilder builder = maxKeys(0x5EED_0005L);
        assertEquals(BloomSidecar.MAX_KEYS, builder.distinctKeys());
        byte[] file = builder.build().orElseThrow(() -> new AssertionError("MAX_KEYS distinct ids must give a file"));
        assertEquals(BloomSidecar.MAX_WORDS, wordsField(file));
        assertEquals(BloomSidecar.HEADER_BYTES + 8L * BloomSidecar.MAX_WORDS, file.length);

        // The same ids again, in reverse order (never adjacent), must neither count nor change a bit.
        SplittableRandom rnd = new SplittableRandom(0x5EED_0005L);
        long[] los = new long[BloomSidecar.MAX_KEYS];
        for (int i = 0; i < los.length; i++) {
            los[i] = rnd.nextLong();
        }
        for (int i = los.length - 1; i >= 0; i--) {
            builder.add(los[i], i);
        }
        assertEquals(BloomSidecar.MAX_KEYS, builder.distinctKeys());
        assertArrayEquals(file, builder.build().orElseThrow());

        Sidecar sidecar = decodeVerified(Optional.of(file));
        int missed = 0;
        for (int i = 0; i < los.length; i++) {
            if (!sidecar.mayContainTraceId(los[i], i)) {
                missed++;
            }
        }
        assertEquals(0, missed);
    }

    @Test
    void build_maxKeysPlusOne() {
        TraceIdxBuilder builder = maxKeys(0x5EED_0006L).add(-1L, -1L);
        assertEquals(BloomSidecar.MAX_KEYS + 1, builder.distinctKeys());
        assertEquals(Optional.empty(), builder.build());

        AttrIdxBuilder attrs = new AttrIdxBuilder();
        for (int i = 0; i <= BloomSidecar.MAX_KEYS; i++) {
            attrs.addLong("k", i);
        }
        assertEquals(Optional.empty(), attrs.build());
    }

    @Test
    void build_noKeys() {
        assertEquals(Optional.empty(), new TraceIdxBuilder().build());
        assertEquals(Optional.empty(), new AttrIdxBuilder().build());
    }

    /**
     * 6553 keys want 65,530 bits, just under 2^16; one more key would double the file. So a duplicate
     * that was counted shows as a different file, not only as a different count.
     */
    private static final int EDGE_OF_SIZE = 6_553;

    @Test
    void build_adjacentDuplicateTraceIds() {
        SplittableRandom rnd = new SplittableRandom(0x5EED_0007L);
        byte[][] ids = new byte[EDGE_OF_SIZE][];
        TraceIdxBuilder distinct = new TraceIdxBuilder();
        TraceIdxBuilder spans = new TraceIdxBuilder();
        for (int i = 0; i < ids.length; i++) {
            ids[i] = TraceIdFamilies.random(rnd);
            distinct.add(ids[i]);
            int spansOfTrace = 1 + rnd.nextInt(6);
            for (int s = 0; s < spansOfTrace; s++) {
                spans.add(ids[i].clone());
            }
        }
        byte[] file = distinct.build().orElseThrow();
        assertEquals(1024, wordsField(file), "2^16 bits for 6553 keys");
        assertEquals(EDGE_OF_SIZE, spans.distinctKeys());
        assertArrayEquals(file, spans.build().orElseThrow());

        // The control: one key more does double the file.
        assertEquals(2048, wordsField(distinct.add(new byte[16]).build().orElseThrow()));
    }

    @Test
    void build_nonAdjacentDuplicateTraceIds() {
        SplittableRandom rnd = new SplittableRandom(0x5EED_0008L);
        long[] los = new long[EDGE_OF_SIZE];
        long[] his = new long[EDGE_OF_SIZE];
        TraceIdxBuilder distinct = new TraceIdxBuilder();
        for (int i = 0; i < los.length; i++) {
            los[i] = rnd.nextLong();
            his[i] = rnd.nextLong();
            distinct.add(los[i], his[i]);
        }
        TraceIdxBuilder shuffled = new TraceIdxBuilder();
        for (int round = 0; round < 3; round++) {
            for (int j = 0; j < los.length; j++) {
                int i = (int) ((j * 2_654_435_761L + round * 977L) % los.length); // a permutation per round
                shuffled.add(idOf(los[i], his[i]));
            }
        }
        assertEquals(EDGE_OF_SIZE, shuffled.distinctKeys());
        assertArrayEquals(distinct.build().orElseThrow(), shuffled.build().orElseThrow());
    }

    @Test
    void build_duplicateAttributePairs() {
        AttrIdxBuilder distinct = new AttrIdxBuilder();
        AttrIdxBuilder repeated = new AttrIdxBuilder();
        for (int i = 0; i < EDGE_OF_SIZE; i++) {
            distinct.addString("http.target", "/items/" + i);
        }
        for (int round = 0; round < 2; round++) {
            for (int i = EDGE_OF_SIZE - 1; i >= 0; i--) {
                repeated.addString("http.target", "/items/" + i).addString("http.target", "/items/" + i);
            }
        }
        assertEquals(EDGE_OF_SIZE, repeated.distinctKeys());
        byte[] file = distinct.build().orElseThrow();
        assertEquals(1024, wordsField(file));
        assertArrayEquals(file, repeated.build().orElseThrow());
    }

    // ---------------------------------------------------------------- attribute pairs

    /** Receives typed pairs, so that one deterministic stream can be both added and looked up. */
    interface PairVisitor {
        void string(String key, String value);

        void integer(String key, long value);

        void floating(String key, double value);

        void bool(String key, boolean value);
    }

    private static final int[][] CODE_POINT_RANGES = {
        {0x00, 0x7F},         // 1-byte UTF-8, NUL and controls included
        {0x80, 0x7FF},        // 2-byte
        {0x800, 0xD7FF},      // 3-byte, below the surrogates
        {0xE000, 0xFFFF},     // 3-byte, above them
        {0x1F300, 0x1FAFF},   // emoji: 4-byte, surrogate pairs in Java
        {0x10000, 0x10FFFF},  // every supplementary plane
    };

    static String randomUnicode(SplittableRandom rnd, int maxLength) {
        int length = rnd.nextInt(maxLength + 1);
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int[] range = CODE_POINT_RANGES[rnd.nextInt(CODE_POINT_RANGES.length)];
            s.appendCodePoint(rnd.nextInt(range[0], range[1] + 1));
        }
        return s.toString();
    }

    private static final String[] KEY_POOL = buildKeyPool();

    private static String[] buildKeyPool() {
        List<String> keys = new ArrayList<>(List.of("", "service.name", "http.method", "http.status_code",
                "http.route", "db.system", "span.name", "span.kind", "status.code", "severity", "ключ", "名前", "🔑"));
        SplittableRandom rnd = new SplittableRandom(0x5EED_0009L);
        while (keys.size() < 256) {
            keys.add(keys.size() % 2 == 0 ? "attr." + keys.size() : randomUnicode(rnd, 12));
        }
        return keys.toArray(new String[0]);
    }

    private static final double[] SPECIAL_DOUBLES = {
        0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MAX_VALUE, -Double.MAX_VALUE,
        Double.MIN_VALUE, -Double.MIN_VALUE, Double.MIN_NORMAL, Math.nextDown(Double.MIN_NORMAL),
        -Math.nextDown(Double.MIN_NORMAL), 0x1p63, -0x1p63, Math.nextDown(0x1p63), Math.nextUp(-0x1p63),
        Math.nextDown(-0x1p63), 0x1p53, 0x1p53 + 2, 0x1p52 + 0.5, 0.1, -1.5, 0.5, 1e-300, 200.0, -200.0,
        1e300, Double.NaN, Double.longBitsToDouble(0xFFF8_0000_0000_0001L),
    };

    private static final long[] SPECIAL_LONGS = {
        Long.MIN_VALUE, Long.MAX_VALUE, 0, 1, -1, 200, 1L << 53, (1L << 53) + 1,
        Integer.MIN_VALUE, Integer.MAX_VALUE, Long.MIN_VALUE + 1, Long.MAX_VALUE - 1,
    };

    private static final String[] SPECIAL_STRINGS = {
        "", " ", "a", "200", "true", "é", "日本語", "😀", "\u0000", "e\u0301", "a".repeat(10_000),
    };

    private static double randomDouble(SplittableRandom rnd) {
        return switch (rnd.nextInt(8)) {
            case 0 -> rnd.nextInt(-1_000, 1_000);                      // integral, small
            case 1 -> (double) rnd.nextLong();                         // integral, large
            case 2 -> rnd.nextDouble() * 2e6 - 1e6;                    // fractional
            case 3 -> rnd.nextInt(100_000) / 100.0;                    // two decimals
            case 4 -> Double.longBitsToDouble(rnd.nextLong());         // any bits, NaN now and then
            case 5 -> Double.longBitsToDouble(rnd.nextLong() & 0x800F_FFFF_FFFF_FFFFL); // subnormal or ±0
            case 6 -> SPECIAL_DOUBLES[rnd.nextInt(SPECIAL_DOUBLES.length)];
            default -> rnd.nextLong(-(1L << 53), 1L << 53) * 0x1p-20;  // any fraction of 20 bits
        };
    }

    private static long randomLong(SplittableRandom rnd) {
        return switch (rnd.nextInt(3)) {
            case 0 -> rnd.nextLong();
            case 1 -> rnd.nextInt(-10_000, 10_000);
            default -> SPECIAL_LONGS[rnd.nextInt(SPECIAL_LONGS.length)];
        };
    }

    /** Every special value under a few keys, then {@code count} random pairs of every type. */
    static void pairs(long seed, int count, PairVisitor visitor) {
        for (String key : new String[] {"", "edge", "ключ"}) {
            for (String s : SPECIAL_STRINGS) {
                visitor.string(key, s);
            }
            for (long v : SPECIAL_LONGS) {
                visitor.integer(key, v);
            }
            for (double v : SPECIAL_DOUBLES) {
                visitor.floating(key, v);
            }
            visitor.bool(key, true);
            visitor.bool(key, false);
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int i = 0; i < count; i++) {
            String key = rnd.nextInt(4) == 0 ? randomUnicode(rnd, 16) : KEY_POOL[rnd.nextInt(KEY_POOL.length)];
            switch (rnd.nextInt(4)) {
                case 0 -> visitor.string(key, rnd.nextInt(3) == 0 ? "v" + rnd.nextLong() : randomUnicode(rnd, 24));
                case 1 -> visitor.integer(key, randomLong(rnd));
                case 2 -> visitor.floating(key, randomDouble(rnd));
                default -> visitor.bool(key, rnd.nextBoolean());
            }
        }
    }

    private static final class Adder implements PairVisitor {
        final AttrIdxBuilder builder = new AttrIdxBuilder();

        @Override
        public void string(String key, String value) {
            builder.addString(key, value);
        }

        @Override
        public void integer(String key, long value) {
            builder.addLong(key, value);
        }

        @Override
        public void floating(String key, double value) {
            builder.addDouble(key, value);
        }

        @Override
        public void bool(String key, boolean value) {
            builder.addBool(key, value);
        }
    }

    private static final class Checker implements PairVisitor {
        final Sidecar sidecar;
        int looked;
        int missed;
        int nans;
        String firstMiss;

        Checker(Sidecar sidecar) {
            this.sidecar = sidecar;
        }

        private void check(AttributeHash hash, String what) {
            looked++;
            if (!sidecar.mayContain(hash)) {
                if (missed++ == 0) {
                    firstMiss = what;
                }
            }
        }

        @Override
        public void string(String key, String value) {
            check(AttributeHash.ofString(key, value), key + "=\"" + value + "\"");
        }

        @Override
        public void integer(String key, long value) {
            check(AttributeHash.ofLong(key, value), key + "=" + value + "L");
        }

        @Override
        public void floating(String key, double value) {
            AttributeHash hash = AttributeHash.ofDouble(key, value);
            if (Double.isNaN(value)) {
                assertNull(hash, "NaN has no hash");
                nans++;
            } else {
                check(hash, key + "=" + value + " (bits " + Long.toHexString(Double.doubleToRawLongBits(value)) + ")");
            }
        }

        @Override
        public void bool(String key, boolean value) {
            check(AttributeHash.ofBool(key, value), key + "=" + value);
        }

        void assertNoneMissed() {
            assertTrue(looked > 0);
            assertTrue(nans > 0, "the stream holds NaNs");
            assertEquals(0, missed, () -> missed + " of " + looked + " pairs not found, first " + firstMiss);
        }
    }

    @ParameterizedTest(name = "{0} random pairs")
    @ValueSource(ints = {1_000, 100_000, 999_000})
    void mayContain_attributePairsOfEveryType(int count) {
        long seed = 0x5EED_000AL + count;
        Adder adder = new Adder();
        pairs(seed, count, adder);
        assertTrue(adder.builder.hasDouble());
        assertTrue(adder.builder.distinctKeys() <= BloomSidecar.MAX_KEYS);
        Sidecar sidecar = decodeVerified(adder.builder.build());
        assertTrue(sidecar.mayHoldDoubles());

        Checker checker = new Checker(sidecar);
        pairs(seed, count, checker);
        checker.assertNoneMissed();
    }

    // ---------------------------------------------------------------- through a file

    @Test
    void read_sidecarFilesInTempDir(@TempDir Path dir) throws IOException {
        int n = 500_000;
        SplittableRandom rnd = new SplittableRandom(0x5EED_000BL);
        byte[] column = new byte[16 * n];
        rnd.nextBytes(column);
        TraceIdxBuilder traces = new TraceIdxBuilder();
        for (int i = 0; i < n; i++) {
            traces.add(column, 16 * i);
        }
        byte[] traceFile = traces.build().orElseThrow();
        Path traceIdx = dir.resolve(BloomSidecar.TRACE_IDX);
        Files.write(traceIdx, traceFile);

        Adder adder = new Adder();
        pairs(0x5EED_000CL, 300_000, adder);
        byte[] attrFile = adder.builder.build().orElseThrow();
        Path attrIdx = dir.resolve(BloomSidecar.ATTR_IDX);
        Files.write(attrIdx, attrFile);

        Sidecar traceSidecar = BloomSidecar.read(traceIdx);
        assertTrue(traceSidecar.isVerified(), traceSidecar::detail);
        assertEquals(traceFile.length, traceSidecar.bytesRead());
        int missed = 0;
        for (int i = 0; i < n; i++) {
            if (!traceSidecar.mayContainTraceId(Arrays.copyOfRange(column, 16 * i, 16 * i + 16))) {
                missed++;
            }
        }
        assertEquals(0, missed, "trace ids read back from " + traceIdx + " not found");

        Sidecar attrSidecar = BloomSidecar.read(attrIdx);
        assertTrue(attrSidecar.isVerified(), attrSidecar::detail);
        assertEquals(BloomSidecar.FLAG_HAS_DOUBLE, attrSidecar.flags());
        Checker checker = new Checker(attrSidecar);
        pairs(0x5EED_000CL, 300_000, checker);
        checker.assertNoneMissed();
    }
}
