package dev.needle.query.traceql;

import java.util.List;
import java.util.Objects;

/**
 * A metrics query's expression: time series computed from the spans a span query selects
 * ({@link Pipeline}), arithmetic between such series ({@link Math}) or with a number
 * ({@link ScalarMath}), and second stages applied to a result ({@link Staged}).
 */
public sealed interface MetricsExpr {

    /** {@code spans | function by (…) second-stages}. */
    record Pipeline(SpansetExpr spans, Function function, List<FieldExpr> by, List<SecondStage> stages)
            implements MetricsExpr {
        public Pipeline {
            Objects.requireNonNull(spans, "spans");
            Objects.requireNonNull(function, "function");
            by = List.copyOf(by);
            stages = List.copyOf(stages);
            if (function instanceof Function.Compare && (!by.isEmpty() || !stages.isEmpty())) {
                throw new IllegalArgumentException("compare() takes no by() and no second stage");
            }
        }

        @Override
        public String toString() {
            String source = spans instanceof SpansetExpr.Pipeline p ? p.toString() : spans.toString();
            StringBuilder out = new StringBuilder(source).append(" | ").append(function);
            if (!by.isEmpty()) {
                out.append(" by (").append(String.join(", ", by.stream().map(Object::toString).toList())).append(')');
            }
            stages.forEach(s -> out.append(s.text()));
            return out.toString();
        }
    }

    /** {@code (lhs) op (rhs)} over series of equal labels; op is one of {@code + - * /}. */
    record Math(FieldExpr.BinaryOp op, MetricsExpr lhs, MetricsExpr rhs) implements MetricsExpr {
        public Math {
            requireArithmetic(op);
            Objects.requireNonNull(lhs, "lhs");
            Objects.requireNonNull(rhs, "rhs");
        }

        @Override
        public String toString() {
            return wrap(lhs) + " " + op.symbol() + " " + wrap(rhs);
        }
    }

    /** {@code (series) op number}, or {@code number op (series)} when {@code numberFirst}. */
    record ScalarMath(FieldExpr.BinaryOp op, MetricsExpr series, double number, boolean numberFirst)
            implements MetricsExpr {
        public ScalarMath {
            requireArithmetic(op);
            Objects.requireNonNull(series, "series");
        }

        @Override
        public String toString() {
            String n = new Value.Float(number).toString();
            n = number < 0 ? "(" + n + ")" : n;
            return numberFirst ? n + " " + op.symbol() + " " + wrap(series) : wrap(series) + " " + op.symbol() + " " + n;
        }
    }

    /** A math result with second stages: {@code (a) + (b) | topk(5) > 10}. */
    record Staged(MetricsExpr inner, List<SecondStage> stages) implements MetricsExpr {
        public Staged {
            Objects.requireNonNull(inner, "inner");
            stages = List.copyOf(stages);
            if (stages.isEmpty() || inner instanceof Pipeline || inner instanceof Staged) {
                throw new IllegalArgumentException("second stages go on a math result, at least one");
            }
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder(inner.toString());
            stages.forEach(s -> out.append(s.text()));
            return out.toString();
        }
    }

    /** The first-stage functions. */
    sealed interface Function {
        /** {@code rate()}: spans per second in each step. */
        record Rate() implements Function {
            @Override
            public String toString() {
                return "rate()";
            }
        }

        /** {@code count_over_time()}: spans in each step. */
        record CountOverTime() implements Function {
            @Override
            public String toString() {
                return "count_over_time()";
            }
        }

        /** {@code min|max|sum|avg_over_time(field)}: the field's values in each step, so combined. */
        record OverTime(OverTimeOp op, FieldExpr field) implements Function {
            public OverTime {
                Objects.requireNonNull(op, "op");
                Objects.requireNonNull(field, "field");
            }

            @Override
            public String toString() {
                return op.name().toLowerCase() + "_over_time(" + field + ")";
            }
        }

        /** {@code quantile_over_time(field, q…)}: the quantiles of the field's values in each step. */
        record QuantileOverTime(FieldExpr field, List<Double> quantiles) implements Function {
            public QuantileOverTime {
                Objects.requireNonNull(field, "field");
                quantiles = List.copyOf(quantiles);
                if (quantiles.isEmpty()) {
                    throw new IllegalArgumentException("quantile_over_time needs at least one quantile");
                }
            }

            @Override
            public String toString() {
                StringBuilder out = new StringBuilder("quantile_over_time(").append(field);
                quantiles.forEach(q -> out.append(", ").append(new Value.Float(q)));
                return out.append(')').toString();
            }
        }

        /** {@code histogram_over_time(field)}: counts per power-of-two bucket of the field, labelled {@code __bucket}. */
        record HistogramOverTime(FieldExpr field) implements Function {
            public HistogramOverTime {
                Objects.requireNonNull(field, "field");
            }

            @Override
            public String toString() {
                return "histogram_over_time(" + field + ")";
            }
        }

        /**
         * {@code compare({selection}, topN, start, end)}: for each attribute value, how many selected
         * and how many other (baseline) spans hold it; start and end (nanoseconds, 0 for the whole
         * range) narrow the selection in time.
         */
        record Compare(SpansetExpr.Filter selection, int topN, long startNanos, long endNanos) implements Function {
            public Compare {
                Objects.requireNonNull(selection, "selection");
                if (topN < 1) {
                    throw new IllegalArgumentException("compare() needs a positive number of values, got " + topN);
                }
            }

            @Override
            public String toString() {
                return "compare(" + selection + ", " + topN + (startNanos == 0 && endNanos == 0 ? ""
                        : ", " + startNanos + ", " + endNanos) + ")";
            }
        }
    }

    /** The combinations of {@code *_over_time}. */
    enum OverTimeOp {
        MIN, MAX, SUM, AVG
    }

    /** What follows a first stage: {@code | topk(n)}, {@code | bottomk(n)}, or a filter {@code > 10}. */
    sealed interface SecondStage {
        /** The text that follows the expression, its leading separator included. */
        String text();

        /** {@code topk(k)} or {@code bottomk(k)}: the k series with the highest (lowest) values at each step. */
        record TopK(int k, boolean bottom) implements SecondStage {
            public TopK {
                if (k < 1) {
                    throw new IllegalArgumentException((bottom ? "bottomk" : "topk") + " needs a positive k, got " + k);
                }
            }

            @Override
            public String text() {
                return " | " + (bottom ? "bottomk(" : "topk(") + k + ")";
            }
        }

        /** {@code op number}: keeps the points whose value compares so. */
        record Filter(FieldExpr.BinaryOp op, double number) implements SecondStage {
            public Filter {
                if (op.precedence() != FieldExpr.COMPARISON_PRECEDENCE || op == FieldExpr.BinaryOp.MATCH
                        || op == FieldExpr.BinaryOp.NOT_MATCH) {
                    throw new IllegalArgumentException("a metrics filter compares with = != < <= > >=, not " + op.symbol());
                }
            }

            @Override
            public String text() {
                return " " + op.symbol() + " " + new Value.Float(number);
            }
        }
    }

    private static void requireArithmetic(FieldExpr.BinaryOp op) {
        if (op != FieldExpr.BinaryOp.ADD && op != FieldExpr.BinaryOp.SUB && op != FieldExpr.BinaryOp.MUL
                && op != FieldExpr.BinaryOp.DIV) {
            throw new IllegalArgumentException("metrics math uses + - * /, not " + op);
        }
    }

    private static String wrap(MetricsExpr e) {
        return "(" + e + ")";
    }
}
