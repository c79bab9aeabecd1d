package dev.needle.corpus.otlp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.otlp.OtlpWire;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Request files: named in batch order, whole, decodable back to the batches, the same bytes every time. */
class OtlpFilesTest {

    @TempDir
    Path dir;

    /** Batches of one service each (so that decoding gives them back in order) and of varied sizes. */
    private static List<List<SpanRecord>> spanBatches() {
        List<List<SpanRecord>> batches = new ArrayList<>();
        for (int b = 0; b < 23; b++) {
            batches.add(Records.spans(20, b * 100, 1 + b % 4, 1 + b % 3, b % 5));
        }
        return batches;
    }

    private static List<List<LogRecord>> logBatches() {
        List<List<LogRecord>> batches = new ArrayList<>();
        for (int b = 0; b < 17; b++) {
            batches.add(Records.logs(21, b * 100, 1 + b % 6, b % 3));
        }
        return batches;
    }

    private static Decoded<SpanRecord> decodeSpans(OtlpEncoding encoding, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return encoding == OtlpEncoding.PROTOBUF ? OtlpWire.decodeSpans(in.readAllBytes()) : OtlpJson.decodeSpans(in);
        }
    }

    private static Decoded<LogRecord> decodeLogs(OtlpEncoding encoding, Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return encoding == OtlpEncoding.PROTOBUF ? OtlpWire.decodeLogs(in.readAllBytes()) : OtlpJson.decodeLogs(in);
        }
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @ParameterizedTest
    @EnumSource(OtlpEncoding.class)
    void writeSpans_filesDecodeBackToTheBatchesInOrder(OtlpEncoding encoding) throws Exception {
        List<List<SpanRecord>> batches = spanBatches();
        AtomicLong done = new AtomicLong();
        FilesReport report = new OtlpFiles(dir, encoding, 4).writeSpans(batches.iterator(), done::addAndGet);

        Path traces = dir.resolve("traces");
        assertEquals(traces, report.directory());
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++) {
            expected.add(String.format("%06d.%s", i, encoding.fileExtension()));
        }
        assertEquals(expected, names(traces), "one file per batch, nothing else left behind");
        long records = 0;
        long bytes = 0;
        for (int i = 0; i < batches.size(); i++) {
            Path file = traces.resolve(expected.get(i));
            Decoded<SpanRecord> decoded = decodeSpans(encoding, file);
            assertEquals(0, decoded.rejected(), decoded.message());
            assertEquals(batches.get(i), decoded.records(), expected.get(i));
            records += batches.get(i).size();
            bytes += Files.size(file);
        }
        assertEquals(batches.size(), report.files());
        assertEquals(records, report.records());
        assertEquals(records, done.get());
        assertEquals(bytes, report.bytes());
        assertTrue(report.toText().contains(records + " records in " + batches.size()), report.toText());
    }

    @ParameterizedTest
    @EnumSource(OtlpEncoding.class)
    void writeLogs_filesDecodeBackToTheBatchesInOrder(OtlpEncoding encoding) throws Exception {
        List<List<LogRecord>> batches = logBatches();
        FilesReport report = new OtlpFiles(dir, encoding, 3).writeLogs(batches.iterator(), n -> { });
        Path logs = dir.resolve("logs");
        assertEquals(batches.size(), report.files());
        assertEquals(batches.size(), names(logs).size());
        for (int i = 0; i < batches.size(); i++) {
            Decoded<LogRecord> decoded = decodeLogs(encoding, logs.resolve(OtlpFiles.fileName(i, encoding)));
            assertEquals(batches.get(i), decoded.records());
        }
    }

    @ParameterizedTest
    @EnumSource(OtlpEncoding.class)
    void writeSpans_sameBatchesTwice_byteIdenticalFilesWhateverTheThreads(OtlpEncoding encoding) throws Exception {
        new OtlpFiles(dir.resolve("a"), encoding, 1).writeSpans(spanBatches().iterator(), n -> { });
        new OtlpFiles(dir.resolve("b"), encoding, 8).writeSpans(spanBatches().iterator(), n -> { });
        Path a = dir.resolve("a").resolve("traces");
        Path b = dir.resolve("b").resolve("traces");
        assertEquals(names(a), names(b));
        for (String name : names(a)) {
            assertArrayEquals(Files.readAllBytes(a.resolve(name)), Files.readAllBytes(b.resolve(name)), name);
        }
    }

    @Test
    void writeSpans_emptyBatches_areSkippedWithoutGapsInTheNumbers() throws Exception {
        List<SpanRecord> one = Records.spans(22, 0, 1, 1, 0);
        List<SpanRecord> two = Records.spans(22, 1, 1, 1, 0);
        FilesReport report = new OtlpFiles(dir, OtlpEncoding.PROTOBUF, 2)
                .writeSpans(List.of(List.<SpanRecord>of(), one, List.<SpanRecord>of(), two).iterator(), n -> { });
        assertEquals(2, report.files());
        assertEquals(List.of("000000.binpb", "000001.binpb"), names(dir.resolve("traces")));
        assertEquals(two, decodeSpans(OtlpEncoding.PROTOBUF, dir.resolve("traces").resolve("000001.binpb")).records());
    }

    @Test
    void writeSpans_intoEarlierRequestFiles_refused_butStaleTemporaryFilesRemoved() throws Exception {
        Path traces = Files.createDirectories(dir.resolve("traces"));
        Path stale = Files.writeString(traces.resolve(".000003.json.tmp"), "{\"resourceSp");
        Path unrelated = Files.writeString(traces.resolve("README"), "not a request");
        FilesReport report = new OtlpFiles(dir, OtlpEncoding.JSON, 2).writeSpans(spanBatches().iterator(), n -> { });
        assertFalse(Files.exists(stale), "a crashed run's temporary file is removed");
        assertTrue(Files.exists(unrelated));
        assertEquals(spanBatches().size(), report.files());

        FileAlreadyExistsException e = assertThrows(FileAlreadyExistsException.class,
                () -> new OtlpFiles(dir, OtlpEncoding.PROTOBUF, 2).writeSpans(spanBatches().iterator(), n -> { }));
        assertTrue(e.getMessage().contains("request files from an earlier run"), e.getMessage());
    }

    @Test
    void writeSpans_iteratorFailsMidway_leavesOnlyWholeFilesAndRethrows() throws Exception {
        List<List<SpanRecord>> batches = spanBatches();
        IllegalStateException boom = new IllegalStateException("generator failed");
        Iterator<List<SpanRecord>> failing = new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public List<SpanRecord> next() {
                if (next == 9) {
                    throw boom;
                }
                return batches.get(next++);
            }
        };
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> new OtlpFiles(dir, OtlpEncoding.PROTOBUF, 4).writeSpans(failing, n -> { }));
        assertSame(boom, thrown);
        List<String> names = names(dir.resolve("traces"));
        assertEquals(9, names.size(), names.toString());
        for (int i = 0; i < names.size(); i++) {
            assertEquals(OtlpFiles.fileName(i, OtlpEncoding.PROTOBUF), names.get(i));
            assertEquals(batches.get(i), decodeSpans(OtlpEncoding.PROTOBUF, dir.resolve("traces").resolve(names.get(i))).records());
        }
    }

    @Test
    void fileName_sixDigitsThenMore() {
        assertEquals("000000.binpb", OtlpFiles.fileName(0, OtlpEncoding.PROTOBUF));
        assertEquals("999999.json", OtlpFiles.fileName(999_999, OtlpEncoding.JSON));
        assertEquals("1000000.json", OtlpFiles.fileName(1_000_000, OtlpEncoding.JSON));
        assertThrows(IllegalArgumentException.class, () -> OtlpFiles.fileName(-1, OtlpEncoding.JSON));
    }
}
