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
}
