package dev.needle.query.logql.pipeline;

/** What Loki's parsers share: how a key becomes a label name, and the errors they set. */
final class Parsers {

    /** The error of {@code | json} and {@code | unpack}. */
    static final String JSON_ERR = "JSONParserErr";
    /** The error of {@code | logfmt --strict}. */
    static final String LOGFMT_ERR = "LogfmtParserErr";

    private Parsers() {
    }

    /**
     * A key as a label name, as Loki sanitizes it: blanks around it cut, every character other than an
     * ASCII letter, digit or {@code _} made {@code _}, and {@code _} before a leading digit when the key
     * starts the name ({@code first}); {@code ""} when nothing is left.
     */
    static String labelName(String key, boolean first) {
        String k = key.strip();
        if (k.isEmpty()) {
            return k;
        }
        StringBuilder out = new StringBuilder(k.length() + 1);
        if (first && k.charAt(0) >= '0' && k.charAt(0) <= '9') {
            out.append('_');
        }
        k.codePoints().forEach(c -> out.append(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '_' ? (char) c : '_'));
        return out.toString();
    }

    /** A parsed value with what did not decode as UTF-8 made a space, as Loki does. */
    static String cleanValue(String v) {
        return v.indexOf('\uFFFD') < 0 ? v : v.replace('\uFFFD', ' ');
    }

    /**
     * A quoted JSON string's inside with JSON's escapes undone (and an escaped apostrophe when
     * {@code apostrophe}, as Go's logfmt reads it); null when an escape is not valid.
     */
    static String unescape(String raw, boolean apostrophe) {
        if (raw.indexOf('\\') < 0) {
            return raw;
        }
        StringBuilder out = new StringBuilder(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= raw.length()) {
                return null;
            }
            char e = raw.charAt(i);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 >= raw.length()) {
                        return null;
                    }
                    try {
                        out.append((char) Integer.parseInt(raw.substring(i + 1, i + 5), 16));
                    } catch (NumberFormatException ex) {
                        return null;
                    }
                    i += 4;
                }
                default -> {
                    if (e != '\'' || !apostrophe) {
                        return null;
                    }
                    out.append(e);
                }
            }
        }
        return out.toString();
    }
}
