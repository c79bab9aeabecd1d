package dev.needle.query.logql.metric;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.pipeline.EntryState;
import dev.needle.query.logql.pipeline.Stage;
import dev.needle.query.logql.pipeline.Units;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;

/**
 * Evaluates a {@link MetricExpr} at a list of times, as Loki's engine does ({@code pkg/logql/engine.go},
 * {@code evaluator.go}, {@code range_vector.go}): a range aggregation at time t reads the samples of the
 * entries in {@code (t - offset - range, t - offset]}; vector aggregations and binary operations then work
 * on the series present at each time, as Prometheus' do.
 *
 * <p>Every entry a range aggregation covers is read from the {@link Source}: nothing is sampled or left
 * out, so a count is exact or the query fails. Entries are counted as they are read, into each range
 * aggregation's state per series and step ({@link RangeWindows}), and none is held: what an evaluation holds
 * is series × steps (and the values of quantile_over_time's and rate_counter's samples), every byte of it
 * reported to {@link Source#hold} as it is taken.
 */
public final class MetricEval {

    /** Where a range aggregation's entries come from, and where the memory the evaluation holds is counted. */
    public interface Source {
        /**
         * Hands {@code visitor} every entry the log query's selector and line filters may keep in
         * {@code [fromNanos, toNanos]}, as read (before the pipeline), in any order and from several threads at once.
         */
        void entries(LogQl.LogQuery query, long fromNanos, long toNanos, Consumer<LokiEntry> visitor)
                throws IOException;

        /**
         * Counts {@code bytes} more held by the evaluation's state, and stops it (by throwing) when that is past
         * what the query may hold. Counts nothing unless a source has a budget.
         */
        default void hold(long bytes) {
        }

        /**
         * {@link #entries}, but a block whose COUNTS file {@code usable} accepts may be given to {@code counts}
         * instead of its entries, before any entry is handed over; by default none is.
         */
        default void entries(LogQl.LogQuery query, long fromNanos, long toNanos, Predicate<BlockCounts> usable,
                             Consumer<BlockCounts> counts, Consumer<LokiEntry> visitor) throws IOException {
            entries(query, fromNanos, toNanos, visitor);
        }
    }

    /** A query Loki would refuse while evaluating it, such as a series with a pipeline error: a 400. */
    public static final class EvalException extends Exception {
        EvalException(String message) {
            super(message);
        }
    }

    /** One value of a series at one time. */
    public record Sample(Map<String, String> labels, double value) {
    }

    /** A series: its labels and a value at each time, NaN-safe through {@code has}. */
    public record Series(Map<String, String> labels, double[] values, boolean[] has) {
    }

    /**
     * What an expression comes to at each time.
     *
     * @param scalar the values of a scalar; null for a vector
     * @param steps  the samples of a vector at each time; null for a scalar
     */
    public record Value(double[] scalar, List<List<Sample>> steps) {
        /** The vector as series, in the order of their labels. */
        public List<Series> series() {
            Map<Map<String, String>, Series> out = new TreeMap<>(MetricEval::compareLabels);
            for (int i = 0; i < steps.size(); i++) {
                for (Sample s : steps.get(i)) {
                    Series series = out.computeIfAbsent(s.labels(),
                            l -> new Series(l, new double[steps.size()], new boolean[steps.size()]));
                    series.values()[i] = s.value();
                    series.has()[i] = true;
                }
            }
            return new ArrayList<>(out.values());
        }
    }

    private static final String SAMPLE_EXTRACTION_ERR = "SampleExtractionErr";

    private final long[] times;
    private final boolean instant;
    private final Source source;

    /**
     * An evaluation at {@code times} (Unix nanoseconds, ascending), reading entries from {@code source}:
     * an instant query's ({@code instant}, one time) or a range query's.
     */
    public MetricEval(long[] times, boolean instant, Source source) {
        this.times = times.clone();
        this.instant = instant;
        this.source = source;
    }

