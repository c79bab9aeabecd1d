package dev.needle.sidecar.cli;

import dev.needle.sidecar.AttributeEncoding;
import dev.needle.sidecar.AttributeHash;

/**
 * One {@code key=literal} probe typed as docs/DESIGN.md types query literals: a quoted string, an
 * integer, a decimal, or true/false.
 *
 * @param key      the attribute key
 * @param literal  the literal as written
 * @param type     the encoding type byte the probe uses
 * @param value    the typed value: String, Long, Double (fractional only) or Boolean
 */
record AttributeLiteral(String key, String literal, char type, Object value) {

    /** Parses {@code key=literal}, splitting at the first '='. */
    static AttributeLiteral parse(String text) {
        int eq = text.indexOf('=');
        if (eq <= 0) {
            throw new IllegalArgumentException("expected key=literal, got '" + text + "'");
        }
        String key = text.substring(0, eq).strip();
        String literal = text.substring(eq + 1).strip();
        if (literal.length() >= 2 && literal.startsWith("\"") && literal.endsWith("\"")) {
            return new AttributeLiteral(key, literal, 's', unquote(literal));
        }
        if (literal.equals("true") || literal.equals("false")) {
            return new AttributeLiteral(key, literal, 'b', Boolean.parseBoolean(literal));
        }
        if (literal.matches("[-+]?\\d+")) {
            try {
                return new AttributeLiteral(key, literal, 'n', Long.parseLong(literal));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("integer literal " + literal + " does not fit in an int64");
            }
        }
        if (literal.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")) {
            double d = Double.parseDouble(literal);
            if (AttributeEncoding.isIntegralInt64(d)) {
                return new AttributeLiteral(key, literal, 'n', (long) d);
            }
            return new AttributeLiteral(key, literal, 'd', d);
        }
        throw new IllegalArgumentException("cannot read literal '" + literal
                + "': expected a quoted string, an integer, a decimal, true or false");
    }

    /** The pair's hash. */
    AttributeHash hash() {
        return switch (type) {
            case 's' -> AttributeHash.ofString(key, (String) value);
            case 'n' -> AttributeHash.ofLong(key, (Long) value);
            case 'd' -> AttributeHash.ofDouble(key, (Double) value);
            default -> AttributeHash.ofBool(key, (Boolean) value);
        };
    }

    private static String unquote(String quoted) {
        StringBuilder out = new StringBuilder();
        for (int i = 1; i < quoted.length() - 1; i++) {
            char c = quoted.charAt(i);
            if (c != '\\') {
                out.append(c);
                continue;
            }
            if (++i >= quoted.length() - 1) {
                throw new IllegalArgumentException("string literal " + quoted + " ends inside an escape");
            }
            char e = quoted.charAt(i);
            switch (e) {
                case '"', '\\', '/' -> out.append(e);
                case 'n' -> out.append('\n');
                case 't' -> out.append('\t');
                case 'r' -> out.append('\r');
                case 'u' -> {
                    if (i + 4 >= quoted.length()) {
                        throw new IllegalArgumentException("short \\u escape in " + quoted);
                    }
                    out.append((char) Integer.parseInt(quoted.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> throw new IllegalArgumentException("unknown escape \\" + e + " in " + quoted);
            }
        }
        return out.toString();
    }
}
