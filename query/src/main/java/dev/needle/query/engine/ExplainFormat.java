package dev.needle.query.engine;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.json.StrictJson;
import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Writes an {@link Explain} as a human table, and plans as JSON that it reads back too: the
 * records' components name the fields, and this one mapper binds them both ways.
 */
public final class ExplainFormat {

    private static final ObjectMapper MAPPER = StrictJson.builder().build();
    private static final ObjectWriter WRITER = MAPPER.writer();
    private static final ObjectReader READER = MAPPER.readerForListOf(Explain.class)
            .with(DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY);

    private ExplainFormat() {
    }

    /** The plan as aligned text: totals first, then one line per block. */
    public static String table(Explain plan) {
        Explain.Totals t = plan.totals();
        StringBuilder out = new StringBuilder();
        out.append(String.format("%s: %d %s listed, %d pruned by time, %d by TRACE_IDX, %d by ATTR_IDX, "
                        + "%d by zone maps, %d by BATCH_ATTR_IDX, %d skipped by the limit; %d opened, %d for nothing, "
                        + "%d unreadable%n",
                plan.signal(), t.listed(), Units.plural(t.listed(), "block"), t.prunedByTime(), t.prunedByTraceIdx(), t.prunedByAttrIdx(),
                t.prunedByZoneMaps(), t.prunedByBatchAttrIdx(), t.skippedByLimit(), t.opened(), t.openedForNothing(), t.errors()));
        out.append(String.format("%s: %d %s scanned, %d matched, %d %s read (%d to decide) in %d store %s;"
                        + " head: %d %s, %d matched%n",
                plan.signal(), t.rowsScanned(), Units.plural(t.rowsScanned(), "row"), t.matched(), t.bytesRead(),
                Units.plural(t.bytesRead(), "byte"), t.bytesToDecide(), t.requests(), Units.plural(t.requests(), "request"),
                plan.headRows(), Units.plural(plan.headRows(), "record"), plan.headMatched()));
        if (!plan.source().isEmpty()) {
            out.append(plan.signal()).append(": blocks from ").append(plan.source()).append(System.lineSeparator());
        }
        if (!t.failedOpen().isEmpty()) {
            out.append(plan.signal()).append(": sidecars failed open: ");
            String sep = "";
            for (Map.Entry<String, Integer> e : t.failedOpen().entrySet()) {
                out.append(sep).append(e.getKey()).append(' ').append(e.getValue());
                sep = ", ";
            }
            out.append(System.lineSeparator());
        }
        if (plan.blocks().isEmpty()) {
            return out.toString();
        }
        int nameWidth = plan.blocks().stream().mapToInt(d -> d.block().length()).max().orElse(5);
        String row = "%-" + nameWidth + "s  %-9s  %-6s  %7s  %7s  %8s  %7s  %10s  %10s  %8s  %s%n";
        out.append(String.format(row, "block", "decided", "pruned", "batches", "skipped", "rows", "matched",
                "decide B", "read B", "requests", "reason"));
        for (BlockDecision d : plan.blocks()) {
            out.append(String.format(row, d.block(), d.decidedBy().label(), d.pruned() ? "yes" : "no", d.batchesRead(),
                    d.batchesSkipped(), d.rowsScanned(), d.matched(), d.bytesToDecide(), d.bytesRead(), d.requests(),
                    d.reason() + (d.failedOpen() == null || d.reason().contains("failed open") ? ""
                            : " (sidecar failed open: " + d.failedOpen() + ")")));
        }
        return out.toString();
    }

    /** Writes the plans as one JSON array where {@code json} is. */
    public static void write(List<Explain> plans, JsonGenerator json) throws IOException {
        WRITER.writeValue(json, plans);
    }

    /**
     * Reads what {@link #write} wrote (or one plan on its own), so that a server's EXPLAIN prints as
     * the same table as a local one. Fields a newer server adds are skipped.
     */
    public static List<Explain> read(byte[] json) throws IOException {
        try {
            return READER.readValue(json);
        } catch (InvalidFormatException e) {
            if (e.getTargetType() == BlockDecision.Step.class) {
                throw new IOException("EXPLAIN names an unknown step \"" + e.getValue() + "\" at " + StrictJson.where(e), e);
            }
            throw notExplain(e);
        } catch (JsonMappingException e) {
            throw notExplain(e);
        }
    }

    private static IOException notExplain(JsonMappingException e) {
        return new IOException("EXPLAIN at " + StrictJson.where(e) + " is not what needle writes: " + e.getOriginalMessage(), e);
    }
}
