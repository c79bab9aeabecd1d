package dev.needle.query.logql.metric;

import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.pipeline.Stage;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A LogQL metric query's expression (grafana/loki {@code docs/sources/query/metric_queries.md},
 * {@code pkg/logql/syntax}): range aggregations over a log query, vector aggregations, binary
 * operations, {@code vector(n)}, numbers and {@code label_replace}.
 */
public sealed interface MetricExpr {

    /** Whether the expression is a scalar (numbers only), else an instant vector. */
    boolean scalar();

    /** {@code by (…)} or {@code without (…)}: the labels a result keeps, or those it drops. */
    record Grouping(boolean without, List<String> labels) {
        public Grouping {
            labels = List.copyOf(labels);
        }

        /** The labels of a series grouped: those named kept (by) or dropped (without). */
        public Map<String, String> apply(Map<String, String> series) {
            Map<String, String> out = new TreeMap<>();
            for (Map.Entry<String, String> l : series.entrySet()) {
                if (labels.contains(l.getKey()) != without) {
                    out.put(l.getKey(), l.getValue());
                }
            }
            return out;
        }
    }

    /** How {@code | unwrap} reads a label: as a number, {@code duration(…)} in seconds, or {@code bytes(…)}. */
    enum Conversion {
        /** The value as a float. */
        FLOAT,
        /** {@code duration(label)}, {@code duration_seconds(label)}: a Go duration in seconds. */
        DURATION,
        /** {@code bytes(label)}: a size such as {@code 5MB} in bytes. */
        BYTES
    }

    /**
     * {@code | unwrap [conversion(]label[)]} with the label filters after it.
     *
     * @param after the stages after the unwrap: label filters, which see its {@code __error__}
     */
    record Unwrap(String label, Conversion conversion, List<Stage> after) {
        public Unwrap {
            Objects.requireNonNull(label, "label");
            after = List.copyOf(after);
        }
    }

    /** The range aggregations, by their names in a query. */
    enum RangeOp {
        COUNT("count_over_time"), RATE("rate"), BYTES("bytes_over_time"), BYTES_RATE("bytes_rate"),
        ABSENT("absent_over_time"), SUM("sum_over_time"), AVG("avg_over_time"), MIN("min_over_time"),
        MAX("max_over_time"), FIRST("first_over_time"), LAST("last_over_time"), STDDEV("stddev_over_time"),
        STDVAR("stdvar_over_time"), QUANTILE("quantile_over_time"), RATE_COUNTER("rate_counter");

        private final String word;

        RangeOp(String word) {
            this.word = word;
        }

        /** How a query names it. */
        public String word() {
            return word;
        }

        /** The operation named {@code word}, or null. */
        public static RangeOp of(String word) {
            for (RangeOp op : values()) {
                if (op.word.equals(word)) {
                    return op;
                }
            }
            return null;
        }
    }

    /**
     * {@code op([param,] log [range] [offset d]) [by|without (…)]}: per series, the samples of the
     * entries in {@code (t - offset - range, t - offset]} made one value.
     *
     * @param param    quantile_over_time's φ; NaN for the others
     * @param unwrap   the label whose values are the samples; null when each entry is a sample
     * @param grouping null when none
     */
    record Range(RangeOp op, double param, LogQl.LogQuery log, Unwrap unwrap, long rangeNanos, long offsetNanos,
                 Grouping grouping) implements MetricExpr {
        @Override
        public boolean scalar() {
            return false;
        }
    }

    /**
     * The vector aggregations, by their names in a query. {@code approx_topk} is Loki's estimate of topk from a
     * count-min sketch, for instant queries and without grouping; needle counts every entry, so it is topk.
     */
    enum VectorOp {
        SUM, AVG, MIN, MAX, COUNT, STDDEV, STDVAR, TOPK, BOTTOMK, APPROX_TOPK, SORT, SORT_DESC;

        /** How a query names it. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The operation named {@code word}, or null. */
        public static VectorOp of(String word) {
            for (VectorOp op : values()) {
                if (op.word().equals(word)) {
                    return op;
                }
            }
            return null;
        }
    }

    /**
     * {@code op [by|without (…)] ([k,] expr)}: the series of {@code inner} at each time, aggregated per group.
     *
     * @param k        topk's, bottomk's and approx_topk's count; 0 for the others
     * @param grouping null when none: one group of all
     */
    record Vector(VectorOp op, int k, MetricExpr inner, Grouping grouping) implements MetricExpr {
        @Override
        public boolean scalar() {
            return false;
        }
    }

    /** The binary operators, by precedence from lowest. */
    enum BinaryOp {
        OR("or", 1), AND("and", 2), UNLESS("unless", 2), EQ("==", 3), NE("!=", 3), GT(">", 3), GE(">=", 3),
        LT("<", 3), LE("<=", 3), ADD("+", 4), SUB("-", 4), MUL("*", 5), DIV("/", 5), MOD("%", 5), POW("^", 6);

        private final String symbol;
        private final int precedence;

        BinaryOp(String symbol, int precedence) {
            this.symbol = symbol;
            this.precedence = precedence;
        }

        /** How a query writes it. */
        public String symbol() {
            return symbol;
        }

        /** Higher binds closer. */
        public int precedence() {
            return precedence;
        }

        /** Whether it compares. */
        public boolean comparison() {
            return precedence == 3;
        }

        /** Whether it is {@code and}, {@code or} or {@code unless}. */
        public boolean set() {
            return precedence <= 2;
        }
    }

    /**
     * How two vectors' series pair up: {@code on(…)} or {@code ignoring(…)}, and {@code group_left(…)} or
     * {@code group_right(…)} for many-to-one.
     *
     * @param on      true for on(…), false for ignoring(…) (the default, with no labels)
     * @param card    {@code 'l'} for group_left, {@code 'r'} for group_right, {@code '1'} for one-to-one
     * @param include the labels group_left/right copies from the one side
     */
    record Matching(boolean on, List<String> labels, char card, List<String> include) {
        /** One to one on all labels. */
        public static final Matching DEFAULT = new Matching(false, List.of(), '1', List.of());

        public Matching {
            labels = List.copyOf(labels);
            include = List.copyOf(include);
        }
    }

    /** {@code left op [bool] [matching] right}. */
    record Binary(BinaryOp op, MetricExpr left, MetricExpr right, boolean bool, Matching matching)
            implements MetricExpr {
        @Override
        public boolean scalar() {
            return left.scalar() && right.scalar();
        }
    }

    /** A number. */
    record Number(double value) implements MetricExpr {
        @Override
        public boolean scalar() {
            return true;
        }
    }

    /** {@code vector(n)}: one series without labels. */
    record VectorOf(double value) implements MetricExpr {
        @Override
        public boolean scalar() {
            return false;
        }
    }

    /** {@code label_replace(inner, "dst", "replacement", "src", "regex")}, as Prometheus' (the regex anchored). */
    record LabelReplace(MetricExpr inner, String dst, String replacement, String src, Pattern regex)
            implements MetricExpr {
        @Override
        public boolean scalar() {
            return false;
        }
    }
}
