package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import java.util.regex.Matcher;

/**
 * {@code | regexp "(?P<name>…)"}: each named group of the first match a label (a group that did not
 * take part, {@code ""}); a line that does not match gets none.
 */
public record RegexpParser(String text, GoRegex regex) implements Stage {

    @Override
    public boolean process(EntryState e) {
        Matcher m = regex.pattern().matcher(e.line());
        if (!m.find()) {
            return true;
        }
        for (int g = 1; g <= m.groupCount(); g++) {
            String name = regex.names().get(g);
            if (!name.isEmpty()) {
                String key = Parsers.labelName(name, true);
                String value = m.group(g);
                e.extract(e.parsedName(key), value == null ? "" : value);
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
        return "| regexp " + LogQlParser.quote(text);
    }
}
