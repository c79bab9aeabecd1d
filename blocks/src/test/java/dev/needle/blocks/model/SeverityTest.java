package dev.needle.blocks.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SeverityTest {

    @Test
    void eachSeverity_isARangeOfFourNumbers_namedAsOtlpAndQueriesWriteIt() {
        assertEquals(List.of("trace", "debug", "info", "warn", "error", "fatal"), Severity.words());
        assertEquals(13, Severity.WARN.number());
        assertEquals(Optional.of(Severity.WARN), Severity.of(13));
        assertEquals(Optional.of(Severity.WARN), Severity.of(16));
        assertEquals(Optional.of(Severity.TRACE), Severity.of(1));
        assertEquals(Optional.of(Severity.FATAL), Severity.of(24));
        assertEquals(Optional.empty(), Severity.of(0));
        assertEquals(Optional.empty(), Severity.of(25));
        assertEquals("TRACE", Severity.otlpName(1));
        assertEquals("INFO", Severity.otlpName(9));
        assertEquals("WARN2", Severity.otlpName(14));
        assertEquals("FATAL4", Severity.otlpName(24));
        assertThrows(IllegalArgumentException.class, () -> Severity.otlpName(0));
    }
}
