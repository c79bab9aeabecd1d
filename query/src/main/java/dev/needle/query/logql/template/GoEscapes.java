package dev.needle.query.logql.template;

/**
 * Go's one-character escapes in a {@code "…"} string ({@code \n \t \r \a \b \f \v \\ \" \'}), which LogQL's strings and
 * the templates' constants both take; the hexadecimal escapes (x, u and U) each reader decodes itself.
 */
public final class GoEscapes {

    private GoEscapes() {
    }

    /** The character {@code \c} stands for, or -1 when {@code c} starts no one-character escape. */
    public static int simple(char c) {
        return switch (c) {
            case 'n' -> '\n';
            case 't' -> '\t';
            case 'r' -> '\r';
            case 'a' -> '\u0007';
            case 'b' -> '\b';
            case 'f' -> '\f';
            case 'v' -> '\u000b';
            case '\\', '"', '\'' -> c;
            default -> -1;
        };
    }
}
