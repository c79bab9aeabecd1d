package dev.needle.query.traceql;

import dev.needle.query.ql.QueryParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Splits TraceQL text into tokens as Tempo's lexer does: after a scope ({@code .}, {@code span.},
 * {@code resource.}, …) comes an attribute name, which runs to whitespace or one of
 * {@code { } ( ) = ~ ! < > & | ^ ,} and may hold quoted parts ({@code ."a b"}, escapes \" and \\);
 * a number directly followed by a unit is a duration ({@code 1.5ms}, {@code 1h30m}).
 */
final class Lexer {

    /** Token kinds. */
    enum Kind {
        /** An operator or punctuation; the text says which. */
        SYMBOL,
        /** A word: keyword, intrinsic, function or identifier. */
        WORD,
        /** A scope before an attribute name: {@code .}, {@code span.}, …; the text is the prefix. */
        SCOPE,
        /** A scope before an intrinsic: {@code span:}, {@code trace:}, …; the text includes the colon. */
        SCOPE_COLON,
        /** An attribute name, unquoted. */
        ATTRIBUTE,
        STRING, INT, FLOAT, DURATION, EOF
    }

    /** One token; {@code value} holds the string, number or duration's nanoseconds. */
    record Token(Kind kind, String text, int position, Object value) {
        boolean is(String symbol) {
            return (kind == Kind.SYMBOL || kind == Kind.WORD) && text.equals(symbol);
        }

        @Override
        public String toString() {
            return kind == Kind.EOF ? "the end of the query" : "'" + text + "'";
        }
    }

    private static final Set<String> DOT_SCOPES = Set.of("span", "resource", "parent", "event", "link", "instrumentation");
    private static final Set<String> COLON_SCOPES = Set.of("span", "trace", "event", "link", "instrumentation");
    /** Operators, longest first so that the longest match wins. */
    private static final List<String> SYMBOLS = List.of("!>>", "!<<", "&>>", "&<<", "&&", "||", "!=", "!~", "!>", "!<",
            "=~", ">>", "<<", ">=", "<=", "&>", "&<", "&~", "!", "=", "~", ">", "<", "|", "+", "-", "*", "/", "%", "^",
            ",", "{", "}", "(", ")");

    private final String text;
    private int pos;

    private Lexer(String text) {
        this.text = text;
    }

    /** The tokens of {@code text}, ending with an EOF token. */
    static List<Token> tokens(String text) throws QueryParseException {
        Lexer l = new Lexer(text);
        List<Token> out = new ArrayList<>();
        Token t;
        do {
            t = l.next(!out.isEmpty() && out.get(out.size() - 1).kind() == Kind.SCOPE);
            out.add(t);
        } while (t.kind() != Kind.EOF);
        return out;
    }

    private Token next(boolean attributeName) throws QueryParseException {
        if (attributeName) {
            return attribute();
        }
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
        int start = pos;
        if (pos >= text.length()) {
            return new Token(Kind.EOF, "", pos, null);
        }
        char c = text.charAt(pos);
        if (c == '"' || c == '`') {
            return string(c);
        }
        if (Character.isDigit(c) || c == '.' && pos + 1 < text.length() && Character.isDigit(text.charAt(pos + 1))) {
            return number();
        }
        if (Character.isLetter(c) || c == '_') {
            while (pos < text.length() && (Character.isLetterOrDigit(text.charAt(pos)) || text.charAt(pos) == '_')) {
                pos++;
            }
            String word = text.substring(start, pos);
            if (pos < text.length() && text.charAt(pos) == '.' && DOT_SCOPES.contains(word)) {
                pos++;
                return new Token(Kind.SCOPE, word + ".", start, null);
            }
            if (pos < text.length() && text.charAt(pos) == ':' && COLON_SCOPES.contains(word)) {
                pos++;
                return new Token(Kind.SCOPE_COLON, word + ":", start, null);
            }
            return new Token(Kind.WORD, word, start, null);
        }
        if (c == '.') {
            pos++;
            return new Token(Kind.SCOPE, ".", start, null);
        }
        for (String s : SYMBOLS) {
            if (text.startsWith(s, pos)) {
                pos += s.length();
                return new Token(Kind.SYMBOL, s, start, null);
            }
        }
        throw new QueryParseException(start, "unexpected character '" + c + "'");
    }

    /** An attribute name after a scope: bare characters and quoted parts, up to a character that ends it. */
    private Token attribute() throws QueryParseException {
        int start = pos;
        StringBuilder name = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos);
            if (c == '"') {
                pos++;
                while (true) {
                    if (pos >= text.length()) {
                        throw new QueryParseException(start, "the quoted attribute name has no closing '\"'");
                    }
                    char q = text.charAt(pos++);
                    if (q == '"') {
                        break;
                    }
                    if (q == '\\') {
                        char e = pos < text.length() ? text.charAt(pos) : 0;
                        if (e != '"' && e != '\\') {
                            throw new QueryParseException(pos - 1, "an attribute name escapes only \\\" and \\\\");
                        }
                        pos++;
                        q = e;
                    }
                    name.append(q);
                }
            } else if (Text.isAttributeChar(c)) {
                name.append(c);
                pos++;
            } else {
                break;
            }
        }
        if (pos == start) {
            throw new QueryParseException(start, "expected an attribute name after the scope");
        }
        return new Token(Kind.ATTRIBUTE, name.toString(), start, name.toString());
    }

    private Token string(char quote) throws QueryParseException {
        int start = pos++;
        StringBuilder out = new StringBuilder();
        while (true) {
            if (pos >= text.length()) {
                throw new QueryParseException(start, "the string has no closing " + quote);
            }
            char c = text.charAt(pos++);
            if (c == quote) {
                break;
            }
            if (c == '\\' && quote == '"') {
                if (pos >= text.length()) {
                    throw new QueryParseException(start, "the string has no closing " + quote);
                }
                char e = text.charAt(pos++);
                switch (e) {
                    case '"', '\\', '\'' -> out.append(e);
                    case 'n' -> out.append('\n');
                    case 'r' -> out.append('\r');
                    case 't' -> out.append('\t');
                    case 'a' -> out.append('\u0007');
                    case 'b' -> out.append('\b');
                    case 'f' -> out.append('\f');
                    case 'v' -> out.append('\u000b');
                    case 'u' -> {
                        if (pos + 4 > text.length()) {
                            throw new QueryParseException(pos - 2, "\\u needs four hex digits");
                        }
                        try {
                            out.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException ex) {
                            throw new QueryParseException(pos - 2, "\\u needs four hex digits");
                        }
                        pos += 4;
                    }
                    default -> throw new QueryParseException(pos - 2, "unknown escape \\" + e + " in a string");
                }
            } else if (c == '\n' && quote == '"') {
                throw new QueryParseException(start, "a string in double quotes cannot span lines");
            } else {
                out.append(c);
            }
        }
        return new Token(Kind.STRING, text.substring(start, pos), start, out.toString());
    }

    /** An int, a float, or a duration: a number followed by units without a space between. */
    private Token number() throws QueryParseException {
        int start = pos;
        int end = pos;
        while (end < text.length() && (Character.isLetterOrDigit(text.charAt(end)) || text.charAt(end) == '.'
                || text.charAt(end) == 'µ')) {
            end++;
        }
        Long nanos = Durations.parse(text.substring(start, end));
        if (nanos != null) {
            pos = end;
            return new Token(Kind.DURATION, text.substring(start, end), start, nanos);
        }
        while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
            pos++;
        }
        boolean isFloat = false;
        if (pos < text.length() && text.charAt(pos) == '.') {
            isFloat = true;
            pos++;
            while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                pos++;
            }
        }
        if (pos < text.length() && (text.charAt(pos) == 'e' || text.charAt(pos) == 'E')) {
            int save = pos++;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                pos++;
            }
            if (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                isFloat = true;
                while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
                    pos++;
                }
            } else {
                pos = save;
            }
        }
        String n = text.substring(start, pos);
        if (isFloat) {
            return new Token(Kind.FLOAT, n, start, Double.parseDouble(n));
        }
        try {
            return new Token(Kind.INT, n, start, Long.parseLong(n));
        } catch (NumberFormatException e) {
            throw new QueryParseException(start, "the integer " + n + " is out of range");
        }
    }
}