    /** The value of {@code e} at each time. */
    public Value eval(MetricExpr e) throws IOException, EvalException {
        if (e instanceof MetricExpr.Number n) {
            return constant(n.value());
        }
        if (e instanceof MetricExpr.VectorOf v) {
            List<List<Sample>> steps = new ArrayList<>();
            for (int i = 0; i < times.length; i++) {
                steps.add(List.of(new Sample(Map.of(), v.value())));
            }
            return new Value(null, steps);
        }
        if (e instanceof MetricExpr.Range r) {
            return range(r, null, null);
        }
        if (e instanceof MetricExpr.Vector v) {
            if (v.op() == MetricExpr.VectorOp.APPROX_TOPK && !instant) {
                throw new EvalException("approx_topk is only supported on instant queries");
            }
            if (v.inner() instanceof MetricExpr.Range r && mergesSeries(v.op(), r)) {
                // Each group counted as one series: what the aggregation of its series would come to.
                return vector(v, range(r, v.grouping() == null ? labels -> Map.of() : v.grouping()::apply,
                        CountedSum.of(v, times)));
            }
            return vector(v, eval(v.inner()));
        }
        if (e instanceof MetricExpr.Binary b) {
            return binary(b, eval(b.left()), eval(b.right()));
        }
        MetricExpr.LabelReplace l = (MetricExpr.LabelReplace) e;
        return labelReplace(l, eval(l.inner()));
    }

    private Value constant(double v) {
        double[] values = new double[times.length];
        Arrays.fill(values, v);
        return new Value(values, null);
    }

    // ---- range aggregations ----

    /** A sample of one entry: its time, its value and the labels of its series. */
    record Point(long time, double value, Map<String, String> labels) {
    }

    /**
     * Whether {@code op} over {@code r}'s series at a step equals {@code r} over the samples of each group of them
     * at once: a sum of counts, byte counts, rates or sums is the count, bytes, rate or sum of the group's
     * samples, the minimum of minimums their minimum, the maximum of maximums their maximum. Then a range
     * aggregation holds a group, not each of its series: with structured metadata such as
     * {@code observed_timestamp} among a series' labels, its series are often one per entry.
     */
    private static boolean mergesSeries(MetricExpr.VectorOp op, MetricExpr.Range r) {
        return switch (op) {
            case SUM -> switch (r.op()) {
                case COUNT, RATE, BYTES, BYTES_RATE, SUM -> true;
                default -> false;
            };
            case MIN -> r.op() == MetricExpr.RangeOp.MIN;
            case MAX -> r.op() == MetricExpr.RangeOp.MAX;
            default -> false;
        };
    }

    /**
     * The range aggregation's series at each time; with {@code group}, each sample counts in the series of its
     * labels as {@code group} makes them (see {@link #mergesSeries}). A series with a pipeline error that has a
     * sample in some window fails the query, grouped or not, as in Loki.
     */
    private Value range(MetricExpr.Range r, UnaryOperator<Map<String, String>> group, CountedSum counted)
            throws IOException, EvalException {
        long from = times[0] - r.offsetNanos() - r.rangeNanos() + 1;
        long to = times[times.length - 1] - r.offsetNanos();
        RangeWindows windows = new RangeWindows(r, times, source::hold);
        boolean failsOnError = r.op() != MetricExpr.RangeOp.ABSENT;
        AtomicReference<Map<String, String>> failed = new AtomicReference<>();
        Consumer<LokiEntry> visitor = e -> {
            if (e.timeUnixNano() >= from && e.timeUnixNano() <= to) {
                Point p = sample(r, e);
                if (p == null) {
                    return;
                }
                if (failsOnError && p.labels().containsKey(EntryState.ERROR) && windows.inSomeWindow(p.time())) {
                    failed.compareAndSet(null, p.labels());
                }
                windows.add(group == null ? p.labels() : group.apply(p.labels()), p.time(), p.value());
            }
        };
        if (counted == null) {
            source.entries(r.log(), from, to, visitor);
        } else {
            source.entries(r.log(), from, to, counted::usable, c -> counted.add(c, windows), visitor);
        }
        if (failed.get() != null) {
            throw pipelineError(failed.get());
        }
        List<List<Sample>> steps = new ArrayList<>();
        for (int i = 0; i < times.length; i++) {
            List<Sample> at = new ArrayList<>();
            windows.step(i, r.param(), (labels, value) -> at.add(new Sample(labels, value)));
            steps.add(r.op() != MetricExpr.RangeOp.ABSENT ? at
                    : at.isEmpty() ? List.of(new Sample(absentLabels(r.log()), 1)) : List.of());
        }
        return new Value(null, steps);
    }

