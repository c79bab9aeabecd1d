package dev.needle.query.logql.pipeline;

import java.nio.charset.StandardCharsets;

/**
 * Reads logfmt ({@code key=value key="quoted value" flag}) as Loki's decoder does, pair by pair over
 * the line's UTF-8 bytes: a key without {@code =} has an empty value; a pair that is not well formed
 * ({@code =v}, {@code k=v=w}, {@code k"ey=v}, an unclosed quote) is skipped and remembered as the
 * error, with its position in bytes.
 */
final class Logfmt {

    private final byte[] line;
    private int pos;
    private String key;
    private String value;
    private String error;

    Logfmt(String line) {
        this.line = line.getBytes(StandardCharsets.UTF_8);
    }

    /** Whether the whole line has been read. */
    boolean atEnd() {
        return pos >= line.length;
    }

    /** The key of the last pair read. */
    String key() {
        return key;
    }

    /** The value of the last pair read, {@code ""} when none. */
    String value() {
        return value;
    }

    /** The last syntax error ({@code logfmt syntax error at pos 5 : unexpected '='}), or null. */
    String error() {
        return error;
    }

    /** Reads the next pair; false when it is not well formed (or only blanks were left). */
    boolean next() {
        key = null;
        value = "";
        while (pos < line.length && (line[pos] & 0xff) <= ' ') {
            pos++;
        }
        if (pos >= line.length) {
            return false;
        }
        int start = pos;
        while (pos < line.length) {
            int c = line[pos] & 0xff;
            if (c == '=') {
                if (pos == start) {
                    unexpected(c);
                    return skipValue();
                }
                key = text(start, pos);
                return afterEquals();
            } else if (c == '"') {
                unexpected(c);
                return skipValue();
            } else if (c <= ' ') {
                key = text(start, pos);
                return true;
            }
            pos++;
        }
        key = text(start, pos);
        return true;
    }

    private boolean afterEquals() {
        pos++;
        if (pos >= line.length || (line[pos] & 0xff) <= ' ') {
            return true;
        }
        if (line[pos] == '"') {
            return quoted();
        }
        int start = pos;
        while (pos < line.length) {
            int c = line[pos] & 0xff;
            if (c == '=' || c == '"') {
                unexpected(c);
                return skipValue();
            } else if (c <= ' ') {
                break;
            }
            pos++;
        }
        value = text(start, pos);
        return true;
    }

    private boolean quoted() {
        int start = pos;
        boolean escape = false;
        for (int p = pos + 1; p < line.length; p++) {
            int c = line[p] & 0xff;
            if (escape) {
                escape = false;
            } else if (c == '\\') {
                escape = true;
            } else if (c == '"') {
                pos = p + 1;
                String v = unquote(text(start + 1, p));
                if (v == null) {
                    syntax("invalid quoted value");
                    return false;
                }
                value = v;
                return true;
            }
        }
        pos = line.length;
        syntax("unterminated quoted value");
        return false;
    }

    /** A quoted value's inside with JSON's escapes undone; null when an escape is not valid. */
    private static String unquote(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= s.length()) {
                return null;
            }
            switch (s.charAt(i)) {
                case '"', '\\', '/', '\'' -> out.append(s.charAt(i));
                case 'b' -> out.append('\b');
                case 'f' -> out.append('\f');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    if (i + 4 >= s.length()) {
                        return null;
                    }
                    try {
                        out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    } catch (NumberFormatException e) {
                        return null;
                    }
                    i += 4;
                }
                default -> {
                    return null;
                }
            }
        }
        return out.toString();
    }

    private boolean skipValue() {
        while (pos < line.length && (line[pos] & 0xff) > ' ') {
            pos++;
        }
        return false;
    }

    private void unexpected(int c) {
        error = "logfmt syntax error at pos " + (pos + 1) + " : unexpected '" + (char) c + "'";
    }

    private void syntax(String message) {
        error = "logfmt syntax error at pos " + (pos + 1) + " : " + message;
    }

    private String text(int from, int to) {
        return new String(line, from, to - from, StandardCharsets.UTF_8);
    }
}
