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
    private boolean atEnd() {
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

    /**
     * Moves to the next well-formed pair; false when the line is done, or, when {@code strict}, at the
     * first pair that is not well formed.
     */
    boolean nextPair(boolean strict) {
        while (!atEnd()) {
            if (next()) {
                return true;
            }
            if (strict) {
                return false;
            }
        }
        return false;
    }

    /** Reads the next pair; false when it is not well formed (or only blanks were left). */
    private boolean next() {
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
                String v = Parsers.unescape(text(start + 1, p), true);
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
