package dev.needle.query.ql;

import dev.needle.blocks.model.Severity;
import dev.needle.blocks.model.Signal;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.PatternSyntaxException;

/**
 * Parses needle's query language, the subset of TraceQL of equalities, comparisons and regexes, by recursive
 * descent straight over the characters (the meaning of a word depends on where it stands:
 * {@code error} is 2 after {@code status}, 17 after {@code severity}).
 *
 * <pre>
 * selector  = '{' [ or ] '}'                 -- '{ }' selects every record
 * or        = and ( '||' and )*
 * and       = primary ( '&amp;&amp;' primary )*
 * primary   = '(' or ')' | condition
 * condition = attribute op literal
 * attribute = ( 'resource' | 'span' | 'log' | 'instrumentation' | 'scope' )? '.' key | intrinsic | trace
 * key       = ( letter | digit | '.' | '-' | '_' | '/' )+ | string
 * intrinsic = ( 'span:' )? ( 'name' | 'status' | 'kind' | 'duration' | 'statusMessage' )  (spans) | 'severity' (logs)
 * trace     = 'trace:' ( 'rootService' | 'rootName' | 'duration' ) | 'rootServiceName' | 'rootName' | 'traceDuration'
 *                                                      (spans: fields of the whole trace)
 *           | 'event:name'                             (spans: the name of any of its events)
 * op        = '=' | '!=' | '&lt;' | '&lt;=' | '&gt;' | '&gt;=' | '=~' | '!~'
 * literal   = string | number | 'true' | 'false'          (and per intrinsic: see below; a string after =~ and !~)
 * string    = '"' ( char | '\"' | '\\' | '\n' | '\r' | '\t' | '&#92;u' hex{4} )* '"'
 * number    = '-'? ( digits ( '.' digits )? | '.' digits ) ( ( 'e' | 'E' ) ( '+' | '-' )? digits )?
 * </pre>
 *
 * <p>A number without fraction or exponent is an int (int64; beyond it is an error), any other a
 * double. Intrinsics take their own literals, all ints: {@code name} and {@code statusMessage} a string
 * (so do {@code trace:rootService} and {@code trace:rootName}; {@code trace:duration} a duration);
 * {@code status} ok, error, unset (1, 2, 0) or an int; {@code kind} unspecified, internal, server,
 * client, producer, consumer (0 to 5) or an int; {@code duration} a number with a unit
 * {@code ns us ms s m h} (1.5s, 2e3ms; a whole number of nanoseconds); {@code severity} an int
 * 0 to 24 or trace, debug, info, warn, error, fatal, which stand for the first number of their
 * range (1, 5, 9, 13, 17, 21): {@code severity = warn} is {@code severity = 13} (WARN, not WARN2),
 * and {@code severity >= warn} is {@code >= 13}. After {@code =~} and {@code !~} the string is a
 * regular expression ({@link Literal.Regex}), matched against string values and string intrinsics.
 */
public final class QueryParser {

    /** Deep enough for any written query; bounds the recursion against hostile input. */
    static final int MAX_DEPTH = 100;

    private static final String LITERAL = "a literal (a \"string\", a number, true or false)";
    private static final String DURATION = "a duration (such as 2s, 150ms or 1.5h)";
    private static final String SEVERITY = "a severity (a number from 0 to " + Severity.MAX_NUMBER
            + ", or " + String.join(", ", Severity.words()) + ")";
    private static final Op[] OPS_LONGEST_FIRST = {Op.MATCH, Op.NOT_MATCH, Op.NE, Op.LE, Op.GE, Op.EQ, Op.LT, Op.GT};
    private static final List<String> TWO_CHAR_TOKENS = List.of("&&", "||", "!=", "<=", ">=", "=~", "!~");
    private static final String PUNCTUATION = "{}()=<>!&|~\"";
    private static final int EOF = -1;

    private final String text;
    private final Signal signal;
    private int pos;
    private int depth;

