package dev.needle.ingest.head;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Cut ids with and without a writer: the form on disk, read back, and what is not one. */
class CutIdsTest {

    @Test
    void id_withoutAWriter_isTheFormOfEveryExistingBlock() {
        assertEquals("w0000000000000000005c000n001", CutIds.id("", 5, 0, 1));
        assertEquals(Optional.of(new CutIds.Chunk("", 5, 0, 1)), CutIds.parse("w0000000000000000005c000n001"));
    }

    @Test
    void id_withAWriter_endsWithIt_andReadsBack() {
        String id = CutIds.id("k3v9x2mz7d", 42, 1, 3);
        assertEquals("w0000000000000000042c001n003ok3v9x2mz7d", id);
        assertEquals(Optional.of(new CutIds.Chunk("k3v9x2mz7d", 42, 1, 3)), CutIds.parse(id));
    }

    @Test
    void parse_otherIds_areNoCut() {
        assertEquals(Optional.empty(), CutIds.parse("0k3vq9x2mz7d1c8a4e6b"));
        assertEquals(Optional.empty(), CutIds.parse("w0000000000000000005c000n001o"));
        assertEquals(Optional.empty(), CutIds.parse("w0000000000000000005c001n001"));
        assertThrows(IllegalArgumentException.class, () -> CutIds.id("Not-An-Id", 1, 0, 1));
    }
}
