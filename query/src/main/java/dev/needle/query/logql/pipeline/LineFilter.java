package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code |= "text"} and its siblings, each with alternatives joined by {@code or}: a positive filter
 * keeps a line that any alternative holds for, a negative one a line that none holds for (Loki reads
 * {@code != "a" or "b"} as {@code != "a" != "b"}).
 */
public record LineFilter(Op op, List<Term> anyOf) implements Stage {

    public LineFilter {
        anyOf = List.copyOf(anyOf);
        if (anyOf.isEmpty()) {
            throw new IllegalArgumentException("a line filter needs a term");
        }
    }

    /** How a line filter tests the line. */
    public enum Op {
        /** {@code |=}: the line contains the text. */
        CONTAINS("|=", false),
        /** {@code !=}: the line does not contain the text. */
        NOT_CONTAINS("!=", true),
        /** {@code |~}: the regex matches somewhere in the line. */
        MATCHES("|~", false),
        /** {@code !~}: the regex matches nowhere in the line. */
        NOT_MATCHES("!~", true),
        /** {@code |>}: the line fits the pattern. */
        PATTERN("|>", false),
        /** {@code !>}: the line does not fit the pattern. */
        NOT_PATTERN("!>", true);

        private final String symbol;
        private final boolean negative;

        Op(String symbol, boolean negative) {
            this.symbol = symbol;
            this.negative = negative;
        }

        /** How the operator is written. */
        public String symbol() {
            return symbol;
        }
    }

    /**
     * One alternative: a text, a regex (unanchored, as Loki's), a pattern, or {@code ip("…")}.
     *
     * @param text    the text as written
     * @param regex   the regex of {@code |~} and {@code !~}, else null
     * @param pattern the pattern of {@code |>} and {@code !>}, else null
     * @param ip      the addresses of {@code ip("…")}, else null
     */
    public record Term(String text, Pattern regex, PatternExpr pattern, IpMatch ip) {

        /** A term of {@code op}; a regex, pattern or address that is not valid throws. */
        public static Term of(Op op, String text, boolean ip) {
            if (ip) {
                return new Term(text, null, null, IpMatch.parse(text));
            }
            return switch (op) {
                case MATCHES, NOT_MATCHES -> new Term(text, GoRegex.compile(text, 0).pattern(), null, null);
                case PATTERN, NOT_PATTERN -> new Term(text, null, PatternExpr.forLineFilter(text), null);
                default -> new Term(text, null, null, null);
            };
        }

        /** Whether the term holds for the line (before a negative operator turns it). */
        public boolean holds(String line) {
            if (ip != null) {
                return ip.matchesLine(line);
            }
            if (regex != null) {
                return regex.matcher(line).find();
            }
            if (pattern != null) {
                return pattern.test(line);
            }
            return line.contains(text);
        }

        @Override
        public String toString() {
            return ip != null ? ip.toString() : LogQlParser.quote(text);
        }
    }

    @Override
    public boolean process(EntryState entry) {
        return test(entry.line());
    }

    /** Whether {@code line} passes this filter. */
    public boolean test(String line) {
        for (Term t : anyOf) {
            if (t.holds(line)) {
                return !op.negative;
            }
        }
        return op.negative;
    }

    @Override
    public String toString() {
        StringBuilder out = new StringBuilder(op.symbol());
        for (int i = 0; i < anyOf.size(); i++) {
            out.append(i == 0 ? " " : " or ").append(anyOf.get(i));
        }
        return out.toString();
    }
}
