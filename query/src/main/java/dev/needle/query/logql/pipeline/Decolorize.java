package dev.needle.query.logql.pipeline;

import java.util.regex.Pattern;

/** {@code | decolorize}: ANSI escape sequences (colours and other SGR codes) taken out of the line. */
public record Decolorize() implements Stage {

    /** The ANSI sequences Loki removes (the expression of the stripansi package). */
    private static final Pattern ANSI = Pattern.compile(
            "[\\u001B\\u009B][\\[\\]()#;?]*(?:(?:(?:[a-zA-Z\\d]*(?:;[a-zA-Z\\d]*)*)?\\u0007)"
                    + "|(?:(?:\\d{1,4}(?:;\\d{0,4})*)?[\\dA-PRZcf-ntqry=><~]))");

    @Override
    public boolean process(EntryState e) {
        e.line(ANSI.matcher(e.line()).replaceAll(""));
        return true;
    }

    @Override
    public boolean changesLine() {
        return true;
    }

    @Override
    public String toString() {
        return "| decolorize";
    }
}