    /**
     * The entry's sample after the pipeline, or null when the pipeline drops it (or it has no value to
     * unwrap): as Loki's sample extractors ({@code pkg/logql/log/metrics_extraction.go}).
     */
    static Point sample(MetricExpr.Range r, LokiEntry e) {
        if (!r.log().selects(e)) {
            return null;
        }
        EntryState state = new EntryState(e);
        for (Stage s : r.log().pipeline()) {
            if (!s.process(state)) {
                return null;
            }
        }
        double value = 1;
        MetricExpr.Unwrap unwrap = r.unwrap();
        if (unwrap != null) {
            String text = state.get(unwrap.label());
            if (text == null || text.isEmpty()) {
                return null;
            }
            try {
                value = convert(unwrap.conversion(), text);
            } catch (IllegalArgumentException failed) {
                value = 0;
                state.fail(SAMPLE_EXTRACTION_ERR, failed.getMessage());
            }
            for (Stage s : unwrap.after()) {
                if (!s.process(state)) {
                    return null;
                }
            }
        } else if (r.op() == MetricExpr.RangeOp.BYTES || r.op() == MetricExpr.RangeOp.BYTES_RATE) {
            value = state.line().getBytes(StandardCharsets.UTF_8).length;
        }
        LokiEntry result = state.result();
        Map<String, String> labels = new TreeMap<>(result.metadata());
        labels.putAll(result.labels());
        labels.putAll(result.parsed());
        if (unwrap != null) {
            labels.remove(unwrap.label());
        }
        if (r.grouping() != null) {
            labels = r.grouping().apply(labels);
        }
        return new Point(e.timeUnixNano(), value, labels);
    }

    private static double convert(MetricExpr.Conversion conversion, String text) {
        return switch (conversion) {
            case FLOAT -> Units.parseFloat(text);
            case DURATION -> Units.parseDuration(text, false) / 1e9;
            case BYTES -> Units.parseBytes(text);
        };
    }

    /** The population variance, as Prometheus' stdvar. */
    private static double variance(double[] v) {
        double mean = 0;
        for (double x : v) {
            mean += x;
        }
        mean /= v.length;
        double squares = 0;
        for (double x : v) {
            squares += (x - mean) * (x - mean);
        }
        return squares / v.length;
    }

