package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code | json}: every member of the line's JSON object a label, nested objects flattened with
 * {@code _} ({@code {"a":{"b":1}}} gives {@code a_b="1"}), arrays and nulls skipped, strings unescaped,
 * numbers as written. With expressions, {@code | json label="path", other}: only those values, a path
 * of members and indexes ({@code a.b[0]["c d"]}), an object or array as its JSON text, a path that
 * leads nowhere {@code ""}. A line that is not JSON sets {@code __error__=JSONParserErr} and
 * {@code __error_details__} and keeps the line.
 *
 * @param expressions the extractions asked for; empty for every member
 */
public record JsonParser(List<Extraction> expressions) implements Stage {

    /**
     * {@code label="path"}.
     *
     * @param path members (String) and indexes (Integer)
     */
    public record Extraction(String label, String expression, List<Object> path) {
        public Extraction {
            path = List.copyOf(path);
        }

        @Override
        public String toString() {
            return label + "=" + LogQlParser.quote(expression);
        }
    }

    public JsonParser {
        expressions = List.copyOf(expressions);
    }

    @Override
    public boolean process(EntryState e) {
        return expressions.isEmpty() ? all(e) : extract(e);
    }

    /** What {@link #members} is told: a member's label name, the keys that lead to it, its value. */
    @FunctionalInterface
    public interface Members {
        /** One scalar member. */
        void member(String name, List<String> path, String value);
    }

    /**
     * Every scalar member of a JSON object line, named as {@code | json} names it, with the keys that lead to it
     * (Loki's {@code jsonPath}); the error's details when the line is not JSON (members before it were told).
     */
    public static String members(String line, Members out) {
        try {
            new JsonLine(line).eachMember((key, kind, raw) -> member(out, "", List.of(), key, kind, raw));
            return null;
        } catch (JsonLine.Malformed m) {
            return m.getMessage();
        }
    }

    private static boolean all(EntryState e) {
        String error = members(e.line(), (name, path, value) -> e.extract(e.parsedName(name), value));
        if (error != null) {
            e.fail(Parsers.JSON_ERR, error);
        }
        return true;
    }

    private static void member(Members out, String prefix, List<String> path, String key, JsonLine.Kind kind,
                               String raw) {
        // A leading digit gets a _ only at the start of the whole name; an empty key adds nothing to it.
        String part = Parsers.labelName(key, prefix.isEmpty());
        if (prefix.isEmpty() && part.isEmpty() && kind != JsonLine.Kind.OBJECT) {
            return;
        }
        String name = prefix.isEmpty() ? part : part.isEmpty() ? prefix : prefix + "_" + part;
        List<String> at = new ArrayList<>(path);
        at.add(JsonLine.unescape(key));
        switch (kind) {
            case OBJECT -> {
                try {
                    new JsonLine(raw).eachMember((k, nestedKind, nestedRaw) -> member(out, name, at, k, nestedKind,
                            nestedRaw));
                } catch (JsonLine.Malformed m) {
                    // The whole line has been read already: the nested object is well formed.
                    throw new IllegalStateException(m);
                }
            }
            case STRING -> out.member(name, List.copyOf(at), Parsers.cleanValue(JsonLine.unescape(raw)));
            case NUMBER, BOOLEAN -> out.member(name, List.copyOf(at), raw);
            default -> {
                // arrays and nulls are skipped
            }
        }
    }

    private boolean extract(EntryState e) {
        String line = e.line();
        if (line.isEmpty()) {
            return true;
        }
        char first = line.charAt(0);
        if (first != '"' && first != '{' && first != '[') {
            e.fail(Parsers.JSON_ERR, null);
            return true;
        }
        JsonLine json = new JsonLine(line);
        for (Extraction x : expressions) {
            try {
                Object[] found = json.find(x.path());
                if (found != null) {
                    String raw = (String) found[1];
                    String value = switch ((JsonLine.Kind) found[0]) {
                        case NULL -> "";
                        case OBJECT -> raw;
                        default -> Parsers.cleanValue(JsonLine.unescape(raw));
                    };
                    e.set(e.parsedName(x.label()), value);
                }
            } catch (JsonLine.Malformed m) {
                e.fail(Parsers.JSON_ERR, m.getMessage());
            }
        }
        for (Extraction x : expressions) {
            if (e.get(x.label()) == null) {
                e.set(x.label(), "");
            }
        }
        return true;
    }

    @Override
    public boolean changesLabels() {
        return true;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("| json");
        for (int i = 0; i < expressions.size(); i++) {
            out.append(i == 0 ? " " : ", ").append(expressions.get(i));
        }
        return out.toString();
    }
}