    private QueryParser(String text, Signal signal) {
        this.text = text;
        this.signal = signal;
    }

    /** Parses a selector such as {@code { resource.service.name = "cart" && duration > 2s }} over {@code signal}'s records. */
    public static Expr parse(String text, Signal signal) throws QueryParseException {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(signal, "signal");
        return new QueryParser(text, signal).selector();
    }

    private Expr selector() throws QueryParseException {
        expect("{", "'{'");
        skipSpace();
        Expr e = at(pos) == '}' ? new Expr.MatchAll() : or();
        expect("}", "'&&', '||' or '}'");
        skipSpace();
        if (pos < text.length()) {
            throw expected("the end of the query");
        }
        return e;
    }

    private Expr or() throws QueryParseException {
        List<Expr> terms = new ArrayList<>(List.of(and()));
        while (accept("||")) {
            terms.add(and());
        }
        return terms.size() == 1 ? terms.get(0) : new Expr.Or(terms);
    }

    private Expr and() throws QueryParseException {
        List<Expr> terms = new ArrayList<>(List.of(primary()));
        while (accept("&&")) {
            terms.add(primary());
        }
        return terms.size() == 1 ? terms.get(0) : new Expr.And(terms);
    }

    private Expr primary() throws QueryParseException {
        skipSpace();
        if (!accept("(")) {
            return condition();
        }
        if (++depth > MAX_DEPTH) {
            throw new QueryParseException(pos - 1, "parentheses nested deeper than " + MAX_DEPTH);
        }
        Expr e = or();
        expect(")", "'&&', '||' or ')'");
        depth--;
        return e;
    }

    private Expr condition() throws QueryParseException {
        Attribute attribute = attribute();
        skipSpace();
        int opAt = pos;
        Op op = op();
        skipSpace();
        Literal literal = op.isRegex() ? regex(attribute, opAt) : literal(attribute);
        try {
            return new Expr.Condition(attribute, op, literal);
        } catch (IllegalArgumentException e) {
            // The literal was read for this attribute, so only the operator can be wrong (bools have no order).
            throw new QueryParseException(opAt, e.getMessage());
        }
    }

    private Attribute attribute() throws QueryParseException {
        int start = pos;
        if (at(pos) == '.') {
            pos++;
            return new Attribute(signal, Attribute.Scope.UNSCOPED, key("."));
        }
        int end = keyRunEnd(pos);
        String word = text.substring(pos, end);
        if (word.isEmpty() || !Character.isLetter(word.charAt(0))) {
            throw expected("a condition: an attribute (resource.<key>, " + Attribute.recordScope(signal)
                    + "<key>, instrumentation.<key>, .<key>) or an intrinsic ("
                    + Attribute.intrinsics(signal) + ")");
        }
        int dot = word.indexOf('.');
        if (dot < 0 && at(end) == ':') {
            int fieldEnd = keyRunEnd(end + 1);
            pos = fieldEnd;
            return scopedField(start, word, text.substring(end + 1, fieldEnd));
        }
        if (dot < 0) {
            pos = end;
            String traceField = TraceField.findTempoWord(word).map(TraceField::word).orElse(null);
            try {
                return traceField != null ? new Attribute(signal, Attribute.Scope.TRACE, traceField)
                        : new Attribute(signal, Attribute.Scope.INTRINSIC, word);
            } catch (IllegalArgumentException e) {
                throw new QueryParseException(start, e.getMessage());
            }
        }
        String prefix = word.substring(0, dot + 1);
        Attribute.Scope scope = switch (prefix) {
            case "resource." -> Attribute.Scope.RESOURCE;
            case "instrumentation.", "scope." -> Attribute.Scope.SCOPE;
            case "span.", "log." -> Attribute.Scope.RECORD;
            default -> throw new QueryParseException(start, "unknown scope '" + prefix
                    + "': expected resource., " + Attribute.recordScope(signal) + ", instrumentation., scope. or . (any)");
        };
        if (scope == Attribute.Scope.RECORD && !prefix.equals(Attribute.recordScope(signal))) {
            throw new QueryParseException(start, signal.dirName() + " have no " + prefix + " attributes: use "
                    + Attribute.recordScope(signal) + "<key> or .<key>");
        }
        pos = start + prefix.length();
        return new Attribute(signal, scope, key(prefix));
    }

