package dev.needle.query.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

/** The command line's value converters. */
final class ArgsTest {

    @Test
    void duration_unitsAndSums_parse() {
        assertEquals(Duration.ofMinutes(15), Args.duration("15m"));
        assertEquals(Duration.ofHours(2), Args.duration("2h"));
        assertEquals(Duration.ofDays(7), Args.duration("7d"));
        assertEquals(Duration.ofDays(14), Args.duration("2w"));
        assertEquals(Duration.ofMillis(1500), Args.duration("1s500ms"));
        assertEquals(Duration.ofMinutes(90), Args.duration("1h30m"));
        assertEquals(Duration.ofSeconds(45), Args.duration(" 45S "));
    }

    @Test
    void duration_malformedZeroOrHuge_isRefused() {
        for (String bad : List.of("", "15", "m", "1.5h", "-2h", "2h-", "0s", "1 h", "1y", "soon")) {
            assertThrows(TypeConversionException.class, () -> Args.duration(bad), bad);
        }
        TypeConversionException huge = assertThrows(TypeConversionException.class, () -> Args.duration("999999999w"));
        assertEquals("duration '999999999w' is too long", huge.getMessage());
    }

    @Test
    void instant_rfc3339AndUnixSeconds_giveUnixNanos() {
        assertEquals(1_795_983_300_000_000_000L, Args.instant("2026-11-29T20:15:00Z"));
        assertEquals(1_795_983_300_000_000_000L, Args.instant("2026-11-29t21:15:00+01:00"));
        assertEquals(1_795_983_300_123_456_789L, Args.instant("2026-11-29T20:15:00.123456789Z"));
        assertEquals(1_795_983_300_000_000_000L, Args.instant("1795983300"));
        assertEquals(1_795_983_300_500_000_000L, Args.instant("1795983300.5"));
        assertEquals(0L, Args.instant("0"));
    }

    @Test
    void instant_malformed_isRefused() {
        for (String bad : List.of("", "yesterday", "2026-11-29", "2026-11-29T20:15:00", "-5", "1795983300.1234567891",
                "1e9", "2026-13-01T00:00:00Z")) {
            assertThrows(TypeConversionException.class, () -> Args.instant(bad), bad);
        }
    }

    @Test
    void traceId_shortIdsArePaddedAndCaseIgnored() {
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", Args.traceId("4BF92F3577B34DA6A3CE929D0E0E4736").hex());
        assertEquals("0000000000000000a3ce929d0e0e4736", Args.traceId("a3ce929d0e0e4736").hex());
        assertEquals("00000000000000000000000000000001", Args.traceId("1").hex());
        for (String bad : List.of("", "xyz", "4bf92f3577b34da6a3ce929d0e0e47361", "4bf9-2f35", "０")) {
            assertThrows(TypeConversionException.class, () -> Args.traceId(bad), bad);
        }
    }

    @Test
    void url_httpWithHostOnly() {
        assertEquals("http://127.0.0.1:3200", Args.url("http://127.0.0.1:3200").toString());
        assertEquals("https://needle.example/prefix/", Args.url("https://needle.example/prefix/").toString());
        for (String bad : List.of("127.0.0.1:3200", "ftp://host", "http://", "http://host/?q=1", "http://host/#x",
                "not a url")) {
            assertThrows(TypeConversionException.class, () -> Args.url(bad), bad);
        }
    }

    @Test
    void seconds_keepsNanosecondsExactly() {
        assertEquals("1795983300", HttpSource.seconds(1_795_983_300_000_000_000L));
        assertEquals("1795983300.5", HttpSource.seconds(1_795_983_300_500_000_000L));
        assertEquals("1795983300.000000001", HttpSource.seconds(1_795_983_300_000_000_001L));
        assertEquals("0", HttpSource.seconds(0));
    }
}
