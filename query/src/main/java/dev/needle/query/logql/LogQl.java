package dev.needle.query.logql;

import dev.needle.query.logql.metric.MetricExpr;
import dev.needle.query.logql.pipeline.EntryState;
import dev.needle.query.logql.pipeline.Stage;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A parsed LogQL query: a log query (a stream selector and a pipeline of Loki's stages,
 * {@link dev.needle.query.logql.pipeline}), a metric query over log queries ({@link MetricExpr}), or the
 * constant arithmetic of {@code vector(…)} and numbers that Grafana's health check sends.
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

    /** {@code {matchers} stages…}: the log lines of the selected streams that pass every stage. */
    record LogQuery(List<Matcher> selector, List<Stage> pipeline) implements LogQl {
        public LogQuery {
            selector = List.copyOf(selector);
            pipeline = List.copyOf(pipeline);
        }

        /** Whether the entry is selected and passes the pipeline. */
        public boolean matches(LokiEntry e) {
            return apply(e) != null;
        }

        /**
         * The entry as the pipeline leaves it (its line, labels, structured metadata, the labels made and
         * any error), or null when it is not selected or a stage drops it.
         */
        public LokiEntry apply(LokiEntry e) {
            if (!selects(e)) {
                return null;
            }
            if (pipeline.isEmpty()) {
                return e;
            }
            EntryState state = new EntryState(e);
            for (Stage s : pipeline) {
                if (!s.process(state)) {
                    return null;
                }
            }
            return state.result();
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

    /** A metric query other than a constant: see {@link MetricExpr}. */
    record Metric(MetricExpr expr) implements LogQl {
    }
}
