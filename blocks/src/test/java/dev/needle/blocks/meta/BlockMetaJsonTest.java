package dev.needle.blocks.meta;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * meta.json pinned by hand-written golden texts and by the golden blocks' files, read back exactly,
 * tolerant of fields it does not know, and answering {@link CorruptMetaException} — never anything else — for every kind of
 * corruption, every truncation and random damage.
 */
class BlockMetaJsonTest {

    private static final Bytes TRACE_A = Bytes.fromHex("0af7651916cd43dd8448eb211c80319c");
    private static final Bytes TRACE_B = Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736");

    static final BlockMeta SPANS = new BlockMeta(1, Signal.SPANS, 3, 2048, 1000, 3000, 2, 80, 0, 0, 1700000000000L,
            List.of(new BatchMeta(0, 0, 2, 1000, 2000, TRACE_A, TRACE_B, 0, 5L, 70L, null, null, null, null),
                    new BatchMeta(1, 2, 1, 3000, 3000, null, null, 1, 0L, 0L, null, null, null, null)));

    /** Written by hand from the format in BlockMetaJson's Javadoc; never regenerate it from the code. */
    static final String SPANS_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 1,
              "signal": "spans",
              "rows": 3,
              "dataBytes": 2048,
              "minTimeUnixNano": 1000,
              "maxTimeUnixNano": 3000,
              "distinctTraceIds": 2,
              "traceIdxBytes": 80,
              "attrIdxBytes": 0,
              "distinctAttributePairs": 0,
              "createdUnixMillis": 1700000000000,
              "batches": [
                {
                  "index": 0,
                  "firstRow": 0,
                  "rows": 2,
                  "minTimeUnixNano": 1000,
                  "maxTimeUnixNano": 2000,
                  "minTraceId": "0af7651916cd43dd8448eb211c80319c",
                  "maxTraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
                  "traceIdNullCount": 0,
                  "minDurationNano": 5,
                  "maxDurationNano": 70
                },
                {
                  "index": 1,
                  "firstRow": 2,
                  "rows": 1,
                  "minTimeUnixNano": 3000,
                  "maxTimeUnixNano": 3000,
                  "traceIdNullCount": 1,
                  "minDurationNano": 0,
                  "maxDurationNano": 0
                }
              ]
            }""";

    static final BlockMeta LOGS = new BlockMeta(1, Signal.LOGS, 8194, 1048576, -5, 1764446400456000000L, 1, 0, 312,
            17, 1764446401000L,
            List.of(new BatchMeta(0, 0, 8192, -5, 1764446400456000000L, TRACE_B, TRACE_B, 8191, null, null, 9, 17, 100, null),
                    new BatchMeta(1, 8192, 2, 7, 7, null, null, 2, null, null, null, null, 2, null)));

    static final String LOGS_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 1,
              "signal": "logs",
              "rows": 8194,
              "dataBytes": 1048576,
              "minTimeUnixNano": -5,
              "maxTimeUnixNano": 1764446400456000000,
              "distinctTraceIds": 1,
              "traceIdxBytes": 0,
              "attrIdxBytes": 312,
              "distinctAttributePairs": 17,
              "createdUnixMillis": 1764446401000,
              "batches": [
                {
                  "index": 0,
                  "firstRow": 0,
                  "rows": 8192,
                  "minTimeUnixNano": -5,
                  "maxTimeUnixNano": 1764446400456000000,
                  "minTraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
                  "maxTraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
                  "traceIdNullCount": 8191,
                  "minSeverity": 9,
                  "maxSeverity": 17,
                  "severityNullCount": 100
                },
                {
                  "index": 1,
                  "firstRow": 8192,
                  "rows": 2,
                  "minTimeUnixNano": 7,
                  "maxTimeUnixNano": 7,
                  "traceIdNullCount": 2,
                  "severityNullCount": 2
                }
              ]
            }""";

    static final BlockMeta EMPTY = new BlockMeta(1, Signal.LOGS, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());

    static final String EMPTY_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 1,
              "signal": "logs",
              "rows": 0,
              "dataBytes": 0,
              "minTimeUnixNano": 0,
              "maxTimeUnixNano": 0,
              "distinctTraceIds": 0,
              "traceIdxBytes": 0,
              "attrIdxBytes": 0,
              "distinctAttributePairs": 0,
              "createdUnixMillis": 0,
              "batches": []
            }""";

    /** Writer version 2: the same facts, and every batch's checksum, the last field of its entry. */
    static final BlockMeta SPANS_V2 = new BlockMeta(2, Signal.SPANS, 3, 2048, 1000, 3000, 2, 80, 0, 0, 1700000000000L,
            List.of(new BatchMeta(0, 0, 2, 1000, 2000, TRACE_A, TRACE_B, 0, 5L, 70L, null, null, null, 4294967295L),
                    new BatchMeta(1, 2, 1, 3000, 3000, null, null, 1, 0L, 0L, null, null, null, 0L)));

    static final String SPANS_V2_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 2,
              "signal": "spans",
              "rows": 3,
              "dataBytes": 2048,
              "minTimeUnixNano": 1000,
              "maxTimeUnixNano": 3000,
              "distinctTraceIds": 2,
              "traceIdxBytes": 80,
              "attrIdxBytes": 0,
              "distinctAttributePairs": 0,
              "createdUnixMillis": 1700000000000,
              "batches": [
                {
                  "index": 0,
                  "firstRow": 0,
                  "rows": 2,
                  "minTimeUnixNano": 1000,
                  "maxTimeUnixNano": 2000,
                  "minTraceId": "0af7651916cd43dd8448eb211c80319c",
                  "maxTraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
                  "traceIdNullCount": 0,
                  "minDurationNano": 5,
                  "maxDurationNano": 70,
                  "crc32c": 4294967295
                },
                {
                  "index": 1,
                  "firstRow": 2,
                  "rows": 1,
                  "minTimeUnixNano": 3000,
                  "maxTimeUnixNano": 3000,
                  "traceIdNullCount": 1,
                  "minDurationNano": 0,
                  "maxDurationNano": 0,
                  "crc32c": 0
                }
              ]
            }""";

    /**
     * Writer version 3: version 2's facts, and per batch the checksums of its header and of each
     * column's range, the two arrays on one line each.
     */
    static final BlockMeta SPANS_V3 = new BlockMeta(3, Signal.SPANS, 3, 2048, 1000, 3000, 2, 80, 0, 0, 1700000000000L,
            List.of(new BatchMeta(0, 0, 2, 1000, 2000, TRACE_A, TRACE_B, 0, 5L, 70L, null, null, null, 4294967295L,
                            new ColumnChecksums(7L, List.of(0L, 64L, 64L), List.of(1L, 4294967295L, 0L))),
                    new BatchMeta(1, 2, 1, 3000, 3000, null, null, 1, 0L, 0L, null, null, null, 0L,
                            new ColumnChecksums(0L, List.of(0L, 8L, 200L), List.of(3L, 2L, 1L)))));

    static final String SPANS_V3_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 3,
              "signal": "spans",
              "rows": 3,
              "dataBytes": 2048,
              "minTimeUnixNano": 1000,
              "maxTimeUnixNano": 3000,
              "distinctTraceIds": 2,
              "traceIdxBytes": 80,
              "attrIdxBytes": 0,
              "distinctAttributePairs": 0,
              "createdUnixMillis": 1700000000000,
              "batches": [
                {
                  "index": 0,
                  "firstRow": 0,
                  "rows": 2,
                  "minTimeUnixNano": 1000,
                  "maxTimeUnixNano": 2000,
                  "minTraceId": "0af7651916cd43dd8448eb211c80319c",
                  "maxTraceId": "4bf92f3577b34da6a3ce929d0e0e4736",
                  "traceIdNullCount": 0,
                  "minDurationNano": 5,
                  "maxDurationNano": 70,
                  "crc32c": 4294967295,
                  "headerCrc32c": 7,
                  "columnOffsets": [0, 64, 64],
                  "columnCrc32c": [1, 4294967295, 0]
                },
                {
                  "index": 1,
                  "firstRow": 2,
                  "rows": 1,
                  "minTimeUnixNano": 3000,
                  "maxTimeUnixNano": 3000,
                  "traceIdNullCount": 1,
                  "minDurationNano": 0,
                  "maxDurationNano": 0,
                  "crc32c": 0,
                  "headerCrc32c": 0,
                  "columnOffsets": [0, 8, 200],
                  "columnCrc32c": [3, 2, 1]
                }
              ]
            }""";

    /** Writer version 4: version 3's facts, and the checksum of the file's own bytes after writerVersion. */
    static final BlockMeta SPANS_V4 = new BlockMeta(4, SPANS_V3.signal(), SPANS_V3.rows(), SPANS_V3.dataBytes(),
            SPANS_V3.minTimeUnixNano(), SPANS_V3.maxTimeUnixNano(), SPANS_V3.distinctTraceIds(), SPANS_V3.traceIdxBytes(),
            SPANS_V3.attrIdxBytes(), SPANS_V3.distinctAttributePairs(), SPANS_V3.createdUnixMillis(), SPANS_V3.batches());

    /** metaCrc32c computed by an independent CRC-32C (Python) over this text without its own digits. */
    static final String SPANS_V4_JSON = SPANS_V3_JSON.replace("\"writerVersion\": 3,",
            "\"writerVersion\": 4,\n  \"metaCrc32c\": 3846209702,");

    static final BlockMeta LOGS_V2 = new BlockMeta(2, Signal.LOGS, 2, 512, 7, 9, 0, 0, 0, 0, 1764446401000L,
            List.of(new BatchMeta(0, 0, 2, 7, 9, null, null, 2, null, null, null, null, 2, 3735928559L)));

    static final String LOGS_V2_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 2,
              "signal": "logs",
              "rows": 2,
              "dataBytes": 512,
              "minTimeUnixNano": 7,
              "maxTimeUnixNano": 9,
              "distinctTraceIds": 0,
              "traceIdxBytes": 0,
              "attrIdxBytes": 0,
              "distinctAttributePairs": 0,
              "createdUnixMillis": 1764446401000,
              "batches": [
                {
                  "index": 0,
                  "firstRow": 0,
                  "rows": 2,
                  "minTimeUnixNano": 7,
                  "maxTimeUnixNano": 9,
                  "traceIdNullCount": 2,
                  "severityNullCount": 2,
                  "crc32c": 3735928559
                }
              ]
            }""";

    /** A compaction's output names the blocks it replaces, in name order, after its batches. */
    static final BlockMeta REPLACING = new BlockMeta(3, Signal.LOGS, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of(),
            List.of(BlockName.parse("20251129T195500.123Z_20251129T195500.143Z_w0000000000000000007c000n001").orElseThrow(),
                    BlockName.parse("20251129T195500.100Z_20251129T195500.200Z_abc").orElseThrow()));

    static final String REPLACING_JSON = """
            {
              "format": "needle-block",
              "writerVersion": 3,
              "signal": "logs",
              "rows": 0,
              "dataBytes": 0,
              "minTimeUnixNano": 0,
              "maxTimeUnixNano": 0,
              "distinctTraceIds": 0,
              "traceIdxBytes": 0,
              "attrIdxBytes": 0,
              "distinctAttributePairs": 0,
              "createdUnixMillis": 0,
              "batches": [],
              "replaces": [
                "20251129T195500.100Z_20251129T195500.200Z_abc",
                "20251129T195500.123Z_20251129T195500.143Z_w0000000000000000007c000n001"
              ]
            }""";

    static Stream<Arguments> goldens() {
        return Stream.of(Arguments.of(SPANS, SPANS_JSON), Arguments.of(LOGS, LOGS_JSON), Arguments.of(EMPTY, EMPTY_JSON),
                Arguments.of(SPANS_V2, SPANS_V2_JSON), Arguments.of(LOGS_V2, LOGS_V2_JSON),
                Arguments.of(SPANS_V3, SPANS_V3_JSON), Arguments.of(SPANS_V4, SPANS_V4_JSON),
                Arguments.of(REPLACING, REPLACING_JSON));
    }

    @Test
    void read_metaWithoutReplaces_replacesNothing() throws CorruptMetaException {
        assertEquals(List.of(), BlockMetaJson.read(utf8(SPANS_V3_JSON)).replaces());
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void write_matchesGoldenText(BlockMeta meta, String json) {
        assertEquals(json, new String(BlockMetaJson.write(meta), StandardCharsets.UTF_8));
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void read_goldenText(BlockMeta meta, String json) throws CorruptMetaException {
        assertEquals(meta, BlockMetaJson.read(utf8(json)));
    }

    private static final Path GOLDEN = Path.of("src/test/resources/golden/data/single-tenant");
    private static final Path GOLDEN_V2 = Path.of("src/test/resources/golden/data-v2/single-tenant");
    private static final long T0 = 1_764_446_100_123_456_789L;

    /**
     * The golden blocks' meta.json files (writer versions 1 and 2, never regenerated) and the values
     * they hold: version 2's are version 1's with the checksums of the same data.arrow bytes.
     */
    static Stream<Arguments> goldenFiles() {
        Bytes shortId = Bytes.fromHex("00000000000000003d2f8e1b9c7a6e55");
        Bytes third = Bytes.fromHex("6a1f2b3c0123456789abcdef01234567");
        BlockMeta spans = new BlockMeta(1, Signal.SPANS, 20, 23274, T0, T0 + 19_000_000, 3, 24, 48, 22, 1795986997254L,
                List.of(new BatchMeta(0, 0, 8, T0, T0 + 17_000_000, shortId, TRACE_B, 0, 250_000L, 4_500_000L, null, null, null,
                                null),
                        new BatchMeta(1, 8, 8, T0 + 1_000_000, T0 + 18_000_000, TRACE_B, third, 0, 500_000L, 4_750_000L,
                                null, null, null, null),
                        new BatchMeta(2, 16, 4, T0 + 10_000_000, T0 + 19_000_000, third, third, 0, 2_750_000L, 5_000_000L,
                                null, null, null, null)));
        BlockMeta logs = new BlockMeta(1, Signal.LOGS, 10, 13194, T0, T0 + 18_000_000, 1, 24, 48, 17, 1795986997296L,
                List.of(new BatchMeta(0, 0, 8, T0, T0 + 14_000_000, TRACE_B, TRACE_B, 4, null, null, 9, 16, 1, null),
                        new BatchMeta(1, 8, 2, T0 + 16_000_000, T0 + 18_000_000, TRACE_B, TRACE_B, 1, null, null, 17, 18, 0,
                                null)));
        String spansBlock = "spans/20251129T195500.123Z_20251129T195500.143Z_golden/meta.json";
        String logsBlock = "logs/20251129T195500.123Z_20251129T195500.142Z_golden/meta.json";
        return Stream.of(
                Arguments.of(spans, GOLDEN.resolve(spansBlock)),
                Arguments.of(logs, GOLDEN.resolve(logsBlock)),
                Arguments.of(version2(spans, 2110237506L, 2384255618L, 2677414271L), GOLDEN_V2.resolve(spansBlock)),
                Arguments.of(version2(logs, 3408041372L, 3512046858L), GOLDEN_V2.resolve(logsBlock)));
    }

    /** {@code v1} as writer version 2 writes it: the same facts and one checksum a batch. */
    private static BlockMeta version2(BlockMeta v1, long... crc32c) {
        List<BatchMeta> batches = v1.batches().stream().map(b -> b.withCrc32c(crc32c[b.index()])).toList();
        return new BlockMeta(BlockMeta.WRITER_VERSION_2, v1.signal(), v1.rows(), v1.dataBytes(), v1.minTimeUnixNano(),
                v1.maxTimeUnixNano(), v1.distinctTraceIds(), v1.traceIdxBytes(), v1.attrIdxBytes(),
                v1.distinctAttributePairs(), v1.createdUnixMillis(), batches);
    }

    @ParameterizedTest
    @MethodSource("goldenFiles")
    void write_goldenBlockMeta_isTheGoldenFileByteForByte(BlockMeta meta, Path file) throws IOException {
        byte[] golden = Files.readAllBytes(file);
        byte[] written = BlockMetaJson.write(meta);
        assertEquals(new String(golden, StandardCharsets.UTF_8), new String(written, StandardCharsets.UTF_8));
        assertArrayEquals(golden, written);
    }

    @ParameterizedTest
    @MethodSource("goldenFiles")
    void read_goldenFile_givesItsValues(BlockMeta meta, Path file) throws IOException {
        assertEquals(meta, BlockMetaJson.read(Files.readAllBytes(file)));
    }

    @Test
    void read_randomMetas_equalWhatWasWritten() throws CorruptMetaException {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 500; i++) {
            BlockMeta meta = randomMeta(random);
            assertEquals(meta, BlockMetaJson.read(BlockMetaJson.write(meta)), "meta #" + i);
        }
    }

    @Test
    void read_unknownFieldsOfEveryType_ignored() throws CorruptMetaException {
        String json = SPANS_JSON
                .replace("\"rows\": 3,", """
                        "rows": 3,
                          "future": {"nested": [1, 2.5, {"deeper": [null, true, "x"]}], "batches": []},
                          "ratio": 1.5,
                          "huge": 123456789012345678901234567890,
                          "tiny": 1e-400,
                          "flag": false,
                          "nothing": null,
                          "note": "a newer writer wrote this",
                          "list": [],""")
                .replace("\"index\": 1,", """
                        "index": 1,
                              "batches": 7,
                              "bytes": {"data": 100},""");
        assertEquals(SPANS, BlockMetaJson.read(utf8(json)));
    }

    @Test
    void read_fieldsInAnyOrderAndCompact_accepted() throws CorruptMetaException {
        String json = "{\"batches\":[],\"createdUnixMillis\":0,\"signal\":\"logs\",\"writerVersion\":1,\"rows\":0,"
                + "\"dataBytes\":0,\"minTimeUnixNano\":0,\"maxTimeUnixNano\":0,\"distinctTraceIds\":0,"
                + "\"traceIdxBytes\":0,\"attrIdxBytes\":0,\"distinctAttributePairs\":0,\"format\":\"needle-block\"}";
        assertEquals(EMPTY, BlockMetaJson.read(utf8(json)));
    }

    @Test
    void read_whitespaceAfterTheClosingBrace_accepted() throws CorruptMetaException {
        assertEquals(SPANS, BlockMetaJson.read(utf8(SPANS_JSON + "\n \t\r\n")));
    }

    @Test
    void read_explicitNullsAndUpperCaseHex_accepted() throws CorruptMetaException {
        String json = LOGS_JSON
                .replace("\"traceIdNullCount\": 2,", "\"traceIdNullCount\": 2, \"minTraceId\": null, \"maxTraceId\": null,"
                        + " \"minSeverity\": null, \"maxSeverity\": null, \"minDurationNano\": null,")
                .replace("\"minTraceId\": \"4bf9", "\"minTraceId\": \"4BF9");
        assertEquals(LOGS, BlockMetaJson.read(utf8(json)));
    }

    static Stream<Arguments> corruptions() {
        return Stream.of(
                // Not JSON, or not an object.
                Arguments.of("", "does not start with a JSON object"),
                Arguments.of("[]", "does not start with a JSON object"),
                Arguments.of("\"needle-block\"", "does not start with a JSON object"),
                Arguments.of("hello", "not valid JSON"),
                Arguments.of("{\"format\": \"needle-block\",}", "not valid JSON"),
                Arguments.of(SPANS_JSON + " {}", "content after the closing brace"),
                Arguments.of(SPANS_JSON + " x", "not valid JSON"),
                Arguments.of("{\"deep\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}", "not valid JSON"),
                // Not a needle meta.json, or one from a newer writer.
                Arguments.of("{}", "missing field format"),
                Arguments.of(SPANS_JSON.replace("needle-block", "parquet"), "format is \"parquet\""),
                Arguments.of(SPANS_V4_JSON.replace("\"writerVersion\": 4", "\"writerVersion\": 5"), "writerVersion 5 is newer"),
                Arguments.of(SPANS_JSON.replace("\"writerVersion\": 1", "\"writerVersion\": 0"), "writerVersion 0"),
                Arguments.of(SPANS_JSON.replace("\"signal\": \"spans\"", "\"signal\": \"metrics\""), "signal is \"metrics\""),
                // Missing required fields.
                Arguments.of(SPANS_JSON.replace("\"dataBytes\": 2048,", ""), "missing field dataBytes"),
                Arguments.of(SPANS_JSON.replace("\"createdUnixMillis\": 1700000000000,", ""), "missing field createdUnixMillis"),
                Arguments.of(SPANS_JSON.replace("\"index\": 1,", ""), "missing field batches[1].index"),
                Arguments.of(SPANS_JSON.replace("\"traceIdNullCount\": 1,", ""), "missing field batches[1].traceIdNullCount"),
                Arguments.of(EMPTY_JSON.replace(",\n  \"batches\": []", ""), "missing field batches"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": null,"), "field rows is null"),
                // Wrong types.
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": \"3\","), "field rows should be an integer, found a string"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": 3.0,"), "found a decimal number"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": true,"), "found a boolean"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": [3],"), "found an array"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": 99999999999999999999,"), "found an integer beyond 64 bits"),
                Arguments.of(SPANS_JSON.replace("\"signal\": \"spans\"", "\"signal\": 1"), "field signal should be a string"),
                Arguments.of(SPANS_JSON.replace("\"format\": \"needle-block\"", "\"format\": {}"), "found an object"),
                Arguments.of(EMPTY_JSON.replace("\"batches\": []", "\"batches\": {}"), "field batches should be an array"),
                Arguments.of(EMPTY_JSON.replace("\"batches\": []", "\"batches\": [1]"), "batches[0] is not an object"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 2,", "\"rows\": 4294967298,"), "batches[0].rows (4294967298) does not fit in 32 bits"),
                Arguments.of(SPANS_JSON.replace("\"minTraceId\": \"0af7", "\"minTraceId\": 7, \"x\": \"0af7"), "should be a hex string"),
                Arguments.of(SPANS_JSON.replace("\"minTraceId\": \"0af7", "\"minTraceId\": \"zzf7"), "batches[0].minTraceId is not hex"),
                Arguments.of(SPANS_JSON.replace("\"minTraceId\": \"0af7", "\"minTraceId\": \"af7"), "batches[0].minTraceId is not hex"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": 3, \"rows\": 3,"), "duplicate field rows"),
                Arguments.of(SPANS_JSON.replace("\"index\": 1,", "\"index\": 1, \"index\": 1,"), "duplicate field batches[1].index"),
                // Negative counts and sizes.
                Arguments.of(SPANS_JSON.replace("\"dataBytes\": 2048,", "\"dataBytes\": -1,"), "dataBytes (-1) must be >= 0"),
                Arguments.of(SPANS_JSON.replace("\"attrIdxBytes\": 0,", "\"attrIdxBytes\": -8,"), "attrIdxBytes (-8)"),
                Arguments.of(SPANS_JSON.replace("\"distinctTraceIds\": 2,", "\"distinctTraceIds\": -2,"), "distinctTraceIds (-2)"),
                Arguments.of(SPANS_JSON.replace("\"traceIdNullCount\": 0,", "\"traceIdNullCount\": -1,"), "batches[0]: traceIdNullCount (-1)"),
                Arguments.of(SPANS_JSON.replace("\"firstRow\": 0,", "\"firstRow\": -1,"), "batches[0]: firstRow (-1)"),
                Arguments.of(LOGS_JSON.replace("\"severityNullCount\": 100", "\"severityNullCount\": -100"), "severityNullCount (-100)"),
                // Counts that cannot be.
                Arguments.of(SPANS_JSON.replace("\"distinctTraceIds\": 2,", "\"distinctTraceIds\": 4,"), "distinctTraceIds (4) > rows (3)"),
                Arguments.of(SPANS_JSON.replace("\"traceIdNullCount\": 1,", "\"traceIdNullCount\": 2,"), "traceIdNullCount (2) must be between 0 and rows (1)"),
                Arguments.of(SPANS_JSON.replace("\"traceIdNullCount\": 0,", "\"traceIdNullCount\": 2,"), "must be null exactly when"),
                Arguments.of(SPANS_JSON.replace("\"traceIdNullCount\": 1,", "\"traceIdNullCount\": 0,"), "must be null exactly when"),
                Arguments.of(LOGS_JSON.replace("\"severityNullCount\": 2", "\"severityNullCount\": 1"), "must be null exactly when"),
                Arguments.of(SPANS_JSON.replace("\"minTraceId\": \"0af7651916cd43dd8448eb211c80319c\",", ""), "must be null exactly when"),
                Arguments.of(SPANS_JSON.replace("\"minTraceId\": \"0af7651916cd43dd8448eb211c80319c\"", "\"minTraceId\": \"\""), "must not be empty"),
                // A minimum above its maximum.
                Arguments.of(SPANS_JSON.replace("\"minTimeUnixNano\": 1000,\n  \"maxTimeUnixNano\": 3000,",
                        "\"minTimeUnixNano\": 3000,\n  \"maxTimeUnixNano\": 1000,"), "minTimeUnixNano (3000) > maxTimeUnixNano (1000)"),
                Arguments.of(SPANS_JSON.replace("\"maxTimeUnixNano\": 2000,", "\"maxTimeUnixNano\": 999,"), "batches[0]: minTimeUnixNano (1000) > maxTimeUnixNano (999)"),
                Arguments.of(SPANS_JSON.replace("\"maxTraceId\": \"4bf9", "\"maxTraceId\": \"0000"), "batches[0]: minTraceId (0af7"),
                Arguments.of(SPANS_JSON.replace("\"maxDurationNano\": 70", "\"maxDurationNano\": 4"), "minDurationNano (5) > maxDurationNano (4)"),
                Arguments.of(LOGS_JSON.replace("\"maxSeverity\": 17", "\"maxSeverity\": 8"), "minSeverity (9) > maxSeverity (8)"),
                // Batches that do not cover the rows one after another, or stray outside the block.
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": 4,"), "the batches hold 3 rows, the block 4"),
                Arguments.of(REPLACING_JSON.replace("_abc\"", "_ABC\""), "field replaces[0] is not a block name"),
                Arguments.of(REPLACING_JSON.replace("\"20251129T195500.100Z_20251129T195500.200Z_abc\"", "7"),
                        "field replaces[0] should be a block name, found an integer"),
                Arguments.of(REPLACING_JSON.replace("_abc\"", "_abc\", \"20251129T195500.100Z_20251129T195500.200Z_abc\""),
                        "field replaces[1] names 20251129T195500.100Z_20251129T195500.200Z_abc a second time"),
                Arguments.of(EMPTY_JSON.replace("\"batches\": []", "\"batches\": [], \"replaces\": {}"),
                        "field replaces should be an array of block names"),
                Arguments.of(SPANS_JSON.replace("\"firstRow\": 2,", "\"firstRow\": 3,"), "batches[1]: firstRow is 3, the previous batches end at row 2"),
                Arguments.of(SPANS_JSON.replace("\"index\": 1,", "\"index\": 2,"), "batches[1]: index is 2"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 1,", "\"rows\": 0,"), "batches[1]: rows (0) must be >= 1"),
                Arguments.of(SPANS_JSON.replace("\"maxTimeUnixNano\": 3000,\n  \"distinct", "\"maxTimeUnixNano\": 2999,\n  \"distinct"),
                        "batches[1]: time range 3000..3000 is outside the block's 1000..2999"),
                // Zone maps of the wrong signal.
                Arguments.of(SPANS_JSON.replace(",\n      \"maxDurationNano\": 0", "").replace(",\n      \"minDurationNano\": 0", ""),
                        "batches[1]: a spans batch needs minDurationNano"),
                Arguments.of(SPANS_JSON.replace("\"traceIdNullCount\": 1,", "\"traceIdNullCount\": 1, \"severityNullCount\": 1,"),
                        "batches[1]: a spans batch has no severityNullCount"),
                Arguments.of(LOGS_JSON.replace("\"traceIdNullCount\": 2,", "\"traceIdNullCount\": 2, \"minDurationNano\": 1, \"maxDurationNano\": 1,"),
                        "batches[1]: a logs batch has no minDurationNano"),
                Arguments.of(LOGS_JSON.replace(",\n      \"severityNullCount\": 2", ""), "batches[1]: a logs batch needs severityNullCount"),
                Arguments.of(LOGS_JSON.replace("\"maxSeverity\": 17,", ""), "minSeverity and maxSeverity must be null exactly when"),
                // Checksums: required from version 2, unknown to version 1, an unsigned 32-bit integer.
                Arguments.of(SPANS_V2_JSON.replace(",\n      \"crc32c\": 0", ""), "batches[1]: a batch of writer version 2 needs a crc32c"),
                // Column checksums: required from version 3, unknown before, offsets from 0 up, one checksum each.
                Arguments.of(SPANS_V3_JSON.replace(",\n      \"columnCrc32c\": [3, 2, 1]", ""), "missing field batches[1].columnCrc32c"),
                Arguments.of(SPANS_V3_JSON.replace("\"headerCrc32c\": 0,", ""), "missing field batches[1].headerCrc32c"),
                Arguments.of(SPANS_V3_JSON.replaceAll(",\n      \"headerCrc32c\": \\d+,\n      \"columnOffsets\": \\[[0-9, ]*\\],"
                        + "\n      \"columnCrc32c\": \\[[0-9, ]*\\]", ""),
                        "batches[0]: a batch of writer version 3 needs headerCrc32c, columnOffsets and columnCrc32c"),
                Arguments.of(SPANS_V3_JSON.replace("\"writerVersion\": 3", "\"writerVersion\": 2"),
                        "batches[0]: a batch of writer version 2 has no headerCrc32c, columnOffsets or columnCrc32c"),
                Arguments.of(SPANS_V3_JSON.replace("[0, 8, 200]", "[1, 8, 200]"), "batches[1]: columnOffsets[0] (1) must be 0"),
                Arguments.of(SPANS_V3_JSON.replace("[0, 8, 200]", "[0, 200, 8]"), "batches[1]: columnOffsets[2] (8) < columnOffsets[1] (200)"),
                Arguments.of(SPANS_V3_JSON.replace("[3, 2, 1]", "[3, 2]"), "batches[1]: columnOffsets (3) and columnCrc32c (2) must list the same columns"),
                Arguments.of(SPANS_V3_JSON.replace("[3, 2, 1]", "[3, 2, 4294967296]"), "batches[1]: columnCrc32c[2] (4294967296) must be an unsigned 32-bit value"),
                Arguments.of(SPANS_V3_JSON.replace("[3, 2, 1]", "[3, null, 1]"), "field batches[1].columnCrc32c[1] is null"),
                Arguments.of(SPANS_V3_JSON.replace("[3, 2, 1]", "3"), "field batches[1].columnCrc32c should be an array of integers, found an integer"),
                Arguments.of(SPANS_V2_JSON.replace("\"crc32c\": 0", "\"crc32c\": null"), "batches[1]: a batch of writer version 2 needs a crc32c"),
                Arguments.of(SPANS_V2_JSON.replace("\"writerVersion\": 2", "\"writerVersion\": 1"), "batches[0]: a batch of writer version 1 has no crc32c"),
                Arguments.of(SPANS_V2_JSON.replace("\"crc32c\": 4294967295", "\"crc32c\": 4294967296"), "batches[0]: crc32c (4294967296) must be an unsigned 32-bit value"),
                Arguments.of(SPANS_V2_JSON.replace("\"crc32c\": 0", "\"crc32c\": -1"), "batches[1]: crc32c (-1) must be an unsigned 32-bit value"),
                Arguments.of(SPANS_V2_JSON.replace("\"crc32c\": 0", "\"crc32c\": \"0\""), "field batches[1].crc32c should be an integer, found a string"),
                Arguments.of(SPANS_V2_JSON.replace("\"crc32c\": 0", "\"crc32c\": 0.5"), "found a decimal number"),
                // The checksum of the file's own bytes: required from version 4, unknown before, and checked.
                Arguments.of(SPANS_V4_JSON.replace("\"maxDurationNano\": 70", "\"maxDurationNano\": 71"),
                        "checksum failed: metaCrc32c is 3846209702, the file's bytes give "),
                Arguments.of(SPANS_V4_JSON.replace("3846209702", "3846209703"), "checksum failed: metaCrc32c is 3846209703"),
                Arguments.of(SPANS_V4_JSON.replace("\n  \"metaCrc32c\": 3846209702,", ""), "missing field metaCrc32c"),
                Arguments.of(SPANS_V4_JSON.replace("3846209702", "null"), "field metaCrc32c is null"),
                Arguments.of(SPANS_V4_JSON.replace("3846209702", "\"3846209702\""),
                        "field metaCrc32c should be an integer, found a string"),
                Arguments.of(SPANS_V4_JSON.replace("3846209702", "4294967296"),
                        "field metaCrc32c (4294967296) must be an unsigned 32-bit value"),
                Arguments.of(SPANS_V4_JSON.replace("\"writerVersion\": 4", "\"writerVersion\": 3"),
                        "field metaCrc32c in a meta.json of writerVersion 3, which has none"),
                Arguments.of(SPANS_V4_JSON.replace("\"rows\": 3,", "\"rows\": 3, \"metaCrc32c\": 3846209702,"),
                        "duplicate field metaCrc32c"),
                // The header: read first, wherever it is, and as strictly as the rest.
                Arguments.of(SPANS_JSON.replace("\"format\": \"needle-block\"", "\"format\": 1"),
                        "field format should be a string, found an integer"),
                Arguments.of(SPANS_JSON.replace("\"format\": \"needle-block\"", "\"format\": null"), "field format is null"),
                Arguments.of(SPANS_JSON.replace("\"writerVersion\": 1,", ""), "missing field writerVersion"),
                Arguments.of(SPANS_JSON.replace("\"writerVersion\": 1", "\"writerVersion\": 4294967297"),
                        "field writerVersion (4294967297) does not fit in 32 bits"),
                Arguments.of(SPANS_JSON.replace("\"writerVersion\": 1,", "").replace("\"rows\": 3,", "\"rows\": \"3\", \"writerVersion\": 7,"),
                        "writerVersion 7 is newer than this reader (4)"),
                // Values of the wrong shape, named by the field that holds them.
                Arguments.of(SPANS_JSON.replace("\"signal\": \"spans\"", "\"signal\": [\"spans\"]"),
                        "field signal should be a string, found an array"),
                Arguments.of(SPANS_JSON.replace("\"signal\": \"spans\"", "\"signal\": null"), "field signal is null"),
                Arguments.of(SPANS_JSON.replace("\"minTraceId\": \"0af7651916cd43dd8448eb211c80319c\"", "\"minTraceId\": {}"),
                        "field batches[0].minTraceId should be a hex string, found an object"),
                Arguments.of(EMPTY_JSON.replace("\"batches\": []", "\"batches\": null"), "field batches is null"),
                Arguments.of(EMPTY_JSON.replace("\"batches\": []", "\"batches\": [null]"), "field batches[0] is null"),
                Arguments.of(EMPTY_JSON.replace("\"batches\": []", "\"batches\": [[]]"), "batches[0] is not an object"),
                Arguments.of(SPANS_JSON.replace("\"index\": 1,", "\"index\": null,"), "field batches[1].index is null"),
                // Duplicates anywhere, also inside a field this reader skips.
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": 3, \"future\": {\"a\": 1, \"a\": 2},"),
                        "duplicate field future.a"),
                Arguments.of(SPANS_JSON.replace("\"rows\": 3,", "\"rows\": 3, \"format\": \"needle-block\","),
                        "duplicate field format"));
    }

    @ParameterizedTest(name = "[{index}] {1}")
    @MethodSource("corruptions")
    void read_corrupt_throwsCorruptMetaNamingTheProblem(String json, String problem) {
        CorruptMetaException e = assertThrows(CorruptMetaException.class, () -> BlockMetaJson.read(utf8(json)));
        assertTrue(e.getMessage().contains(problem), () -> "message: " + e.getMessage());
    }

    @Test
    void read_invalidUtf8_corrupt() {
        byte[] json = utf8(SPANS_JSON);
        int at = SPANS_JSON.indexOf("needle-block");
        json[at] = (byte) 0xC3;
        json[at + 1] = (byte) 0x28;
        assertThrows(CorruptMetaException.class, () -> BlockMetaJson.read(json));
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void read_everyTruncation_corrupt(BlockMeta meta, String json) {
        byte[] full = utf8(json);
        for (int length = 0; length < full.length; length++) {
            byte[] truncated = Arrays.copyOf(full, length);
            assertCorruptOnly(truncated, true);
        }
    }

    @ParameterizedTest
    @MethodSource("goldens")
    void read_everyLineRemoved_corrupt(BlockMeta meta, String json) {
        // Every line holds a required fact, a bracket, or one half of a min/max pair; a name in replaces
        // is none of these (without it the block replaces one block fewer), and is read back as it is.
        List<String> lines = List.of(json.split("\n"));
        for (int i = 0; i < lines.size(); i++) {
            List<String> rest = new ArrayList<>(lines);
            String removed = rest.remove(i);
            boolean aReplacedName = removed.startsWith("    \"");
            assertCorruptOnly(utf8(String.join("\n", rest)), !aReplacedName);
        }
    }

    /**
     * Version 4: every single bit flipped anywhere in a file, and in the golden blocks' files every digit and
     * hex letter changed into another that keeps the JSON valid (the damage that would otherwise pass for
     * another zone map: {@code 0} into {@code 1}), is corrupt.
     */
    @Test
    void read_version4AnyFlipOrDigitChange_corrupt() throws IOException {
        byte[] text = utf8(SPANS_V4_JSON);
        for (int at = 0; at < text.length; at++) {
            for (int bit = 0; bit < 8; bit++) {
                byte[] damaged = text.clone();
                damaged[at] ^= (byte) (1 << bit);
                assertCorruptOnly(damaged, true);
            }
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(Path.of("src/test/resources/golden/data-v4"))) {
            files = walk.filter(f -> f.endsWith("meta.json")).toList();
        }
        assertEquals(2, files.size());
        for (Path file : files) {
            byte[] golden = Files.readAllBytes(file);
            for (int at = 0; at < golden.length; at++) {
                byte[] damaged = golden.clone();
                byte c = golden[at];
                if (c >= '0' && c <= '9') {
                    damaged[at] ^= 1;
                } else if (c >= 'a' && c <= 'f') {
                    damaged[at] = (byte) ('a' + (c - 'a' + 1) % 6);
                } else {
                    continue;
                }
                assertCorruptOnly(damaged, true);
            }
        }
    }

    /**
     * The worked example of docs/FORMAT.md: the text printed there is what the writer writes for an empty
     * block of logs, and its metaCrc32c is the CRC-32C of the byte ranges the document names.
     */
    @Test
    void formatDoc_workedExample_isWrittenAndItsChecksumCoversTheNamedBytes() throws IOException {
        String doc = Files.readString(Path.of("../docs/FORMAT.md"));
        String marker = "<!-- meta.json version 4 worked example -->\n```json\n";
        int start = doc.indexOf(marker);
        assertTrue(start >= 0, "FORMAT.md has the worked example");
        start += marker.length();
        String example = doc.substring(start, doc.indexOf("\n```", start));
        BlockMeta empty = new BlockMeta(4, Signal.LOGS, 0, 0, 0, 0, 0, 0, 0, 0, 0, List.of());
        assertEquals(example, new String(BlockMetaJson.write(empty), StandardCharsets.UTF_8));
        assertEquals(empty, BlockMetaJson.read(utf8(example)));
        Matcher stated = Pattern.compile(
                "is (\\d+) bytes long; the value's digits are bytes (\\d+)\\.\\.(\\d+), so metaCrc32c is the CRC-32C of "
                + "bytes 0\\.\\.\\2 followed by bytes \\3\\.\\.\\1: (\\d+)").matcher(doc.substring(start));
        assertTrue(stated.find(), "FORMAT.md names the bytes of the worked example");
        byte[] file = utf8(example);
        int from = Integer.parseInt(stated.group(2));
        int to = Integer.parseInt(stated.group(3));
        assertEquals(file.length, Integer.parseInt(stated.group(1)));
        assertEquals(stated.group(4), new String(file, from, to - from, StandardCharsets.US_ASCII));
        CRC32C crc = new CRC32C();
        crc.update(file, 0, from);
        crc.update(file, to, file.length - to);
        assertEquals(Long.parseLong(stated.group(4)), crc.getValue());
    }

    @Test
    void read_randomDamage_metaOrCorrupt() {
        SplittableRandom random = new SplittableRandom(11);
        byte[][] goldens = {utf8(SPANS_JSON), utf8(LOGS_JSON), utf8(EMPTY_JSON), utf8(SPANS_V2_JSON), utf8(LOGS_V2_JSON),
            utf8(SPANS_V4_JSON)};
        for (int i = 0; i < 5_000; i++) {
            byte[] json = goldens[random.nextInt(goldens.length)].clone();
            for (int n = 1 + random.nextInt(3); n > 0; n--) {
                int at = random.nextInt(json.length);
                if (random.nextBoolean()) {
                    json[at] ^= (byte) (1 << random.nextInt(8));
                } else {
                    json[at] = (byte) "0123456789-\"{}[],:.e \u0000".charAt(random.nextInt(22));
                }
            }
            assertCorruptOnly(json, false);
        }
        for (int i = 0; i < 5_000; i++) {
            byte[] garbage = new byte[random.nextInt(200)];
            for (int j = 0; j < garbage.length; j++) {
                garbage[j] = (byte) random.nextInt(256);
            }
            assertCorruptOnly(garbage, true);
        }
    }

    /** Reads {@code json}: a CorruptMetaException is fine and any other exception fails; a meta read must write back readable. */
    private static void assertCorruptOnly(byte[] json, boolean mustBeCorrupt) {
        BlockMeta meta;
        try {
            meta = BlockMetaJson.read(json);
        } catch (CorruptMetaException e) {
            return;
        } catch (RuntimeException | Error e) {
            throw new AssertionError("threw " + e + " for:\n" + new String(json, StandardCharsets.UTF_8), e);
        }
        if (mustBeCorrupt) {
            throw new AssertionError("accepted:\n" + new String(json, StandardCharsets.UTF_8));
        }
        try {
            assertEquals(meta, BlockMetaJson.read(BlockMetaJson.write(meta)));
        } catch (CorruptMetaException e) {
            throw new AssertionError("wrote what it cannot read: " + meta, e);
        }
    }

    private static BlockMeta randomMeta(SplittableRandom random) {
        Signal signal = random.nextBoolean() ? Signal.SPANS : Signal.LOGS;
        int version = random.nextBoolean() ? BlockMeta.WRITER_VERSION_1 : BlockMeta.WRITER_VERSION_2;
        long blockMin = random.nextLong(-1_000_000, Long.MAX_VALUE / 2);
        long blockMax = blockMin;
        List<BatchMeta> batches = new ArrayList<>();
        long rows = 0;
        for (int i = random.nextInt(5); i > 0; i--) {
            int batchRows = 1 + random.nextInt(8192);
            long min = blockMin + random.nextLong(1_000_000_000);
            long max = min + random.nextLong(1_000_000_000);
            blockMax = Math.max(blockMax, max);
            int traceNulls = random.nextInt(4) == 0 ? batchRows : random.nextInt(batchRows);
            Bytes minTrace = traceNulls == batchRows ? null : randomId(random);
            Bytes maxTrace = minTrace == null ? null : randomId(random);
            if (minTrace != null && minTrace.compareTo(maxTrace) > 0) {
                Bytes swap = minTrace;
                minTrace = maxTrace;
                maxTrace = swap;
            }
            Long minDuration = signal == Signal.SPANS ? random.nextLong(-10, 1_000_000) : null;
            Long maxDuration = minDuration == null ? null : minDuration + random.nextLong(Long.MAX_VALUE / 2);
            Integer severityNulls = signal == Signal.LOGS ? (random.nextBoolean() ? batchRows : random.nextInt(batchRows)) : null;
            boolean severities = severityNulls != null && severityNulls < batchRows;
            Integer minSeverity = severities ? 1 + random.nextInt(24) : null;
            Integer maxSeverity = severities ? minSeverity + random.nextInt(24) : null;
            batches.add(new BatchMeta(batches.size(), rows, batchRows, min, max, minTrace, maxTrace, traceNulls,
                    minDuration, maxDuration, minSeverity, maxSeverity, severityNulls,
                    version == BlockMeta.WRITER_VERSION_1 ? null : random.nextLong(BatchMeta.MAX_CRC32C + 1)));
            rows += batchRows;
        }
        return new BlockMeta(version, signal, rows, random.nextLong(Long.MAX_VALUE), blockMin, blockMax,
                (int) Math.min(rows, random.nextInt(100_000)), random.nextLong(1 << 30), random.nextLong(1 << 30),
                random.nextLong(Long.MAX_VALUE), random.nextLong(), batches);
    }

    private static Bytes randomId(SplittableRandom random) {
        byte[] id = new byte[random.nextInt(8) == 0 ? 8 : 16];
        for (int i = 0; i < id.length; i++) {
            id[i] = (byte) random.nextInt(256);
        }
        return Bytes.wrap(id);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
