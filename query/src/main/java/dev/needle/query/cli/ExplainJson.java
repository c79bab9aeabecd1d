package dev.needle.query.cli;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.query.engine.BlockDecision;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.ExplainFormat;
import dev.needle.query.engine.Mechanisms;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads back the plan {@link ExplainFormat#write} wrote, so that a server's EXPLAIN prints as the
 * same table as a local one. The totals are not read: {@link Explain#totals()} sums them again from
 * the blocks. Unknown fields are skipped, so that a newer server's additions do no harm.
 */
final class ExplainJson {

    private ExplainJson() {
    }

    /** Reads the plan object {@code p} is at the start of. */
    static Explain read(JsonParser p) throws IOException {
        expect(p, p.currentToken(), JsonToken.START_OBJECT, "an EXPLAIN object");
        String signal = "";
        Mechanisms mechanisms = Mechanisms.ALL;
        List<BlockDecision> blocks = new ArrayList<>();
        long headRecords = 0;
        long headMatched = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "signal" -> signal = p.getValueAsString("");
                case "mechanisms" -> mechanisms = mechanisms(p);
                case "totals" -> {
                    expect(p, value, JsonToken.START_OBJECT, "the totals object");
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String name = p.currentName();
                        p.nextToken();
                        switch (name) {
                            case "headRecords" -> headRecords = p.getValueAsLong();
                            case "headMatched" -> headMatched = p.getValueAsLong();
                            default -> p.skipChildren();
                        }
                    }
                }
                case "blocks" -> {
                    expect(p, value, JsonToken.START_ARRAY, "the blocks array");
                    while (p.nextToken() == JsonToken.START_OBJECT) {
                        blocks.add(decision(p));
                    }
                }
                default -> p.skipChildren();
            }
        }
        return new Explain(signal, mechanisms, blocks, headRecords, headMatched);
    }

    private static Mechanisms mechanisms(JsonParser p) throws IOException {
        expect(p, p.currentToken(), JsonToken.START_OBJECT, "the mechanisms object");
        boolean time = true;
        boolean traceIdx = true;
        boolean attrIdx = true;
        boolean zoneMaps = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
                case "time" -> time = p.getValueAsBoolean(true);
                case "traceIdx" -> traceIdx = p.getValueAsBoolean(true);
                case "attrIdx" -> attrIdx = p.getValueAsBoolean(true);
                case "zoneMaps" -> zoneMaps = p.getValueAsBoolean(true);
                default -> p.skipChildren();
            }
        }
        return new Mechanisms(time, traceIdx, attrIdx, zoneMaps);
    }

    private static BlockDecision decision(JsonParser p) throws IOException {
        String block = "";
        BlockDecision.Step step = BlockDecision.Step.ROWS;
        boolean pruned = false;
        String reason = "";
        String failedOpen = null;
        int batchesRead = 0;
        int batchesSkipped = 0;
        long rowsScanned = 0;
        long matched = 0;
        long bytesToDecide = 0;
        long bytesRead = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
                case "block" -> block = p.getValueAsString("");
                case "decidedBy" -> step = step(p, p.getValueAsString(""));
                case "pruned" -> pruned = p.getValueAsBoolean();
                case "reason" -> reason = p.getValueAsString("");
                case "failedOpen" -> failedOpen = p.getValueAsString();
                case "batchesRead" -> batchesRead = p.getValueAsInt();
                case "batchesSkipped" -> batchesSkipped = p.getValueAsInt();
                case "rowsScanned" -> rowsScanned = p.getValueAsLong();
                case "matched" -> matched = p.getValueAsLong();
                case "bytesToDecide" -> bytesToDecide = p.getValueAsLong();
                case "bytesRead" -> bytesRead = p.getValueAsLong();
                default -> p.skipChildren();
            }
        }
        return new BlockDecision(block, step, pruned, reason, failedOpen, batchesRead, batchesSkipped, rowsScanned,
                matched, bytesToDecide, bytesRead);
    }

    private static BlockDecision.Step step(JsonParser p, String label) throws IOException {
        for (BlockDecision.Step s : BlockDecision.Step.values()) {
            if (s.label().equals(label)) {
                return s;
            }
        }
        throw new IOException("EXPLAIN names an unknown step \"" + label + "\" at " + p.currentLocation());
    }

    private static void expect(JsonParser p, JsonToken actual, JsonToken expected, String what) throws IOException {
        if (actual != expected) {
            throw new IOException("expected " + what + ", found " + actual + " at " + p.currentLocation());
        }
    }
}
