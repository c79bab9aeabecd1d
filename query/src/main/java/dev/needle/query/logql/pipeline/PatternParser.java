package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import java.util.List;

/** {@code | pattern "<ip> - <_> …"}: the named captures that match, as labels ({@link PatternExpr}). */
public record PatternParser(String text, PatternExpr pattern) implements Stage {

    @Override
    public boolean process(EntryState e) {
        List<String> names = pattern.names();
        List<String> values = pattern.matches(e.line());
        for (int i = 0; i < values.size(); i++) {
            e.extract(e.parsedName(names.get(i)), values.get(i));
        }
        return true;
    }

    @Override
    public boolean changesLabels() {
        return true;
    }

    @Override
    public String toString() {
        return "| pattern " + LogQlParser.quote(text);
    }
}
