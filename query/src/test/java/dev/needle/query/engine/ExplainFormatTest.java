package dev.needle.query.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.query.engine.BlockDecision.Step;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A server's EXPLAIN reads back into the plan it was written from. */
final class ExplainFormatTest {

    private static final JsonFactory JSON = new JsonFactory();

    @Test
    void read_whatExplainFormatWrote_isTheSamePlan() throws IOException {
        Explain plan = new Explain("logs", new Mechanisms(true, false, true, false, false), "a listing: the index is turned off", List.of(
                new BlockDecision("b3", Step.TIME, true, "outside", null, 0, 0, 0, 0, 0, 0, 0),
                new BlockDecision("b2", Step.ROWS, false, "no match; the sidecar failed open (crc)", "crc", 2, 5, 300, 0,
                        900, 40_000, 5),
                new BlockDecision("b1", Step.ZONE_MAPS, true, "every batch ruled out", null, 0, 7, 0, 0, 120, 120, 2),
                new BlockDecision("b1a", Step.BATCH_ATTR_IDX, true, "every batch is ruled out by BATCH_ATTR_IDX",
                        "batch_attr_idx:crc", 0, 37, 0, 0, 4_000, 4_000, 3),
                new BlockDecision("b0", Step.ERROR, false, "block t/logs/b0: truncated", "missing", 0, 0, 0, 0, 16, 16, 1)),
                12, 3);
        Explain read = roundTrip(plan);
        assertEquals(plan, read);
        assertEquals(ExplainFormat.table(plan), ExplainFormat.table(read));
        assertEquals(1, read.totals().prunedByBatchAttrIdx());
        assertEquals(4, read.totals().opened(), "b2 and b0, and b1 and b1a, whose footers were read");
        assertEquals(true, ExplainFormat.table(read).contains(", 1 by BATCH_ATTR_IDX, "), ExplainFormat.table(read));
        assertEquals(11, read.totals().requests());
        assertEquals(true, ExplainFormat.table(read).contains(" in 11 store requests;"), ExplainFormat.table(read));
    }

    @Test
    void table_countsOfOne_areSingular() {
        Explain plan = new Explain("spans", Mechanisms.ALL, "", List.of(
                new BlockDecision("b", Step.ROWS, false, "", null, 1, 0, 1, 1, 0, 3240, 1)), 1, 0);
        String totals = ExplainFormat.table(plan).lines().limit(2).reduce("", (a, b) -> a + b + "\n");
        assertEquals("spans: 1 block listed, 0 pruned by time, 0 by TRACE_IDX, 0 by ATTR_IDX, 0 by zone maps,"
                + " 0 by BATCH_ATTR_IDX, 0 skipped by the limit; 1 opened, 0 for nothing, 0 unreadable\n"
                + "spans: 1 row scanned, 1 matched, 3240 bytes read (0 to decide) in 1 store request;"
                + " head: 1 record, 0 matched\n", totals);
    }

    @Test
    void read_unknownFieldsAreSkipped_unknownStepsRefused() throws IOException {
        String json = "{\"signal\":\"spans\",\"new\":{\"x\":[1,2]},\"blocks\":[{\"block\":\"b\",\"decidedBy\":\"rows\","
                + "\"extra\":[{}],\"matched\":4}],\"totals\":{\"headRecords\":2,\"later\":1}}";
        Explain read = read(json);
        assertEquals(List.of(new BlockDecision("b", Step.ROWS, false, "", null, 0, 0, 0, 4, 0, 0, 0)), read.blocks());
        assertEquals(2, read.headRows());
        assertEquals(Mechanisms.ALL, read.mechanisms());

        IOException e = assertThrows(IOException.class,
                () -> read("{\"blocks\":[{\"decidedBy\":\"magic\"}]}"));
        assertEquals(true, e.getMessage().startsWith("EXPLAIN names an unknown step \"magic\""), e.getMessage());
    }

    private static Explain roundTrip(Explain plan) throws IOException {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = JSON.createGenerator(text)) {
            ExplainFormat.write(List.of(plan), g);
        }
        List<Explain> plans = ExplainFormat.read(text.toString().getBytes(StandardCharsets.UTF_8));
        assertEquals(1, plans.size());
        return plans.get(0);
    }

    private static Explain read(String json) throws IOException {
        List<Explain> plans = ExplainFormat.read(json.getBytes(StandardCharsets.UTF_8));
        assertEquals(1, plans.size());
        return plans.get(0);
    }
}