    /** Prometheus' φ-quantile: linear between the two nearest ranks; -Inf below 0 and +Inf above 1. */
    static double quantile(double phi, double[] v) {
        if (Double.isNaN(phi)) {
            return Double.NaN;
        }
        if (phi < 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (phi > 1) {
            return Double.POSITIVE_INFINITY;
        }
        double[] sorted = v.clone();
        Arrays.sort(sorted);
        double rank = phi * (sorted.length - 1);
        int lower = (int) Math.max(0, Math.floor(rank));
        int upper = Math.min(sorted.length - 1, lower + 1);
        double weight = rank - Math.floor(rank);
        return sorted[lower] * (1 - weight) + sorted[upper] * weight;
    }

    /** Loki's rate_counter: Prometheus' extrapolated rate of a counter that may reset; 0 below two samples. */
    static double counterRate(List<Point> window, long rangeNanos, long end) {
        int n = window.size();
        if (n < 2) {
            return 0;
        }
        double first = window.get(0).value();
        double result = window.get(n - 1).value() - first;
        double last = 0;
        for (Point p : window) {
            if (p.value() < last) {
                result += last;
            }
            last = p.value();
        }
        long start = end - rangeNanos;
        double toStart = (window.get(0).time() - start) / 1e9;
        double toEnd = (end - window.get(n - 1).time()) / 1e9;
        double sampled = (window.get(n - 1).time() - window.get(0).time()) / 1e9;
        double average = sampled / (n - 1);
        double threshold = average * 1.1;
        if (toStart >= threshold) {
            toStart = average / 2;
        }
        double toZero = toStart;
        if (result > 0 && first >= 0) {
            toZero = sampled * (first / result);
        }
        toStart = Math.min(toStart, toZero);
        if (toEnd >= threshold) {
            toEnd = average / 2;
        }
        return result * ((sampled + toStart + toEnd) / sampled) / (rangeNanos / 1e9);
    }

    /** absent_over_time's series: the selector's equality matchers, a label matched otherwise left out. */
    static Map<String, String> absentLabels(LogQl.LogQuery log) {
        Map<String, String> labels = new TreeMap<>();
        Set<String> other = new HashSet<>();
        for (LogQl.Matcher m : log.selector()) {
            if (m.op() == LogQl.MatchOp.EQ && !labels.containsKey(m.name())) {
                labels.put(m.name(), m.value());
            } else {
                other.add(m.name());
            }
        }
        labels.keySet().removeAll(other);
        return labels;
    }

    private static EvalException pipelineError(Map<String, String> series) {
        String error = series.get(EntryState.ERROR);
        return new EvalException("pipeline error: '" + error + "' for series: '" + format(series) + "'.\n"
                + "Use a label filter to intentionally skip this error. (e.g | __error__!=\"" + error + "\").\n"
                + "To skip all potential errors you can match empty errors.(e.g __error__=\"\")\n"
                + "The label filter can also be specified after unwrap. (e.g | unwrap latency | __error__=\"\" )\n");
    }

    /** Labels as Prometheus prints them: {@code {a="1", b="2"}}. */
    static String format(Map<String, String> labels) {
        StringBuilder out = new StringBuilder("{");
        for (Map.Entry<String, String> l : labels.entrySet()) {
            out.append(out.length() == 1 ? "" : ", ").append(l.getKey()).append('=')
                    .append(LogQlParser.quote(l.getValue()));
        }
        return out.append('}').toString();
    }

    // ---- vector aggregations ----

    private Value vector(MetricExpr.Vector v, Value inner) {
        List<List<Sample>> steps = new ArrayList<>();
        for (List<Sample> at : inner.steps()) {
            Map<Map<String, String>, List<Sample>> groups = new LinkedHashMap<>();
            for (Sample s : at) {
                Map<String, String> key = v.grouping() == null ? Map.of() : v.grouping().apply(s.labels());
                groups.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
            }
            List<Sample> out = new ArrayList<>();
            for (Map.Entry<Map<String, String>, List<Sample>> g : groups.entrySet()) {
                aggregate(v, g.getKey(), g.getValue(), out);
            }
            steps.add(out);
        }
        return new Value(null, steps);
    }

    private static void aggregate(MetricExpr.Vector v, Map<String, String> group, List<Sample> samples,
                                  List<Sample> out) {
        double[] values = new double[samples.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = samples.get(i).value();
        }
        switch (v.op()) {
            case SUM -> out.add(new Sample(group, Arrays.stream(values).sum()));
            case AVG -> out.add(new Sample(group, Arrays.stream(values).sum() / values.length));
            case MIN -> out.add(new Sample(group, Arrays.stream(values).min().orElseThrow()));
            case MAX -> out.add(new Sample(group, Arrays.stream(values).max().orElseThrow()));
            case COUNT -> out.add(new Sample(group, values.length));
            case STDVAR -> out.add(new Sample(group, variance(values)));
            case STDDEV -> out.add(new Sample(group, Math.sqrt(variance(values))));
            case TOPK, BOTTOMK, APPROX_TOPK -> {
                Comparator<Sample> byValue = Comparator.comparingDouble(Sample::value);
                List<Sample> sorted = new ArrayList<>(samples);
                sorted.sort(v.op() == MetricExpr.VectorOp.BOTTOMK ? byValue : byValue.reversed());
                out.addAll(sorted.subList(0, Math.min(v.k(), sorted.size())));
            }
            case SORT, SORT_DESC -> {
                List<Sample> sorted = new ArrayList<>(samples);
                Comparator<Sample> byValue = Comparator.comparingDouble(Sample::value);
                sorted.sort(v.op() == MetricExpr.VectorOp.SORT ? byValue : byValue.reversed());
                out.addAll(sorted);
            }
        }
    }

    // ---- binary operations ----

    private Value binary(MetricExpr.Binary b, Value left, Value right) throws EvalException {
        if (left.scalar() != null && right.scalar() != null) {
            double[] out = new double[times.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = scalarOp(b.op(), left.scalar()[i], right.scalar()[i]);
            }
            return new Value(out, null);
        }
        List<List<Sample>> steps = new ArrayList<>();
        for (int i = 0; i < times.length; i++) {
            if (left.scalar() != null || right.scalar() != null) {
                steps.add(withScalar(b, left, right, i));
            } else if (b.op().set()) {
                steps.add(setOp(b, left.steps().get(i), right.steps().get(i)));
            } else {
                steps.add(matched(b, left.steps().get(i), right.steps().get(i)));
            }
        }
        return new Value(null, steps);
    }

    /** {@code + - * / % ^} of two numbers, as Go computes them. */
    public static double arithmetic(MetricExpr.BinaryOp op, double l, double r) {
        return switch (op) {
            case ADD -> l + r;
            case SUB -> l - r;
            case MUL -> l * r;
            case DIV -> l / r;
            case MOD -> l % r;
            case POW -> Math.pow(l, r);
            default -> throw new IllegalArgumentException(op.symbol() + " is not arithmetic");
        };
    }

    private static boolean compare(MetricExpr.BinaryOp op, double l, double r) {
        return switch (op) {
            case EQ -> l == r;
            case NE -> l != r;
            case GT -> l > r;
            case GE -> l >= r;
            case LT -> l < r;
            case LE -> l <= r;
            default -> throw new IllegalArgumentException(op.symbol() + " does not compare");
        };
    }

    /** Between scalars: arithmetic, or a comparison with bool as 1 or 0. */
    private static double scalarOp(MetricExpr.BinaryOp op, double l, double r) {
        return op.comparison() ? (compare(op, l, r) ? 1 : 0) : arithmetic(op, l, r);
    }

    /** A vector and a scalar: each sample with the scalar; a comparison without bool keeps the vector's sample when true. */
    private static List<Sample> withScalar(MetricExpr.Binary b, Value left, Value right, int i) {
        boolean vectorLeft = left.scalar() == null;
        double scalar = vectorLeft ? right.scalar()[i] : left.scalar()[i];
        List<Sample> out = new ArrayList<>();
        for (Sample s : (vectorLeft ? left : right).steps().get(i)) {
            Sample result = operate(b, s.labels(), vectorLeft ? s.value() : scalar, vectorLeft ? scalar : s.value(),
                    s.value());
            if (result != null) {
                out.add(result);
            }
        }
        return out;
    }

    /**
     * {@code l op r} as a sample: arithmetic's result, a comparison's 1 or 0 with bool, else {@code kept}
     * when it holds and null when not.
     */
    private static Sample operate(MetricExpr.Binary b, Map<String, String> labels, double l, double r, double kept) {
        if (!b.op().comparison()) {
            return new Sample(labels, arithmetic(b.op(), l, r));
        }
        if (b.bool()) {
            return new Sample(labels, compare(b.op(), l, r) ? 1 : 0);
        }
        return compare(b.op(), l, r) ? new Sample(labels, kept) : null;
    }

    /** The labels two series are matched on: those of on(…), or all but those of ignoring(…). */
    private static Map<String, String> signature(MetricExpr.Matching m, Map<String, String> labels) {
        Map<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> l : labels.entrySet()) {
            if (m.labels().contains(l.getKey()) == m.on()) {
                out.put(l.getKey(), l.getValue());
            }
        }
        return out;
    }