    /** {@code span:field} (an intrinsic of spans), {@code trace:field} (a field of the whole trace) or {@code event:name}, as Tempo scopes them. */
    private Attribute scopedField(int start, String scope, String field) throws QueryParseException {
        try {
            return switch (scope) {
                case "span" -> {
                    if (signal != Signal.SPANS) {
                        throw new IllegalArgumentException("span:" + field + " is a field of spans, not of "
                                + signal.dirName());
                    }
                    yield new Attribute(signal, Attribute.Scope.INTRINSIC, field);
                }
                case "trace" -> new Attribute(signal, Attribute.Scope.TRACE, field);
                case "event" -> new Attribute(signal, Attribute.Scope.EVENT, field);
                default -> throw new IllegalArgumentException("unknown scope '" + scope
                        + ":': expected span:, trace: or event: (or an attribute scope such as resource.)");
            };
        } catch (IllegalArgumentException e) {
            throw new QueryParseException(start, e.getMessage());
        }
    }

    private String key(String after) throws QueryParseException {
        if (at(pos) == '"') {
            return string();
        }
        int end = keyRunEnd(pos);
        if (end == pos) {
            throw expected("an attribute key after '" + after + "' (letters, digits, . - _ / or a \"quoted key\")");
        }
        String key = text.substring(pos, end);
        pos = end;
        return key;
    }

    private Op op() throws QueryParseException {
        for (Op op : OPS_LONGEST_FIRST) {
            if (text.startsWith(op.symbol(), pos)) {
                pos += op.symbol().length();
                return op;
            }
        }
        throw expected("an operator (=, !=, <, <=, >, >=, =~, !~)");
    }

    /** The quoted regex after {@code =~} or {@code !~}, compiled; only string values and intrinsics take one. */
    private Literal regex(Attribute attribute, int opAt) throws QueryParseException {
        if (attribute.isField() && !attribute.isStringField()) {
            throw new QueryParseException(opAt, "=~ and !~ match strings, and " + attribute
                    + " is not one: compare it with = or !=");
        }
        int start = pos;
        if (at(pos) != '"') {
            throw expected("a \"regular expression\" in quotes");
        }
        String pattern = string();
        try {
            return new Literal.Regex(pattern);
        } catch (PatternSyntaxException e) {
            throw new QueryParseException(start, "invalid regular expression " + Canonical.quote(pattern) + ": "
                    + e.getDescription() + (e.getIndex() >= 0 ? " at index " + e.getIndex() + " of the pattern" : ""));
        }
    }

    private Literal literal(Attribute attribute) throws QueryParseException {
        if (attribute.scope() == Attribute.Scope.TRACE) {
            return attribute.isStringField() ? quoted("the " + attribute.key() + " of the trace") : duration();
        }
        if (attribute.scope() == Attribute.Scope.EVENT) {
            return quoted("an event name");
        }
        if (attribute.scope() == Attribute.Scope.INTRINSIC) {
            return switch (attribute.intrinsic()) {
                case NAME -> quoted("the span name");
                case STATUS_MESSAGE -> quoted("the status message");
                case STATUS -> keywordOrInt(Keywords.STATUSES, 0, 1, "a status (ok, error or unset)");
                case KIND -> keywordOrInt(Keywords.KINDS, 0, 1,
                        "a span kind (" + String.join(", ", Keywords.KINDS) + ")");
                case SEVERITY -> severity();
                case DURATION -> duration();
            };
        }
        int start = pos;
        if (at(pos) == '"') {
            return new Literal.StringLit(string());
        }
        Num num = number();
        if (num != null) {
            if (!num.unit().isEmpty()) {
                throw Canonical.UNITS.contains(num.unit())
                        ? new QueryParseException(start, "a duration such as '" + num.whole()
                                + "' compares only with duration, not with attributes")
                        : expectedAt(start, LITERAL);
            }
            return num.integral() ? new Literal.IntLit(parseLong(num)) : new Literal.DoubleLit(parseDouble(num));
        }
        String word = word();
        if (word.equals("true") || word.equals("false")) {
            return new Literal.BoolLit(word.equals("true"));
        }
        throw expectedAt(start, LITERAL);
    }

