package dev.needle.query.logql;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A parsed LogQL query, the subset needle answers: a log query (a stream selector and a pipeline of
 * line and label filters), or the constant arithmetic of {@code vector(…)} and numbers that
 * Grafana's health check sends.
 */
public sealed interface LogQl {

    /** How a matcher or label filter compares: {@code =}, {@code !=}, {@code =~}, {@code !~}. */
    enum MatchOp {
        /** {@code =} */
        EQ("="),
        /** {@code !=} */
        NE("!="),
        /** {@code =~}: the regex matches the whole value. */
        RE("=~"),
        /** {@code !~}: the regex does not match the whole value. */
        NRE("!~");

        private final String symbol;

        MatchOp(String symbol) {
            this.symbol = symbol;
        }

        /** How the operator is written. */
        public String symbol() {
            return symbol;
        }

        /** Whether the right-hand side is a regex. */
        public boolean isRegex() {
            return this == RE || this == NRE;
        }
    }

    /**
     * {@code name op "value"}, a stream matcher or a label filter. A missing label has the value
     * {@code ""}, as in Loki: {@code name!="x"} and {@code name=""} hold for a stream without it.
     *
     * @param regex the anchored pattern of {@code =~} and {@code !~}; null for the others
     */
    record Matcher(String name, MatchOp op, String value, Pattern regex) {
        public Matcher {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(op, "op");
            Objects.requireNonNull(value, "value");
            if (op.isRegex() != (regex != null)) {
                throw new IllegalArgumentException(op.symbol() + (op.isRegex() ? " needs" : " takes no") + " regex");
            }
        }

        /** A matcher; a regex is compiled anchored, with {@code .} matching newlines, as Prometheus' are. */
        public static Matcher of(String name, MatchOp op, String value) {
            return new Matcher(name, op, value, op.isRegex() ? Pattern.compile(value, Pattern.DOTALL) : null);
        }

        /** Whether a label whose value is {@code actual} ({@code ""} when missing) satisfies this matcher. */
        public boolean test(String actual) {
            return switch (op) {
                case EQ -> actual.equals(value);
                case NE -> !actual.equals(value);
                case RE -> regex.matcher(actual).matches();
                case NRE -> !regex.matcher(actual).matches();
            };
        }

        @Override
        public String toString() {
            return name + op.symbol() + LogQlParser.quote(value);
        }
    }

    /** One step of a log query's pipeline. */
    sealed interface Stage {
        /**
         * Whether the entry passes this step; {@code parsed} holds the labels earlier steps made, and
         * this one may add to it.
         */
        boolean test(LokiEntry e, Map<String, String> parsed);
    }

    /** How a line filter tests the line. */
    enum LineOp {
        /** {@code |=}: the line contains the text. */
        CONTAINS("|="),
        /** {@code !=}: the line does not contain the text. */
        NOT_CONTAINS("!="),
        /** {@code |~}: the regex matches somewhere in the line. */
        MATCHES("|~"),
        /** {@code !~}: the regex matches nowhere in the line. */
        NOT_MATCHES("!~");

        private final String symbol;

        LineOp(String symbol) {
            this.symbol = symbol;
        }

        /** How the operator is written. */
        public String symbol() {
            return symbol;
        }
    }

    /**
     * {@code |= "text"} and its siblings.
     *
     * @param regex the unanchored pattern of {@code |~} and {@code !~}; null for the others
     */
    record LineFilter(LineOp op, String text, Pattern regex) implements Stage {
        /** A line filter, its regex compiled as Loki does (unanchored). */
        public static LineFilter of(LineOp op, String text) {
            boolean isRegex = op == LineOp.MATCHES || op == LineOp.NOT_MATCHES;
            return new LineFilter(op, text, isRegex ? Pattern.compile(text) : null);
        }

        @Override
        public boolean test(LokiEntry e, Map<String, String> parsed) {
            return test(e.line());
        }

        /** Whether {@code line} passes this filter. */
        public boolean test(String line) {
            return switch (op) {
                case CONTAINS -> line.contains(text);
                case NOT_CONTAINS -> !line.contains(text);
                case MATCHES -> regex.matcher(line).find();
                case NOT_MATCHES -> !regex.matcher(line).find();
            };
        }

        @Override
        public String toString() {
            return op.symbol() + " " + LogQlParser.quote(text);
        }
    }

    /**
     * {@code | name op "value"}, or several joined by {@code or} (any of them holds): on a label an
     * earlier step made, else a stream label, else structured metadata ({@link LokiEntry#label}).
     */
    record LabelFilter(List<Matcher> anyOf) implements Stage {
        public LabelFilter {
            anyOf = List.copyOf(anyOf);
            if (anyOf.isEmpty()) {
                throw new IllegalArgumentException("a label filter needs a matcher");
            }
        }

        @Override
        public boolean test(LokiEntry e, Map<String, String> parsed) {
            for (Matcher m : anyOf) {
                String made = parsed.get(m.name());
                if (m.test(made != null ? made : e.label(m.name()))) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder("|");
            for (int i = 0; i < anyOf.size(); i++) {
                out.append(i == 0 ? " " : " or ").append(anyOf.get(i));
            }
            return out.toString();
        }
    }

    /**
     * {@code | label_format name=`{{ contains "text" __line__ }}`}: the label {@code name} is
     * {@code true} when the line contains the text, else {@code false}. The one template of
     * {@code label_format} needle runs: Grafana's trace-to-logs sends it.
     */
    record LineContainsLabel(String name, String text) implements Stage {
        @Override
        public boolean test(LokiEntry e, Map<String, String> parsed) {
            parsed.put(name, Boolean.toString(e.line().contains(text)));
            return true;
        }

        @Override
        public String toString() {
            return "| label_format " + name + "=`{{ contains " + LogQlParser.quote(text) + " __line__ }}`";
        }
    }

    /** {@code {matchers} stages…}: the log lines of the selected streams that pass every stage. */
    record LogQuery(List<Matcher> selector, List<Stage> pipeline) implements LogQl {
        public LogQuery {
            selector = List.copyOf(selector);
            pipeline = List.copyOf(pipeline);
        }

        /** Whether the entry is selected and passes the pipeline. */
        public boolean matches(LokiEntry e) {
            return parsed(e) != null;
        }

        /** The labels the pipeline made for a matching entry (often none); null when the entry does not match. */
        public Map<String, String> parsed(LokiEntry e) {
            if (!selects(e)) {
                return null;
            }
            Map<String, String> parsed = new LinkedHashMap<>();
            for (Stage s : pipeline) {
                if (!s.test(e, parsed)) {
                    return null;
                }
            }
            return parsed;
        }

        /** Whether the entry's stream labels satisfy the selector. */
        public boolean selects(LokiEntry e) {
            for (Matcher m : selector) {
                if (!m.test(e.labels().getOrDefault(m.name(), ""))) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder("{");
            for (int i = 0; i < selector.size(); i++) {
                out.append(i == 0 ? "" : ", ").append(selector.get(i));
            }
            out.append('}');
            pipeline.forEach(s -> out.append(' ').append(s));
            return out.toString();
        }
    }

    /**
     * A constant: the arithmetic of {@code vector(n)} and numbers, such as Grafana's health check
     * {@code vector(1)+vector(1)}.
     *
     * @param value  what it comes to
     * @param vector whether it is a vector (any {@code vector(…)} in it), else a scalar
     */
    record Constant(double value, boolean vector) implements LogQl {
    }
}
