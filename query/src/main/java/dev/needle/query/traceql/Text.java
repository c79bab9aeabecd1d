package dev.needle.query.traceql;

/** The text forms the parser reads and the printer writes: strings, durations, attribute names. */
final class Text {

    /** Duration units, largest first, with their length in nanoseconds. */
    static final String[] UNITS = {"h", "m", "s", "ms", "us", "ns"};
    static final long[] UNIT_NANOS = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};

    private Text() {
    }

    /** A double-quoted string with the escapes the lexer reads: \" \\ \n \r \t, \\uXXXX for other controls. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** Nanoseconds in the largest unit that holds them exactly: 150ms, not 150000000ns. */
    static String duration(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        if (nanos == Long.MIN_VALUE) {
            return "-" + (Long.MAX_VALUE) + "ns";
        }
        int u = 0;
        while (nanos % UNIT_NANOS[u] != 0) {
            u++;
        }
        return nanos / UNIT_NANOS[u] + UNITS[u];
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
