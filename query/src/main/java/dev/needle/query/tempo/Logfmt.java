package dev.needle.query.tempo;

import dev.needle.blocks.model.Signal;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.Params;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.query.ql.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Tempo's {@code tags} search parameter: logfmt pairs {@code key=value} separated by spaces, each
 * meaning {@code .key = value} on a span, its scope or its resource, all of them ANDed.
 *
 * <pre>
 * tags  = space* ( pair ( space+ pair )* )? space*
 * pair  = key '=' value
 * key   = ( any character but space, '=' and '"' )+
 * value = '"' ( char | '\"' | '\\' | '\n' | '\t' | '\r' )* '"' | ( any character but space, '=' and '"' )*
 * space = any character up to U+0020: blanks, tabs, line ends
 * </pre>
 *
 * <p>A value always matches the string it spells. Tag values are untyped in logfmt, so a value
 * that spells a number or a bool also matches an attribute of that type:
 * {@code http.status_code=500} finds the int 500 as well as the string "500". Keys are attribute
 * keys only: {@code name=x} means an attribute called name, not the span name.
 */
final class Logfmt {

    private static final Pattern INT = Pattern.compile("-?\\d{1,19}");
    private static final Pattern DECIMAL = Pattern.compile("-?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    private final String text;
    private int pos;

    private Logfmt(String text) {
        this.text = text;
    }

    /** The condition the tags stand for; {@link Expr.MatchAll} for no tags at all. */
    static Expr parse(String tags) throws ApiException {
        return new Logfmt(tags).pairs();
    }

    private Expr pairs() throws ApiException {
        List<Expr> terms = new ArrayList<>();
        skipSpace();
        while (pos < text.length()) {
            int keyAt = pos;
            String key = bare();
            if (key.isEmpty()) {
                throw error(keyAt, "expected a key");
            }
            if (pos >= text.length() || text.charAt(pos) != '=') {
                throw error(pos, "expected '=' after the key " + Params.quote(key));
            }
            pos++;
            String value = pos < text.length() && text.charAt(pos) == '"' ? quoted() : bare();
            if (pos < text.length() && !isSpace(text.charAt(pos))) {
                throw error(pos, "expected a space after the value of " + Params.quote(key));
            }
            terms.add(condition(key, value));
            skipSpace();
        }
        return switch (terms.size()) {
            case 0 -> new Expr.MatchAll();
            case 1 -> terms.get(0);
            default -> new Expr.And(terms);
        };
    }

    private static Expr condition(String key, String value) {
        Attribute attribute = new Attribute(Signal.SPANS, Attribute.Scope.UNSCOPED, key);
        List<Expr> alternatives = new ArrayList<>();
        alternatives.add(new Expr.Condition(attribute, Op.EQ, new Literal.StringLit(value)));
        Literal typed = typed(value);
        if (typed != null) {
            alternatives.add(new Expr.Condition(attribute, Op.EQ, typed));
        }
        return alternatives.size() == 1 ? alternatives.get(0) : new Expr.Or(alternatives);
    }

    /** The number or bool {@code value} spells, or null; an int literal also matches equal doubles. */
    private static Literal typed(String value) {
        if (value.equals("true") || value.equals("false")) {
            return new Literal.BoolLit(value.equals("true"));
        }
        if (INT.matcher(value).matches()) {
            try {
                return new Literal.IntLit(Long.parseLong(value));
            } catch (NumberFormatException beyondInt64) {
                // Falls through: a decimal literal of the same value still matches doubles.
            }
        }
        if (DECIMAL.matcher(value).matches()) {
            double d = Double.parseDouble(value);
            return Double.isFinite(d) ? new Literal.DoubleLit(d) : null;
        }
        return null;
    }

    private String bare() {
        int start = pos;
        while (pos < text.length() && !isSpace(text.charAt(pos)) && text.charAt(pos) != '=' && text.charAt(pos) != '"') {
            pos++;
        }
        return text.substring(start, pos);
    }

    private String quoted() throws ApiException {
        int start = pos++;
        StringBuilder sb = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return sb.toString();
            }
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            if (pos >= text.length()) {
                break;
            }
            char e = text.charAt(pos++);
            switch (e) {
                case '"', '\\' -> sb.append(e);
                case 'n' -> sb.append('\n');
                case 't' -> sb.append('\t');
                case 'r' -> sb.append('\r');
                default -> throw error(pos - 2, "unknown escape \\" + e + " in a quoted value");
            }
        }
        throw error(start, "the quoted value is not closed");
    }

    private void skipSpace() {
        while (pos < text.length() && isSpace(text.charAt(pos))) {
            pos++;
        }
    }

    private static boolean isSpace(char c) {
        return c <= ' ';
    }

    private static ApiException error(int at, String message) {
        return ApiException.badRequest("tags: at " + at + ": " + message);
    }
}