    /** A quoted string, the only literal of a string field ({@code what}). */
    private Literal quoted(String what) throws QueryParseException {
        if (at(pos) != '"') {
            throw expected("a \"string\" (" + what + ")");
        }
        return new Literal.StringLit(string());
    }

    /** A keyword from {@code words}, standing for {@code base + step · index}, or a plain int. */
    private Literal.IntLit keywordOrInt(List<String> words, int base, int step, String what)
            throws QueryParseException {
        int start = pos;
        String word = word();
        int i = words.indexOf(word);
        if (i >= 0) {
            return new Literal.IntLit(base + (long) step * i);
        }
        Num num = word.isEmpty() ? number() : null;
        if (num == null || !num.integral() || !num.unit().isEmpty()) {
            throw expectedAt(start, what);
        }
        return new Literal.IntLit(parseLong(num));
    }

    private Literal severity() throws QueryParseException {
        int start = pos;
        Literal.IntLit l = keywordOrInt(Severity.words(), Severity.TRACE.number(), 4, SEVERITY);
        if (l.value() < 0 || l.value() > Severity.MAX_NUMBER) {
            throw expectedAt(start, SEVERITY);
        }
        return l;
    }

    private Literal duration() throws QueryParseException {
        int start = pos;
        Num num = number();
        if (num == null || num.unit().isEmpty()) {
            throw expectedAt(start, DURATION);
        }
        int unit = Canonical.UNITS.indexOf(num.unit());
        if (unit < 0) {
            throw new QueryParseException(start + num.number().length(), "unknown duration unit '" + num.unit()
                    + "': expected " + String.join(", ", Canonical.UNITS));
        }
        try {
            BigDecimal nanos = new BigDecimal(num.number()).multiply(BigDecimal.valueOf(Canonical.UNIT_NANOS[unit]));
            return new Literal.IntLit(nanos.longValueExact());
        } catch (ArithmeticException | NumberFormatException e) {
            throw new QueryParseException(start, "duration '" + num.whole()
                    + "' is not a whole number of nanoseconds within the int64 range");
        }
    }

    /** A number's text, whether it is an int (no fraction, no exponent), and the letters right after it. */
    private record Num(int start, String number, boolean integral, String unit) {
        String whole() {
            return number + unit;
        }
    }

    /** The number at the position, with its unit, consumed; or null, consuming nothing. */
    private Num number() {
        int start = pos;
        int p = at(pos) == '-' ? pos + 1 : pos;
        int digits = p;
        p = digitsEnd(p);
        boolean integral = true;
        if (at(p) == '.' && isDigit(at(p + 1))) {
            integral = false;
            p = digitsEnd(p + 1);
        } else if (p == digits) {
            return null;
        }
        if (at(p) == 'e' || at(p) == 'E') {
            int q = at(p + 1) == '+' || at(p + 1) == '-' ? p + 2 : p + 1;
            if (isDigit(at(q))) {
                integral = false;
                p = digitsEnd(q);
            }
        }
        int unitEnd = p;
        while (unitEnd < text.length() && isAsciiLetter(text.charAt(unitEnd))) {
            unitEnd++;
        }
        pos = unitEnd;
        return new Num(start, text.substring(start, p), integral, text.substring(p, unitEnd));
    }

    private long parseLong(Num num) throws QueryParseException {
        try {
            return Long.parseLong(num.number());
        } catch (NumberFormatException e) {
            throw new QueryParseException(num.start(), "integer " + num.number()
                    + " is outside the int64 range; write " + num.number() + ".0 to compare as a double");
        }
    }

