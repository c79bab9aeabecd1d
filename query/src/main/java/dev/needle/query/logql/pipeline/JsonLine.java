package dev.needle.query.logql.pipeline;

import java.util.List;

/**
 * Reads a JSON line in place, as the parser Loki uses does ({@code jsonparser}): the members of an
 * object one by one, a value's raw text, a path's value; no tree is built. Strings are handed over
 * without their quotes and still escaped ({@link #unescape}), numbers as written.
 */
final class JsonLine {

    /** A value's kind. */
    enum Kind { STRING, NUMBER, BOOLEAN, NULL, OBJECT, ARRAY }

    /** What a walk over an object's members is told, member by member. */
    interface Members {
        /** A member: its key (still escaped), its kind and its raw text (a string's without quotes). */
        void member(String key, Kind kind, String raw);
    }

    /** A line that is not JSON where it must be, with the words Loki's parser uses. */
    static final class Malformed extends Exception {
        Malformed(String message) {
            super(message, null, false, false);
        }
    }

    static final String NOT_AN_OBJECT = "Value looks like object, but can't find closing '}' symbol";
    private static final String MALFORMED = "Malformed JSON error";
    private static final String STRING = "Value is string, but can't find closing '\"' symbol";
    private static final String ARRAY = "Value is array, but can't find closing ']' symbol";
    private static final String UNKNOWN = "Unknown value type";

    private final String s;

    JsonLine(String s) {
        this.s = s;
    }

    /** Walks the members of the object that starts the line (after blanks). */
    void eachMember(Members members) throws Malformed {
        int at = blank(0);
        if (at >= s.length() || s.charAt(at) != '{') {
            throw new Malformed(NOT_AN_OBJECT);
        }
        eachMember(at, members);
    }

    /** Walks the members of the object at {@code at}; the position after it. */
    int eachMember(int at, Members members) throws Malformed {
        at = blank(at + 1);
        if (at < s.length() && s.charAt(at) == '}') {
            return at + 1;
        }
        while (true) {
            if (at >= s.length() || s.charAt(at) != '"') {
                throw new Malformed(at >= s.length() ? NOT_AN_OBJECT : MALFORMED);
            }
            int keyEnd = stringEnd(at);
            String key = s.substring(at + 1, keyEnd - 1);
            at = blank(keyEnd);
            if (at >= s.length() || s.charAt(at) != ':') {
                throw new Malformed(MALFORMED);
            }
            at = blank(at + 1);
            int end = valueEnd(at);
            Kind kind = kind(at);
            members.member(key, kind, kind == Kind.STRING ? s.substring(at + 1, end - 1) : s.substring(at, end));
            at = blank(end);
            if (at < s.length() && s.charAt(at) == ',') {
                at = blank(at + 1);
            } else if (at < s.length() && s.charAt(at) == '}') {
                return at + 1;
            } else {
                throw new Malformed(at >= s.length() ? NOT_AN_OBJECT : MALFORMED);
            }
        }
    }

    /**
     * The value at {@code path} (keys, and indexes as Integer) from the line's start: its kind and raw
     * text as {@link Members} gets them; null when the path leads nowhere.
     */
    Object[] find(List<Object> path) throws Malformed {
        int at = blank(0);
        for (Object step : path) {
            if (at >= s.length()) {
                return null;
            }
            char c = s.charAt(at);
            if (step instanceof String key && c == '{') {
                at = member(at, key);
            } else if (step instanceof Integer index && c == '[') {
                at = element(at, index);
            } else {
                return null;
            }
            if (at < 0) {
                return null;
            }
        }
        if (at >= s.length()) {
            return null;
        }
        int end = valueEnd(at);
        Kind kind = kind(at);
        return new Object[] {kind, kind == Kind.STRING ? s.substring(at + 1, end - 1) : s.substring(at, end)};
    }