    /** {@code and}, {@code or}, {@code unless}: the left's samples whose signature the right has (or not), and for or the right's others. */
    private static List<Sample> setOp(MetricExpr.Binary b, List<Sample> left, List<Sample> right) {
        Set<Map<String, String>> rightSigs = new HashSet<>();
        for (Sample s : right) {
            rightSigs.add(signature(b.matching(), s.labels()));
        }
        List<Sample> out = new ArrayList<>();
        Set<Map<String, String>> leftSigs = new HashSet<>();
        for (Sample s : left) {
            Map<String, String> sig = signature(b.matching(), s.labels());
            leftSigs.add(sig);
            boolean inRight = rightSigs.contains(sig);
            if (b.op() == MetricExpr.BinaryOp.OR || (b.op() == MetricExpr.BinaryOp.AND) == inRight) {
                out.add(s);
            }
        }
        if (b.op() == MetricExpr.BinaryOp.OR) {
            for (Sample s : right) {
                if (!leftSigs.contains(signature(b.matching(), s.labels()))) {
                    out.add(s);
                }
            }
        }
        return out;
    }

    /**
     * Arithmetic or comparison between two vectors, pairing samples with the same signature: one to
     * one, or many to one with group_left (group_right the other way), as Prometheus does.
     */
    private static List<Sample> matched(MetricExpr.Binary b, List<Sample> left, List<Sample> right)
            throws EvalException {
        MetricExpr.Matching m = b.matching();
        boolean groupRight = m.card() == 'r';
        List<Sample> many = groupRight ? right : left;
        List<Sample> one = groupRight ? left : right;
        Map<Map<String, String>, Sample> bySig = new HashMap<>();
        for (Sample s : one) {
            if (bySig.put(signature(m, s.labels()), s) != null) {
                throw new EvalException("found duplicate series for the match group " + format(signature(m, s.labels()))
                        + " on the " + (groupRight ? "left" : "right") + " hand-side of the operation: many-to-many"
                        + " matching not allowed: matching labels must be unique on one side");
            }
        }
        List<Sample> out = new ArrayList<>();
        Set<Map<String, String>> seen = new HashSet<>();
        for (Sample s : many) {
            Map<String, String> sig = signature(m, s.labels());
            Sample other = bySig.get(sig);
            if (other == null) {
                continue;
            }
            if (m.card() == '1' && !seen.add(sig)) {
                throw new EvalException("multiple matches for labels: many-to-one matching must be explicit"
                        + " (group_left/group_right)");
            }
            double l = groupRight ? other.value() : s.value();
            double r = groupRight ? s.value() : other.value();
            Sample result = operate(b, resultLabels(m, s.labels(), other.labels()), l, r, l);
            if (result != null) {
                out.add(result);
            }
        }
        return out;
    }

