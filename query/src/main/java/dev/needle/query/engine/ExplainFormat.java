package dev.needle.query.engine;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.Map;

/** Writes an {@link Explain} as a human table or as JSON. */
public final class ExplainFormat {

    private ExplainFormat() {
    }

    /** The plan as aligned text: totals first, then one line per block. */
    public static String table(Explain plan) {
        Explain.Totals t = plan.totals();
        StringBuilder out = new StringBuilder();
        out.append(String.format("%s: %d blocks listed, %d pruned by time, %d by TRACE_IDX, %d by ATTR_IDX, "
                        + "%d by zone maps, %d skipped by the limit; %d opened, %d for nothing, %d unreadable%n",
                plan.signal(), t.listed(), t.prunedByTime(), t.prunedByTraceIdx(), t.prunedByAttrIdx(),
                t.prunedByZoneMaps(), t.skippedByLimit(), t.opened(), t.openedForNothing(), t.errors()));
        out.append(String.format("%s: %d rows scanned, %d matched, %d bytes read (%d to decide); head: %d records, %d matched%n",
                plan.signal(), t.rowsScanned(), t.matched(), t.bytesRead(), t.bytesToDecide(), plan.headRows(),
                plan.headMatched()));
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
        String row = "%-" + nameWidth + "s  %-9s  %-6s  %7s  %7s  %8s  %7s  %10s  %10s  %s%n";
        out.append(String.format(row, "block", "decided", "pruned", "batches", "skipped", "rows", "matched",
                "decide B", "read B", "reason"));
        for (BlockDecision d : plan.blocks()) {
            out.append(String.format(row, d.block(), d.decidedBy().label(), d.pruned() ? "yes" : "no", d.batchesRead(),
                    d.batchesSkipped(), d.rowsScanned(), d.matched(), d.bytesToDecide(), d.bytesRead(),
                    d.reason() + (d.failedOpen() == null || d.reason().contains("failed open") ? ""
                            : " (sidecar failed open: " + d.failedOpen() + ")")));
        }
        return out.toString();
    }

    /** The plan as one JSON object. */
    public static void write(Explain plan, JsonGenerator json) throws IOException {
        Explain.Totals t = plan.totals();
        json.writeStartObject();
        json.writeStringField("signal", plan.signal());
        json.writeObjectFieldStart("mechanisms");
        json.writeBooleanField("time", plan.mechanisms().time());
        json.writeBooleanField("traceIdx", plan.mechanisms().traceIdx());
        json.writeBooleanField("attrIdx", plan.mechanisms().attrIdx());
        json.writeBooleanField("zoneMaps", plan.mechanisms().zoneMaps());
        json.writeEndObject();
        json.writeObjectFieldStart("totals");
        json.writeNumberField("blocksListed", t.listed());
        json.writeNumberField("prunedByTime", t.prunedByTime());
        json.writeNumberField("prunedByTraceIdx", t.prunedByTraceIdx());
        json.writeNumberField("prunedByAttrIdx", t.prunedByAttrIdx());
        json.writeNumberField("prunedByZoneMaps", t.prunedByZoneMaps());
        json.writeNumberField("skippedByLimit", t.skippedByLimit());
        json.writeNumberField("opened", t.opened());
        json.writeNumberField("openedForNothing", t.openedForNothing());
        json.writeNumberField("unreadable", t.errors());
        json.writeObjectFieldStart("failedOpen");
        for (Map.Entry<String, Integer> e : t.failedOpen().entrySet()) {
            json.writeNumberField(e.getKey(), e.getValue());
        }
        json.writeEndObject();
        json.writeNumberField("rowsScanned", t.rowsScanned());
        json.writeNumberField("matched", t.matched());
        json.writeNumberField("bytesRead", t.bytesRead());
        json.writeNumberField("bytesToDecide", t.bytesToDecide());
        json.writeNumberField("headRecords", plan.headRows());
        json.writeNumberField("headMatched", plan.headMatched());
        json.writeEndObject();
        json.writeArrayFieldStart("blocks");
        for (BlockDecision d : plan.blocks()) {
            json.writeStartObject();
            json.writeStringField("block", d.block());
            json.writeStringField("decidedBy", d.decidedBy().label());
            json.writeBooleanField("pruned", d.pruned());
            json.writeStringField("reason", d.reason());
            if (d.failedOpen() != null) {
                json.writeStringField("failedOpen", d.failedOpen());
            }
            json.writeNumberField("batchesRead", d.batchesRead());
            json.writeNumberField("batchesSkipped", d.batchesSkipped());
            json.writeNumberField("rowsScanned", d.rowsScanned());
            json.writeNumberField("matched", d.matched());
            json.writeNumberField("bytesToDecide", d.bytesToDecide());
            json.writeNumberField("bytesRead", d.bytesRead());
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }
}
