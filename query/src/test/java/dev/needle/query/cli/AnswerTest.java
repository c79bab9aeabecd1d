package dev.needle.query.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.SpanRecord;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The trace tree prints every span exactly once, whatever the parent links say. */
final class AnswerTest {

    private static final Bytes TRACE = Bytes.fromHex("0102030405060708090a0b0c0d0e0f10");

    @Test
    void print_orphansAndParentCycles_printEverySpanOnce() {
        List<SpanRecord> spans = List.of(
                span("00000000000000a1", "", "root", 0),
                span("00000000000000b1", "00000000000000ff", "orphan", 10),   // its parent never arrived
                span("00000000000000c1", "00000000000000c2", "cycle one", 20),
                span("00000000000000c2", "00000000000000c1", "cycle two", 30),
                span("00000000000000a2", "00000000000000a1", "child", 40));
        StringWriter out = new StringWriter();
        new Answer.Trace(TRACE, spans, List.of(), false, List.of(), List.of()).print(new PrintWriter(out, true));
        // What follows the span id column: the indentation and the span.
        List<String> names = out.toString().lines().skip(3).map(l -> l.replaceFirst(".*[0-9a-f]{16}  ", "")).toList();
        assertEquals(List.of("svc: root", "  svc: child", "svc: orphan", "svc: cycle one", "  svc: cycle two"), names);
    }

    private static SpanRecord span(String id, String parent, String name, long start) {
        return SpanRecord.builder().resource(new Resource(List.of(KeyValue.of("service.name", "svc")), 0, ""))
                .traceId(TRACE).spanId(Bytes.fromHex(id))
                .parentSpanId(parent.isEmpty() ? Bytes.EMPTY : Bytes.fromHex(parent)).name(name).kind(1)
                .startTimeUnixNano(start).endTimeUnixNano(start + 5).build();
    }
}