    /** Prometheus' result labels: one to one, the signature's labels; many to one, the many side's and those included from the one side. */
    private static Map<String, String> resultLabels(MetricExpr.Matching m, Map<String, String> many,
                                                    Map<String, String> one) {
        if (m.card() == '1') {
            return signature(m, many);
        }
        Map<String, String> out = new TreeMap<>(many);
        for (String name : m.include()) {
            String v = one.get(name);
            if (v == null || v.isEmpty()) {
                out.remove(name);
            } else {
                out.put(name, v);
            }
        }
        return out;
    }

    // ---- label_replace ----

    private static Value labelReplace(MetricExpr.LabelReplace l, Value inner) {
        List<List<Sample>> steps = new ArrayList<>();
        for (List<Sample> at : inner.steps()) {
            List<Sample> out = new ArrayList<>();
            for (Sample s : at) {
                Matcher m = l.regex().matcher(s.labels().getOrDefault(l.src(), ""));
                if (!m.matches()) {
                    out.add(s);
                    continue;
                }
                String value = expand(l.replacement(), m);
                Map<String, String> labels = new TreeMap<>(s.labels());
                if (value.isEmpty()) {
                    labels.remove(l.dst());
                } else {
                    labels.put(l.dst(), value);
                }
                out.add(new Sample(labels, s.value()));
            }
            steps.add(out);
        }
        return new Value(null, steps);
    }

    /** Go's {@code Regexp.Expand}: {@code $1}, {@code ${1}}, {@code $name}, {@code ${name}}, {@code $$}. */
    private static String expand(String template, Matcher m) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c != '$' || i + 1 >= template.length()) {
                out.append(c);
                i++;
                continue;
            }
            if (template.charAt(i + 1) == '$') {
                out.append('$');
                i += 2;
                continue;
            }
            boolean braced = template.charAt(i + 1) == '{';
            int start = i + (braced ? 2 : 1);
            int end = start;
            while (end < template.length() && (Character.isLetterOrDigit(template.charAt(end))
                    || template.charAt(end) == '_')) {
                end++;
            }
            if (end == start || braced && (end >= template.length() || template.charAt(end) != '}')) {
                out.append(c);
                i++;
                continue;
            }
            out.append(group(m, template.substring(start, end)));
            i = braced ? end + 1 : end;
        }
        return out.toString();
    }

    private static String group(Matcher m, String name) {
        try {
            String g = name.chars().allMatch(Character::isDigit) ? m.group(Integer.parseInt(name)) : m.group(name);
            return g == null ? "" : g;
        } catch (IllegalArgumentException | IndexOutOfBoundsException noSuchGroup) {
            return "";
        }
    }

    /** Label sets in Prometheus' order: label by label, name then value, a shorter set first on a tie. */
    public static int compareLabels(Map<String, String> a, Map<String, String> b) {
        var ia = new TreeMap<>(a).entrySet().iterator();
        var ib = new TreeMap<>(b).entrySet().iterator();
        while (ia.hasNext() && ib.hasNext()) {
            Map.Entry<String, String> x = ia.next();
            Map.Entry<String, String> y = ib.next();
            int c = x.getKey().compareTo(y.getKey());
            if (c == 0) {
                c = x.getValue().compareTo(y.getValue());
            }
            if (c != 0) {
                return c;
            }
        }
        return Boolean.compare(ia.hasNext(), ib.hasNext());
    }
}
