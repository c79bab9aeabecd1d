package dev.needle.blocks.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class TenantIdTest {

    @Test
    void of_validIds_accepted() {
        for (String id : new String[] {"a", "Z", "0", "single-tenant", "Acme_Corp.prod-1", "...", ".a", "a..b",
                "-", "_", "wall", "x".repeat(150)}) {
            assertEquals(id, TenantId.of(id).value());
        }
    }

    @Test
    void of_null_refused() {
        assertProblem(null, "missing");
    }

    @Test
    void of_empty_refused() {
        assertProblem("", "empty");
    }

    @Test
    void of_151Characters_refusedAndTruncated() {
        String message = assertProblem("x".repeat(151), "too long: 151 characters, at most 150");
        assertTrue(message.contains("\"" + "x".repeat(40) + "\"... (151 characters)"), message);
    }

    @Test
    void of_dotAndDotDot_refused() {
        assertProblem(".", "must not be \".\" or \"..\"");
        assertProblem("..", "must not be \".\" or \"..\"");
    }

    @Test
    void of_pathSeparators_refused() {
        assertProblem("../x", "at index 2 (U+002F): \"../x\"");
        assertProblem("a/b", "at index 1 (U+002F): \"a/b\"");
        assertProblem("a\\b", "at index 1 (U+005C): \"a\\\\b\"");
    }

    @Test
    void of_controlCharacters_refusedAndEscaped() {
        String message = assertProblem("a\0b", "at index 1 (U+0000): \"a\\u0000b\"");
        assertFalse(message.chars().anyMatch(c -> c < 0x20 || c >= 0x7f), message);
        assertProblem("a\nb", "(U+000A)");
        assertProblem("a\"b", "(U+0022): \"a\\\"b\"");
    }

    @Test
    void of_unicodeLetters_refused() {
        assertProblem("café", "at index 3 (U+00E9): \"caf\\u00e9\"");
        assertProblem("ｓ", "(U+FF53)");
        assertProblem("\uD83D\uDE00", "(U+D83D): \"\\ud83d\\ude00\"");
    }

    @Test
    void of_spaces_refused() {
        assertProblem("a b", "at index 1 (U+0020)");
        assertProblem(" a", "at index 0 (U+0020)");
        assertProblem("a ", "at index 1 (U+0020)");
    }

    @Test
    void of_wal_refusedInAnyCase() {
        assertProblem("wal", "\"wal\" is reserved");
        assertProblem("WAL", "\"WAL\" is reserved");
        assertProblem("Wal", "is reserved");
    }

    @Test
    void constructor_validates() {
        assertThrows(IllegalArgumentException.class, () -> new TenantId("a/b"));
    }

    @Test
    void fromHeader_absentOrBlank_isDefault() {
        assertEquals("single-tenant", TenantId.DEFAULT.value());
        assertEquals(TenantId.DEFAULT, TenantId.fromHeader(null));
        assertEquals(TenantId.DEFAULT, TenantId.fromHeader(""));
        assertEquals(TenantId.DEFAULT, TenantId.fromHeader("  \t"));
        assertEquals(TenantId.of("acme"), TenantId.fromHeader("acme"));
        assertThrows(IllegalArgumentException.class, () -> TenantId.fromHeader("../etc"));
    }

    /** Asserts {@code raw} is refused with a message containing {@code expected}; returns the message. */
    private static String assertProblem(String raw, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TenantId.of(raw));
        assertTrue(e.getMessage().startsWith("tenant id "), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(TenantId.isValid(raw));
        return e.getMessage();
    }
}
