package dev.needle.sidecar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one reader of trace-id text: 1 to 32 hex digits, either case, shorter ids zero-padded on the left. */
class TraceIdTextTest {

    @Test
    void parse_shortIdsArePaddedAndCaseIgnored() {
        assertEquals("4bf92f3577b34da6a3ce929d0e0e4736", hex("4BF92F3577B34DA6A3CE929D0E0E4736"));
        assertEquals("0000000000000000a3ce929d0e0e4736", hex("a3ce929d0e0e4736"));
        assertEquals("00000000000000000000000000000001", hex("1"));
    }

    @Test
    void parse_anythingElse_isEmpty() {
        for (String bad : List.of("", " 1", "1 ", "xyz", "4bf92f3577b34da6a3ce929d0e0e47361", "4bf9-2f35", "0x1f", "０")) {
            assertTrue(TraceIdText.parse(bad).isEmpty(), bad);
        }
    }

    private static String hex(String text) {
        byte[] id = TraceIdText.parse(text).orElseThrow();
        assertEquals(TraceIdText.BYTES, id.length);
        return HexFormat.of().formatHex(id);
    }
}
