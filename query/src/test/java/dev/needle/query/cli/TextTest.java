package dev.needle.query.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Formatting for people. */
final class TextTest {

    @Test
    void duration_picksTheUnitThatSuits() {
        assertEquals("0ns", Text.duration(0));
        assertEquals("850ns", Text.duration(850));
        assertEquals("12.3us", Text.duration(12_345));
        assertEquals("4.210ms", Text.duration(4_210_000));
        assertEquals("2.500s", Text.duration(2_500_000_000L));
        assertEquals("59m59.877s", Text.duration(3_599_877_000_000L));
        assertEquals("26h0m5.000s", Text.duration(93_605_000_000_000L));
        assertEquals("-1.000ms", Text.duration(-1_000_000));
    }

    @Test
    void severity_textFirstThenOtlpNames() {
        assertEquals("-", Text.severity(0, ""));
        assertEquals("TRACE", Text.severity(1, ""));
        assertEquals("INFO", Text.severity(9, ""));
        assertEquals("WARN2", Text.severity(14, ""));
        assertEquals("FATAL4", Text.severity(24, ""));
        assertEquals("99", Text.severity(99, ""));
        assertEquals("Warning", Text.severity(13, "Warning"));
    }

    @Test
    void value_andCut_keepTablesOneLine() {
        AnyValue nested = new AnyValue.KvList(List.of(KeyValue.of("a", 1), new KeyValue("b",
                new AnyValue.Array(List.of(AnyValue.of(true), AnyValue.of(0.5), AnyValue.Empty.INSTANCE)))));
        assertEquals("{a=1, b=[true, 0.5, ]}", Text.value(nested));
        assertEquals("line one line\ttwo", Text.value(AnyValue.of("line one line\ttwo")));
        assertEquals("line one  two", Text.cut("line one\r\ntwo", 80));
        assertEquals("abcd…", Text.cut("abcdefgh", 5));
    }

    @Test
    void table_alignsColumnsAndRightAlignsNumbers() {
        java.io.StringWriter out = new java.io.StringWriter();
        new Text.Table("name", ">n", "note").row("a", "1", "").row("bbb", "100", "x").print(new java.io.PrintWriter(out));
        assertEquals("name    n  note\na       1\nbbb   100  x\n", out.toString().replace(System.lineSeparator(), "\n"));
    }
}
