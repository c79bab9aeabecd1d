package dev.needle.query.head;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.engine.HeadSource.Part;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The head's wire form: golden bytes, a round trip of real records, large parts split, and bodies cut short refused. */
class HeadPartsFormatTest {

    private static final Resource RESOURCE = new Resource(List.of(KeyValue.of("service.name", "head")), 0, "");
    private static final Scope SCOPE = new Scope("head", "1", List.of(), 0, "");

    private static <R> byte[] write(HeadPartsFormat<R> format, List<Part<R>> parts) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        format.write(parts, out);
        return out.toByteArray();
    }

    @Test
    void write_emptyParts_goldenBytes() throws IOException {
        byte[] bytes = write(HeadPartsFormat.LOGS, List.of(new Part<>("B1", List.of()), Part.unreadable("p")));
        // part 1: block_id "B1", records empty; part 2: records empty, problem "p"; parts = 2.
        assertEquals("0a060a0242311200" + "0a0512001a0170" + "7802", HexFormat.of().formatHex(bytes));
    }

    @Test
    void read_roundTripsSpansAndLogs_withTheirBlockIds() throws IOException {
        List<SpanRecord> spans = spans(3);
        List<Part<SpanRecord>> parts = List.of(new Part<>("cut-7", spans.subList(0, 2)), new Part<>(null, spans.subList(2, 3)));
        assertEquals(parts, HeadPartsFormat.SPANS.read(new ByteArrayInputStream(write(HeadPartsFormat.SPANS, parts))));

        LogRecord log = LogRecord.builder().resource(RESOURCE).scope(SCOPE).timeUnixNano(1_764_446_100_000_000_000L)
                .severityNumber(9).severityText("INFO").body(AnyValue.of("line"))
                .attributes(List.of(KeyValue.of("k", 1))).traceId(Bytes.fromHex("4bf92f3577b34da6a3ce929d0e0e4736"))
                .build();
        List<Part<LogRecord>> logs = List.of(new Part<>("b", List.of(log)));
        assertEquals(logs, HeadPartsFormat.LOGS.read(new ByteArrayInputStream(write(HeadPartsFormat.LOGS, logs))));
    }

    @Test
    void write_aPublishedBlocksName_goldenBytes_andReadBack() throws IOException {
        List<Part<SpanRecord>> parts = List.of(Part.published("B1", "N"));
        byte[] bytes = write(HeadPartsFormat.SPANS, parts);
        // part: block_id "B1", records empty, published "N"; parts = 1.
        assertEquals("0a090a02423112002201" + "4e" + "7801", HexFormat.of().formatHex(bytes));
        assertEquals(parts, HeadPartsFormat.SPANS.read(new ByteArrayInputStream(bytes)));
    }

    @Test
    void write_aLargePart_isSentAsSeveralWithItsBlockId() throws IOException {
        List<SpanRecord> spans = spans(HeadPartsFormat.MAX_RECORDS_PER_PART + 5);
        List<Part<SpanRecord>> read = HeadPartsFormat.SPANS.read(new ByteArrayInputStream(
                write(HeadPartsFormat.SPANS, List.of(new Part<>("big", spans)))));
        assertEquals(2, read.size());
        assertEquals(List.of("big", "big"), read.stream().map(Part::blockId).toList());
        assertEquals(spans, read.stream().flatMap(p -> p.records().stream()).toList());
    }

    @Test
    void read_aBodyCutShortAnywhere_isRefused() throws IOException {
        byte[] bytes = write(HeadPartsFormat.SPANS, List.of(new Part<>("a", spans(2)), new Part<>(null, spans(1))));
        for (int length = 0; length < bytes.length; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            IOException e = assertThrows(IOException.class,
                    () -> HeadPartsFormat.SPANS.read(new ByteArrayInputStream(cut)), "cut at " + length);
            assertTrue(e.getMessage().contains("cut short") || e.getMessage().contains("not a head answer")
                    || e.getMessage().contains("OTLP"), e.getMessage());
        }
    }

    @Test
    void read_unknownFields_areSkipped() throws IOException {
        byte[] known = write(HeadPartsFormat.SPANS, List.of(new Part<>("a", spans(1))));
        // A later version's field 9 (a string) before everything else.
        byte[] later = new byte[known.length + 3];
        later[0] = (byte) 0x4a;
        later[1] = 1;
        later[2] = 'x';
        System.arraycopy(known, 0, later, 3, known.length);
        assertArrayEquals(known, write(HeadPartsFormat.SPANS, HeadPartsFormat.SPANS.read(new ByteArrayInputStream(later))));
    }

    private static List<SpanRecord> spans(int n) {
        List<SpanRecord> out = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            long start = 1_764_446_100_000_000_000L + i;
            out.add(SpanRecord.builder().resource(RESOURCE).scope(SCOPE)
                    .traceId(Bytes.fromHex(String.format("%032x", i % 7 + 1)))
                    .spanId(Bytes.fromHex(String.format("%016x", i))).name("op-" + i).kind(2).startTimeUnixNano(start)
                    .endTimeUnixNano(start + 1000).attributes(List.of(KeyValue.of("i", i))).build());
        }
        return out;
    }
}
