package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code | logfmt}: every {@code key=value} of the line a label, keys sanitized as every parser's.
 * A pair that is not well formed is skipped; with {@code --strict} reading stops there and sets
 * {@code __error__=LogfmtParserErr}. A key without a value is kept (as {@code ""}) only with
 * {@code --keep-empty}. With expressions, {@code | logfmt label="key", other}: only those keys,
 * renamed, each {@code ""} until found.
 *
 * @param strict      {@code --strict}
 * @param keepEmpty   {@code --keep-empty}
 * @param expressions label and key pairs asked for (label → key); empty for every key
 */
public record LogfmtParser(boolean strict, boolean keepEmpty, Map<String, String> expressions) implements Stage {

    public LogfmtParser {
        expressions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(expressions));
    }

    @Override
    public boolean process(EntryState e) {
        return expressions.isEmpty() ? all(e) : extract(e);
    }

    private boolean all(EntryState e) {
        Logfmt dec = new Logfmt(e.line());
        while (dec.nextPair(strict)) {
            String key = Parsers.labelName(dec.key(), true);
            if (key.isEmpty()) {
                continue;
            }
            String value = Parsers.cleanValue(dec.value());
            if (!keepEmpty && value.isEmpty()) {
                continue;
            }
            e.extract(e.parsedName(key), value);
        }
        failIfStrict(e, dec);
        return true;
    }

    private boolean extract(EntryState e) {
        Map<String, String> labelOfKey = new LinkedHashMap<>();
        for (Map.Entry<String, String> x : expressions.entrySet()) {
            labelOfKey.putIfAbsent(x.getValue(), x.getKey());
            if (e.parsedName(x.getKey()).equals(x.getKey())) {
                e.set(x.getKey(), "");
            }
        }
        Logfmt dec = new Logfmt(e.line());
        while (dec.nextPair(strict)) {
            String label = labelOfKey.get(Parsers.labelName(dec.key(), true));
            if (label != null) {
                String value = dec.value();
                e.set(e.parsedName(label), value.indexOf('\uFFFD') >= 0 ? "" : value);
            }
        }
        failIfStrict(e, dec);
        return true;
    }

    private void failIfStrict(EntryState e, Logfmt dec) {
        if (strict && dec.error() != null) {
            e.fail(Parsers.LOGFMT_ERR, dec.error());
        }
    }

    @Override
    public boolean changesLabels() {
        return true;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder("| logfmt");
        out.append(strict ? " --strict" : "").append(keepEmpty ? " --keep-empty" : "");
        String sep = " ";
        for (Map.Entry<String, String> x : expressions.entrySet()) {
            out.append(sep).append(x.getKey()).append('=').append(LogQlParser.quote(x.getValue()));
            sep = ", ";
        }
        return out.toString();
    }
}
