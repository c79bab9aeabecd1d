package dev.needle.query.logql.pipeline;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code | unpack}: a line that Promtail's or Alloy's {@code pack} stage wrote, a JSON object whose
 * {@code _entry} is the original line and whose other string members are the labels packed with it.
 * The line becomes {@code _entry} and the members labels; an object without {@code _entry} is left as
 * it is, as Loki leaves it. A line that is not a JSON object sets {@code __error__=JSONParserErr}.
 */
public record UnpackParser() implements Stage {

    private static final String PACKED_ENTRY = "_entry";

    @Override
    public boolean process(EntryState e) {
        String line = e.line();
        if (line.isEmpty()) {
            return true;
        }
        if (line.charAt(0) != '{') {
            e.fail(Parsers.JSON_ERR, "expecting json object(6), but it is not");
            return true;
        }
        Map<String, String> packed = new LinkedHashMap<>();
        String[] entry = {null};
        try {
            new JsonLine(line).eachMember((key, kind, raw) -> {
                if (kind != JsonLine.Kind.STRING) {
                    return;
                }
                if (key.equals(PACKED_ENTRY)) {
                    entry[0] = JsonLine.unescape(raw);
                    return;
                }
                packed.put(Parsers.labelName(e.parsedName(key), true), Parsers.cleanValue(JsonLine.unescape(raw)));
            });
        } catch (JsonLine.Malformed m) {
            e.fail(Parsers.JSON_ERR, m.getMessage());
            return true;
        }
        if (entry[0] != null) {
            packed.forEach(e::extract);
            e.line(entry[0]);
        }
        return true;
    }

    @Override
    public boolean changesLine() {
        return true;
    }

    @Override
    public boolean changesLabels() {
        return true;
    }

    @Override
    public String toString() {
        return "| unpack";
    }
}
