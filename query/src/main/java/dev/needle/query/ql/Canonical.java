package dev.needle.query.ql;

import java.util.List;

/**
 * The canonical text of queries, and the words shared by the parser and the printer, so that what
 * one writes the other reads back.
 */
final class Canonical {

    /** Duration units, largest first, with their length in nanoseconds. */
    static final List<String> UNITS = List.of("h", "m", "s", "ms", "us", "ns");
    static final long[] UNIT_NANOS = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};

    private Canonical() {
    }

    /** {@code { body }}, or {@code { }} for MatchAll. */
    static String selector(Expr e) {
        if (e instanceof Expr.MatchAll) {
            return "{ }";
        }
        StringBuilder out = new StringBuilder("{ ");
        body(e, out);
        return out.append(" }").toString();
    }

    /** Parentheses only where they are needed: an Or inside an And. */
    private static void body(Expr e, StringBuilder out) {
        if (e instanceof Expr.Or or) {
            join(or.terms(), " || ", false, out);
        } else if (e instanceof Expr.And and) {
            join(and.terms(), " && ", true, out);
        } else {
            Expr.Condition c = (Expr.Condition) e;
            out.append(c.attribute()).append(' ').append(c.op().symbol()).append(' ')
                    .append(literal(c.attribute(), c.literal()));
        }
    }

    private static void join(List<Expr> terms, String separator, boolean parenthesizeOr, StringBuilder out) {
        for (int i = 0; i < terms.size(); i++) {
            Expr t = terms.get(i);
            out.append(i == 0 ? "" : separator);
            boolean parens = parenthesizeOr && t instanceof Expr.Or;
            out.append(parens ? "(" : "");
            body(t, out);
            out.append(parens ? ")" : "");
        }
    }

    /** A literal as written against an attribute: durations with a unit, status and kind by name. */
    private static String literal(Attribute a, Literal l) {
        if (a.scope() == Attribute.Scope.TRACE && l instanceof Literal.IntLit d) {
            return duration(d.value());
        }
        if (a.scope() != Attribute.Scope.INTRINSIC || !(l instanceof Literal.IntLit i)) {
            return l.toString();
        }
        long v = i.value();
        return switch (a.intrinsic()) {
            case DURATION -> duration(v);
            case STATUS, KIND -> Keywords.of(a.intrinsic(), v).orElse(l.toString());
            case NAME, STATUS_MESSAGE, SEVERITY -> l.toString();
        };
    }

    /** Nanoseconds in the largest unit that holds them exactly: 150ms, not 150000000ns. */
    private static String duration(long nanos) {
        if (nanos == 0) {
            return "0s";
        }
        int u = 0;
        while (nanos % UNIT_NANOS[u] != 0) {
            u++;
        }
        return nanos / UNIT_NANOS[u] + UNITS.get(u);
    }

    /** A key as written after its scope: bare when every character may appear bare, else quoted. */
    static String key(String key) {
        if (key.isEmpty()) {
            return quote(key);
        }
        for (int i = 0; i < key.length(); i++) {
            if (!isKeyChar(key.charAt(i))) {
                return quote(key);
            }
        }
        return key;
    }

    /** Characters of an unquoted key: letters, digits, {@code . - _ /}. */
    static boolean isKeyChar(char c) {
        return Character.isLetterOrDigit(c) || c == '.' || c == '-' || c == '_' || c == '/';
    }

    /** A double-quoted string with the escapes the parser reads: \" \\ \n \r \t, \\uXXXX for other controls. */
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
}
