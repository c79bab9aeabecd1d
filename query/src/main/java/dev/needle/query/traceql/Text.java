package dev.needle.query.traceql;

/** Attribute names as the parser reads and the printer writes them; strings and durations are written as {@link dev.needle.query.ql.Canonical} writes them. */
final class Text {

    private Text() {
    }

    /**
     * Whether a character may stand in an unquoted attribute name: Tempo's lexer ends a name at
     * whitespace and at {@code { } ( ) = ~ ! < > & | ^ ,}; a quote starts a quoted part.
     */
    static boolean isAttributeChar(int c) {
        return c >= 0 && !Character.isWhitespace(c) && "{}()=~!<>&|^,\"".indexOf(c) < 0;
    }

    /** An attribute name as written after its scope: bare when it can be, else in quotes with \" and \\ escaped. */
    static String attributeName(String name) {
        boolean bare = !name.isEmpty() && !Character.isDigit(name.charAt(0));
        for (int i = 0; i < name.length() && bare; i++) {
            bare = isAttributeChar(name.charAt(i));
        }
        if (bare) {
            return name;
        }
        return '"' + name.replace("\\", "\\\\").replace("\"", "\\\"") + '"';
    }
}