    private double parseDouble(Num num) throws QueryParseException {
        double d = Double.parseDouble(num.number());
        if (Double.isInfinite(d)) {
            throw new QueryParseException(num.start(), "number " + num.number() + " is outside the double range");
        }
        return d;
    }

    /** A quoted string at the position, unescaped. */
    private String string() throws QueryParseException {
        int start = pos++;
        StringBuilder out = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return out.toString();
            }
            if (c != '\\') {
                out.append(c);
                continue;
            }
            int escape = pos - 1;
            switch (at(pos++)) {
                case '"' -> out.append('"');
                case '\\' -> out.append('\\');
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> out.append(hex4(escape));
                case EOF -> throw new QueryParseException(start, "unterminated string: no closing '\"'");
                default -> throw new QueryParseException(escape, "unknown escape '" + text.substring(escape, pos)
                        + "': expected \\\", \\\\, \\n, \\r, \\t or \\uXXXX");
            }
        }
        throw new QueryParseException(start, "unterminated string: no closing '\"'");
    }

    private char hex4(int escape) throws QueryParseException {
        int value = 0;
        for (int i = 0; i < 4; i++) {
            int c = at(pos + i);
            if (c == EOF || "0123456789abcdefABCDEF".indexOf(c) < 0) {
                throw new QueryParseException(escape, "expected four hex digits after '\\u'");
            }
            value = value * 16 + Character.digit(c, 16);
        }
        pos += 4;
        return (char) value;
    }

    /** A word [A-Za-z_][A-Za-z0-9_]* at the position, consumed; "" if none. */
    private String word() {
        int start = pos;
        if (isAsciiLetter(at(pos)) || at(pos) == '_') {
            while (isAsciiLetter(at(pos)) || isDigit(at(pos)) || at(pos) == '_') {
                pos++;
            }
        }
        return text.substring(start, pos);
    }

    private boolean accept(String token) {
        skipSpace();
        if (text.startsWith(token, pos)) {
            pos += token.length();
            return true;
        }
        return false;
    }

    private void expect(String token, String what) throws QueryParseException {
        if (!accept(token)) {
            throw expected(what);
        }
    }

    private QueryParseException expected(String what) {
        return expectedAt(pos, what);
    }

    private QueryParseException expectedAt(int at, String what) {
        return new QueryParseException(at, "expected " + what + ", found " + describe(at));
    }

    /** What stands at a position, for error messages: a token, a word, a string, or the end. */
    private String describe(int at) {
        if (at >= text.length()) {
            return "the end of the query";
        }
        char c = text.charAt(at);
        if (Character.isWhitespace(c)) {
            return "a space";
        }
        for (String t : TWO_CHAR_TOKENS) {
            if (text.startsWith(t, at)) {
                return "'" + t + "'";
            }
        }
        int end = at + 1;
        if (c == '"') {
            while (end < text.length() && text.charAt(end) != '"') {
                end += text.charAt(end) == '\\' ? 2 : 1;
            }
            end = Math.min(end + 1, text.length());
        } else if (PUNCTUATION.indexOf(c) < 0) {
            while (end < text.length() && !Character.isWhitespace(text.charAt(end))
                    && PUNCTUATION.indexOf(text.charAt(end)) < 0) {
                end++;
            }
        }
        String s = text.substring(at, end);
        return "'" + (s.length() > 32 ? s.substring(0, 32) + "…" : s) + "'";
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private int keyRunEnd(int p) {
        while (p < text.length() && Canonical.isKeyChar(text.charAt(p))) {
            p++;
        }
        return p;
    }

    private int digitsEnd(int p) {
        while (isDigit(at(p))) {
            p++;
        }
        return p;
    }

    private int at(int p) {
        return p < text.length() ? text.charAt(p) : EOF;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isAsciiLetter(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
    }
}