    /** Where the value of the object's member {@code wanted} starts; -1 when it has none. */
    private int member(int at, String wanted) throws Malformed {
        at = blank(at + 1);
        if (at < s.length() && s.charAt(at) == '}') {
            return -1;
        }
        while (true) {
            if (at >= s.length() || s.charAt(at) != '"') {
                throw new Malformed(MALFORMED);
            }
            int keyEnd = stringEnd(at);
            String key = unescape(s.substring(at + 1, keyEnd - 1));
            at = blank(keyEnd);
            if (at >= s.length() || s.charAt(at) != ':') {
                throw new Malformed(MALFORMED);
            }
            at = blank(at + 1);
            if (key.equals(wanted)) {
                return at;
            }
            at = blank(valueEnd(at));
            if (at < s.length() && s.charAt(at) == ',') {
                at = blank(at + 1);
            } else if (at < s.length() && s.charAt(at) == '}') {
                return -1;
            } else {
                throw new Malformed(MALFORMED);
            }
        }
    }

    /** Where the array's element {@code wanted} starts; -1 when it has none. */
    private int element(int at, int wanted) throws Malformed {
        at = blank(at + 1);
        if (at < s.length() && s.charAt(at) == ']') {
            return -1;
        }
        for (int i = 0; ; i++) {
            if (i == wanted) {
                return at;
            }
            at = blank(valueEnd(at));
            if (at < s.length() && s.charAt(at) == ',') {
                at = blank(at + 1);
            } else if (at < s.length() && s.charAt(at) == ']') {
                return -1;
            } else {
                throw new Malformed(ARRAY);
            }
        }
    }

    private Kind kind(int at) throws Malformed {
        return switch (s.charAt(at)) {
            case '"' -> Kind.STRING;
            case '{' -> Kind.OBJECT;
            case '[' -> Kind.ARRAY;
            case 't', 'f' -> Kind.BOOLEAN;
            case 'n' -> Kind.NULL;
            default -> Kind.NUMBER;
        };
    }

    /** The position just after the value at {@code at}. */
    private int valueEnd(int at) throws Malformed {
        if (at >= s.length()) {
            throw new Malformed(MALFORMED);
        }
        char c = s.charAt(at);
        switch (c) {
            case '"':
                return stringEnd(at);
            case '{':
                return eachMember(at, (k, kind, raw) -> { });
            case '[': {
                int p = blank(at + 1);
                if (p < s.length() && s.charAt(p) == ']') {
                    return p + 1;
                }
                while (true) {
                    p = blank(valueEnd(p));
                    if (p < s.length() && s.charAt(p) == ',') {
                        p = blank(p + 1);
                    } else if (p < s.length() && s.charAt(p) == ']') {
                        return p + 1;
                    } else {
                        throw new Malformed(ARRAY);
                    }
                }
            }
            case 't':
                return literal(at, "true");
            case 'f':
                return literal(at, "false");
            case 'n':
                return literal(at, "null");
            default: {
                int p = at;
                while (p < s.length() && "+-0123456789.eE".indexOf(s.charAt(p)) >= 0) {
                    p++;
                }
                if (p == at) {
                    throw new Malformed(UNKNOWN);
                }
                return p;
            }
        }
    }

    private int literal(int at, String word) throws Malformed {
        if (!s.startsWith(word, at)) {
            throw new Malformed(UNKNOWN);
        }
        return at + word.length();
    }

    private int stringEnd(int at) throws Malformed {
        for (int p = at + 1; p < s.length(); p++) {
            char c = s.charAt(p);
            if (c == '\\') {
                p++;
            } else if (c == '"') {
                return p + 1;
            }
        }
        throw new Malformed(STRING);
    }

    private int blank(int at) {
        while (at < s.length() && (s.charAt(at) == ' ' || s.charAt(at) == '\t' || s.charAt(at) == '\n'
                || s.charAt(at) == '\r')) {
            at++;
        }
        return at;
    }

    /** A JSON string's inside with its escapes undone; {@code ""} when an escape is not valid, as in Loki. */
    static String unescape(String raw) {
        String s = Parsers.unescape(raw, false);
        return s == null ? "" : s;
    }
}
