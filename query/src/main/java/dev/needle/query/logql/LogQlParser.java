package dev.needle.query.logql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Parses the LogQL that needle answers (see {@link LogQl}):
 *
 * <pre>
 * query     = selector { stage } | constant
 * selector  = "{" [ matcher { "," matcher } ] "}"
 * matcher   = name ( "=" | "!=" | "=~" | "!~" ) string
 * stage     = ( "|=" | "!=" | "|~" | "!~" ) string        line filters, chainable
 *           | "|" matcher { "or" matcher }                 a label or structured-metadata filter
 *           | "|" "label_format" name "=" `{{ contains "text" __line__ }}`   Grafana's trace-to-logs
 * constant  = term { ( "+" | "-" ) term };  term = power { ( "*" | "/" | "%" ) power }
 * power     = unary [ "^" power ];  unary = [ "-" | "+" ] primary
 * primary   = number | "vector" "(" constant ")" | "(" constant ")"
 * string    = "…" with Go's escapes | `raw`
 * </pre>
 *
 * <p>Label regexes are anchored at both ends, line-filter regexes are not, as in Loki; the syntax is
 * {@link java.util.regex.Pattern}'s, which agrees with Go's RE2 on the common subset. Parsers
 * ({@code | json}, {@code | logfmt} …), formatting stages (but the one {@code label_format} that
 * Grafana's trace-to-logs sends), numeric label filters and metric queries other than the constants
 * are refused with a message that says so.
 */
public final class LogQlParser {

    /** Pipeline stages of Loki that needle does not run. */
    private static final Set<String> UNSUPPORTED_STAGES = Set.of("json", "logfmt", "regexp", "pattern", "unpack",
            "line_format", "label_format", "drop", "keep", "decolorize", "unwrap");
    /** Grafana's trace-to-logs template: whether the line contains a text. */
    private static final Pattern CONTAINS_LINE = Pattern.compile(
            "\\{\\{-?\\s*contains\\s+\"((?:[^\"\\\\]|\\\\.)*)\"\\s+__line__\\s*-?}}");
    private static final String EMPTY_COMPATIBLE = "queries require at least one regexp or equality matcher that does"
            + " not have an empty-compatible value. For instance, app=~\".*\" does not meet this requirement, but"
            + " app=~\".+\" will";

    private final String q;
    private int pos;

    private LogQlParser(String q) {
        this.q = q;
    }

    /** The query, or the first problem with it. */
    public static LogQl parse(String query) throws LogQlParseException {
        LogQlParser p = new LogQlParser(query);
        p.skipSpace();
        if (p.atEnd()) {
            throw new LogQlParseException("syntax error: empty query");
        }
        LogQl parsed = p.peek() == '{' ? p.logQuery() : p.constant();
        p.skipSpace();
        if (!p.atEnd()) {
            throw p.error("syntax error: unexpected " + p.describeNext());
        }
        return parsed;
    }

    /** {@code s} in double quotes, with Go's escapes where needed: how a query writes it. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\t' -> out.append("\\t");
                case '\r' -> out.append("\\r");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    private LogQl.LogQuery logQuery() throws LogQlParseException {
        List<LogQl.Matcher> selector = selector();
        List<LogQl.Stage> stages = new ArrayList<>();
        while (true) {
            skipSpace();
            if (atEnd()) {
                break;
            }
            LogQl.LineOp line = lineOp();
            if (line != null) {
                skipSpace();
                int at = pos;
                String text = string();
                try {
                    stages.add(LogQl.LineFilter.of(line, text));
                } catch (PatternSyntaxException e) {
                    throw error(at, "invalid regex " + quote(text) + ": " + e.getDescription());
                }
                refuseAlternatives("line filters");
            } else if (peek() == '|') {
                pos++;
                stages.add(labelFilter());
            } else {
                throw error("syntax error: unexpected " + describeNext() + ", expected a line filter (|=, !=, |~, !~)"
                        + " or a label filter (| name=\"value\")");
            }
        }
        return new LogQl.LogQuery(selector, stages);
    }

    private List<LogQl.Matcher> selector() throws LogQlParseException {
        expect('{');
        List<LogQl.Matcher> matchers = new ArrayList<>();
        skipSpace();
        if (peek() != '}') {
            matchers.add(matcher());
            skipSpace();
            while (peek() == ',') {
                pos++;
                matchers.add(matcher());
                skipSpace();
            }
        }
        expect('}');
        boolean selective = matchers.stream().anyMatch(m -> m.op() == LogQl.MatchOp.EQ && !m.value().isEmpty()
                || m.op() == LogQl.MatchOp.RE && !m.regex().matcher("").matches());
        if (!selective) {
            throw new LogQlParseException("parse error : " + EMPTY_COMPATIBLE);
        }
        return matchers;
    }

    private LogQl.Stage labelFilter() throws LogQlParseException {
        skipSpace();
        int at = pos;
        String name = name();
        if (name.equals("label_format")) {
            return lineContainsLabel(at);
        }
        if (UNSUPPORTED_STAGES.contains(name)) {
            throw error(at, "the | " + name + " stage is not supported by needle; it runs line filters (|=, !=, |~, !~)"
                    + " and label filters (| name=\"value\", !=, =~, !~)");
        }
        List<LogQl.Matcher> anyOf = new ArrayList<>();
        anyOf.add(matcherAfterName(name));
        while (true) {
            skipSpace();
            int save = pos;
            if (!Character.isLetter(peek())) {
                break;
            }
            String word = name();
            if (!word.equalsIgnoreCase("or")) {
                pos = save;
                break;
            }
            anyOf.add(matcher());
        }
        refuseAlternatives("label filters");
        return new LogQl.LabelFilter(anyOf);
    }

    /** {@code label_format name=`{{ contains "text" __line__ }}`}, the one template needle runs. */
    private LogQl.Stage lineContainsLabel(int at) throws LogQlParseException {
        skipSpace();
        String name = name();
        skipSpace();
        expect('=');
        String template = string();
        Matcher m = CONTAINS_LINE.matcher(template);
        if (!m.matches()) {
            throw error(at, "label_format is supported by needle only as name=`{{ contains \"text\" __line__ }}`,"
                    + " the form Grafana's trace-to-logs sends; got " + quote(template));
        }
        String text = m.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
        skipSpace();
        if (peek() == ',') {
            throw error("label_format with several labels is not supported by needle");
        }
        return new LogQl.LineContainsLabel(name, text);
    }

    private LogQl.Matcher matcher() throws LogQlParseException {
        skipSpace();
        return matcherAfterName(name());
    }

    private LogQl.Matcher matcherAfterName(String name) throws LogQlParseException {
        skipSpace();
        LogQl.MatchOp op;
        if (q.startsWith("=~", pos)) {
            op = LogQl.MatchOp.RE;
        } else if (q.startsWith("!~", pos)) {
            op = LogQl.MatchOp.NRE;
        } else if (q.startsWith("!=", pos)) {
            op = LogQl.MatchOp.NE;
        } else if (q.startsWith("==", pos) || q.startsWith(">", pos) || q.startsWith("<", pos)) {
            throw error("numeric and duration comparisons are not supported by needle; compare labels with =, !=, =~"
                    + " or !~ and a quoted string");
        } else if (q.startsWith("=", pos)) {
            op = LogQl.MatchOp.EQ;
        } else {
            throw error("syntax error: unexpected " + describeNext() + " after label " + name
                    + ", expected =, !=, =~ or !~");
        }
        pos += op.symbol().length();
        skipSpace();
        int valueAt = pos;
        if (!atEnd() && peek() != '"' && peek() != '`') {
            throw error("syntax error: unexpected " + describeNext() + ", expected a quoted string after " + name
                    + op.symbol());
        }
        String value = string();
        try {
            return LogQl.Matcher.of(name, op, value);
        } catch (PatternSyntaxException e) {
            throw error(valueAt, "invalid regex " + quote(value) + " for " + name + ": " + e.getDescription());
        }
    }

    /** Loki's {@code or}/{@code and} combinations of filters, which needle does not parse. */
    private void refuseAlternatives(String what) throws LogQlParseException {
        skipSpace();
        int save = pos;
        if (Character.isLetter(peek())) {
            String word = name();
            if (word.equals("or") || word.equals("and")) {
                throw error(save, "combining " + what + " with " + word + " is not supported by needle; chain them instead");
            }
            pos = save;
        } else if (peek() == ',') {
            throw error("combining " + what + " with , is not supported by needle; chain them instead");
        }
    }

    private LogQl.LineOp lineOp() {
        for (LogQl.LineOp op : LogQl.LineOp.values()) {
            if (q.startsWith(op.symbol(), pos)) {
                pos += op.symbol().length();
                return op;
            }
        }
        return null;
    }

    private String name() throws LogQlParseException {
        int start = pos;
        if (atEnd() || !(Character.isLetter(peek()) && peek() < 0x80 || peek() == '_')) {
            throw error("syntax error: unexpected " + describeNext() + ", expected a label name");
        }
        while (!atEnd() && (peek() < 0x80 && Character.isLetterOrDigit(peek()) || peek() == '_')) {
            pos++;
        }
        return q.substring(start, pos);
    }

    /** A quoted string: {@code "…"} with Go's escapes, or {@code `…`} taken as it is. */
    private String string() throws LogQlParseException {
        skipSpace();
        int start = pos;
        if (atEnd() || peek() != '"' && peek() != '`') {
            throw error("syntax error: unexpected " + describeNext() + ", expected a quoted string");
        }
        char quote = q.charAt(pos++);
        StringBuilder out = new StringBuilder();
        while (true) {
            if (atEnd()) {
                throw error(start, "syntax error: the string is not closed");
            }
            char c = q.charAt(pos++);
            if (c == quote) {
                return out.toString();
            }
            if (c == '\\' && quote == '"') {
                escape(out);
            } else if (c == '\n' && quote == '"') {
                throw error(pos - 1, "syntax error: a newline in a string");
            } else {
                out.append(c);
            }
        }
    }

    private void escape(StringBuilder out) throws LogQlParseException {
        if (atEnd()) {
            throw error("syntax error: the string is not closed");
        }
        int at = pos - 1;
        char c = q.charAt(pos++);
        switch (c) {
            case 'n' -> out.append('\n');
            case 't' -> out.append('\t');
            case 'r' -> out.append('\r');
            case 'a' -> out.append('\u0007');
            case 'b' -> out.append('\b');
            case 'f' -> out.append('\f');
            case 'v' -> out.append('\u000b');
            case '\\', '"', '\'' -> out.append(c);
            case 'x' -> out.append((char) hexDigits(2, at));
            case 'u' -> out.appendCodePoint(hexDigits(4, at));
            case 'U' -> out.appendCodePoint(hexDigits(8, at));
            default -> throw error(at, "syntax error: unknown escape \\" + c + " in a string (a regex's backslash is"
                    + " written \\\\, or the string is quoted with `…`)");
        }
    }

    private int hexDigits(int n, int at) throws LogQlParseException {
        if (pos + n > q.length()) {
            throw error(at, "syntax error: an escape needs " + n + " hex digits");
        }
        try {
            int cp = Integer.parseUnsignedInt(q.substring(pos, pos + n), 16);
            pos += n;
            if (!Character.isValidCodePoint(cp)) {
                throw error(at, "syntax error: escape beyond Unicode");
            }
            return cp;
        } catch (NumberFormatException e) {
            throw error(at, "syntax error: an escape needs " + n + " hex digits");
        }
    }

    private LogQl.Constant constant() throws LogQlParseException {
        LogQl.Constant left = term();
        while (true) {
            skipSpace();
            if (peek() == '+' || peek() == '-') {
                char op = q.charAt(pos++);
                LogQl.Constant right = term();
                left = combine(left, right, op == '+' ? left.value() + right.value() : left.value() - right.value());
            } else {
                return left;
            }
        }
    }

    private LogQl.Constant term() throws LogQlParseException {
        LogQl.Constant left = power();
        while (true) {
            skipSpace();
            if (peek() == '*' || peek() == '/' || peek() == '%') {
                char op = q.charAt(pos++);
                LogQl.Constant right = power();
                double v = op == '*' ? left.value() * right.value()
                        : op == '/' ? left.value() / right.value() : left.value() % right.value();
                left = combine(left, right, v);
            } else {
                return left;
            }
        }
    }

    private LogQl.Constant power() throws LogQlParseException {
        LogQl.Constant base = unary();
        skipSpace();
        if (peek() == '^') {
            pos++;
            LogQl.Constant exponent = power();
            return combine(base, exponent, Math.pow(base.value(), exponent.value()));
        }
        return base;
    }

    private LogQl.Constant unary() throws LogQlParseException {
        skipSpace();
        if (peek() == '-' || peek() == '+') {
            boolean minus = q.charAt(pos++) == '-';
            LogQl.Constant c = unary();
            return new LogQl.Constant(minus ? -c.value() : c.value(), c.vector());
        }
        return primary();
    }

    private LogQl.Constant primary() throws LogQlParseException {
        skipSpace();
        if (peek() == '(') {
            pos++;
            LogQl.Constant inner = constant();
            expect(')');
            return inner;
        }
        if (Character.isDigit(peek()) || peek() == '.') {
            return new LogQl.Constant(number(), false);
        }
        if (Character.isLetter(peek())) {
            int at = pos;
            String word = name();
            if (!word.equals("vector")) {
                throw error(at, "metric queries are not supported by needle: it answers log queries ({…} with line and"
                        + " label filters) and constant arithmetic of vector(…) and numbers, not " + word);
            }
            expect('(');
            LogQl.Constant inner = constant();
            expect(')');
            return new LogQl.Constant(inner.value(), true);
        }
        throw error("syntax error: unexpected " + describeNext() + ", expected a number, vector(…), ( or {");
    }

    private double number() throws LogQlParseException {
        int start = pos;
        while (!atEnd() && (Character.isDigit(peek()) || peek() == '.' || peek() == 'e' || peek() == 'E'
                || (peek() == '+' || peek() == '-') && pos > start && (q.charAt(pos - 1) == 'e' || q.charAt(pos - 1) == 'E'))) {
            pos++;
        }
        try {
            return Double.parseDouble(q.substring(start, pos));
        } catch (NumberFormatException e) {
            throw error(start, "syntax error: not a number: " + q.substring(start, pos));
        }
    }

    /** Prometheus: an operation with a vector gives a vector, of two scalars a scalar. */
    private static LogQl.Constant combine(LogQl.Constant a, LogQl.Constant b, double value) {
        return new LogQl.Constant(value, a.vector() || b.vector());
    }

    private void expect(char c) throws LogQlParseException {
        skipSpace();
        if (peek() != c) {
            throw error("syntax error: unexpected " + describeNext() + ", expected " + c);
        }
        pos++;
    }

    private void skipSpace() {
        while (!atEnd() && Character.isWhitespace(q.charAt(pos))) {
            pos++;
        }
    }

    private boolean atEnd() {
        return pos >= q.length();
    }

    /** The next character, or 0 at the end. */
    private char peek() {
        return atEnd() ? 0 : q.charAt(pos);
    }

    private String describeNext() {
        if (atEnd()) {
            return "end of query";
        }
        int end = Math.min(q.length(), pos + 12);
        return quote(q.substring(pos, end)) + (end < q.length() ? "…" : "");
    }

    private LogQlParseException error(String message) {
        return error(pos, message);
    }

    private LogQlParseException error(int at, String message) {
        return new LogQlParseException(q, at, message);
    }
}
