package dev.needle.query.traceql;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.traceql.MetricsExpr.Function;
import dev.needle.query.traceql.MetricsExpr.SecondStage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Computes a metrics query's time series from the traces given to it one by one, as Tempo's
 * {@code query_range} does.
 *
 * <p>Time: start is rounded down and end up to whole steps; step {@code i} covers the span start
 * times in {@code (start + i·step, start + (i+1)·step]} and its point carries the end of that
 * interval. Each span a query's spanset part finds (once, however many spansets hold it) counts in
 * the step of its start time, under the labels of its {@code by()} fields (nil when it has none).
 *
 * <ul>
 *   <li>{@code rate()}: spans per second; {@code count_over_time()}: spans.</li>
 *   <li>{@code min|max|sum|avg_over_time(f)}: of the numeric values of f, durations in seconds.</li>
 *   <li>{@code histogram_over_time(f)}: spans per power-of-two bucket of f (durations in seconds),
 *       the bucket's upper bound in the label {@code __bucket}; floats and values below 2 are not counted.</li>
 *   <li>{@code quantile_over_time(f, q…)}: one series per quantile, labelled {@code p}, estimated from
 *       those buckets with Tempo's exponential interpolation.</li>
 *   <li>{@code compare({sel}, n)}: for the span attributes, resource attributes, name, kind and status
 *       of the spans found, spans per value for the n most common values, labelled {@code __meta_type}
 *       {@code selection} (the spans {@code sel} matches, within its start and end when given) or
 *       {@code baseline} (the others), and per attribute the totals ({@code selection_total},
 *       {@code baseline_total}, the attribute labelled nil).</li>
 *   <li>{@code topk(k)}/{@code bottomk(k)} keep at each step the k highest (lowest) series; a filter
 *       keeps the points that compare so; math joins series of equal labels point by point.</li>
 * </ul>
 *
 * <p>Sampling hints ({@code with(sample=…)}) are accepted and ignored: the answer is exact.
 * Not thread-safe: one aggregator per query.
 *
 * <p>What it holds is its series, not the spans: per label set a value (and for avg a count) per step, or
 * for histograms and quantiles a count per bucket and step; {@link #heldBytes} estimates it, so that a
 * query's budget can count series × steps as they grow.
 */
public final class MetricsAggregator {

    /** The most steps a range may have, as Prometheus allows points per series. */
    public static final int MAX_STEPS = 11_000;

    /** An empty TreeMap of a step's buckets, with its place in the list of steps. */
    private static final long TREE_BYTES = 56;
    /** A bucket's entry in a step's TreeMap: the entry and two boxed doubles. */
    private static final long TREE_ENTRY_BYTES = 80;

    /** Intrinsics whose value depends on other spans of the trace. */
    private static final Set<FieldExpr.Intrinsic> TRACE_WIDE = EnumSet.of(FieldExpr.Intrinsic.CHILD_COUNT,
            FieldExpr.Intrinsic.TRACE_ROOT_NAME, FieldExpr.Intrinsic.TRACE_ROOT_SERVICE,
            FieldExpr.Intrinsic.TRACE_DURATION, FieldExpr.Intrinsic.NESTED_SET_LEFT,
            FieldExpr.Intrinsic.NESTED_SET_RIGHT, FieldExpr.Intrinsic.NESTED_SET_PARENT);

    private final MetricsExpr expr;
    private final long start;
    /** The range asked, [from, to]: the spans counted start in it, whatever the steps' alignment adds. */
    private final long from;
    private final long to;
    private final long step;
    private final int intervals;
    private final Map<MetricsExpr.Pipeline, Leaf> leaves = new LinkedHashMap<>();
    /** What the series held so far take of the heap, estimated as they are made. */
    private long held;

    /**
     * An aggregator for {@code query} over {@code [startNanos, endNanos]} in steps of {@code stepNanos}.
     *
     * @throws IllegalArgumentException when the step is not positive, the end is before the start, or
     *     the range holds more than {@link #MAX_STEPS} steps
     */
    public MetricsAggregator(Query.Metrics query, long startNanos, long endNanos, long stepNanos) {
        this(query, startNanos, endNanos, stepNanos, true);
    }

    /**
     * An aggregator for an instant query: one step, {@code (startNanos, endNanos]} as given, not aligned.
     *
     * @throws IllegalArgumentException when the end is not after the start
     */
    public static MetricsAggregator instant(Query.Metrics query, long startNanos, long endNanos) {
        return new MetricsAggregator(query, startNanos, endNanos, endNanos - startNanos, false);
    }

    private MetricsAggregator(Query.Metrics query, long startNanos, long endNanos, long stepNanos, boolean aligned) {
        if (stepNanos <= 0 || endNanos < startNanos) {
            throw new IllegalArgumentException("a metrics query needs a positive step and end >= start, got step "
                    + stepNanos + " over [" + startNanos + ", " + endNanos + "]");
        }
        this.expr = query.expr();
        this.step = stepNanos;
        this.start = aligned ? startNanos - Math.floorMod(startNanos, stepNanos) : startNanos;
        this.from = startNanos;
        this.to = endNanos;
        long mod = aligned ? Math.floorMod(endNanos, stepNanos) : 0;
        long end = mod == 0 ? endNanos : endNanos + (stepNanos - mod);
        long steps = (end - start) / stepNanos;
        if (steps > MAX_STEPS) {
            throw new IllegalArgumentException("a metrics query may have at most " + MAX_STEPS + " steps, got " + steps
                    + ": make the step longer or the range shorter");
        }
        this.intervals = (int) steps;
        collect(expr);
    }

    private void collect(MetricsExpr e) {
        if (e instanceof MetricsExpr.Pipeline p) {
            leaves.putIfAbsent(p, new Leaf(p));
        } else if (e instanceof MetricsExpr.Math m) {
            collect(m.lhs());
            collect(m.rhs());
        } else if (e instanceof MetricsExpr.ScalarMath s) {
            collect(s.series());
        } else {
            collect(((MetricsExpr.Staged) e).inner());
        }
    }

    /**
     * Whether {@link #add} must be given each trace whole: true when the query looks past a span (structural and
     * spanset operators, pipelines over spansets, fields of the trace such as {@code trace:duration} or
     * {@code span:childCount}); false when each span is judged and measured alone, so that any grouping of the
     * spans into traces gives the same series.
     */
    public static boolean needsWholeTraces(Query.Metrics query) {
        return !spanLocal(query.expr());
    }

    private static boolean spanLocal(MetricsExpr e) {
        if (e instanceof MetricsExpr.Pipeline p) {
            return spanLocal(p.spans()) && p.by().stream().allMatch(MetricsAggregator::spanLocal)
                    && spanLocal(p.function());
        }
        if (e instanceof MetricsExpr.Math m) {
            return spanLocal(m.lhs()) && spanLocal(m.rhs());
        }
        if (e instanceof MetricsExpr.ScalarMath s) {
            return spanLocal(s.series());
        }
        return spanLocal(((MetricsExpr.Staged) e).inner());
    }

    private static boolean spanLocal(SpansetExpr spans) {
        return spans instanceof SpansetExpr.Filter f && spanLocal(f.condition());
    }

    private static boolean spanLocal(MetricsExpr.Function f) {
        if (f instanceof MetricsExpr.Function.OverTime o) {
            return spanLocal(o.field());
        }
        if (f instanceof MetricsExpr.Function.QuantileOverTime q) {
            return spanLocal(q.field());
        }
        if (f instanceof MetricsExpr.Function.HistogramOverTime h) {
            return spanLocal(h.field());
        }
        if (f instanceof MetricsExpr.Function.Compare c) {
            return spanLocal(c.selection());
        }
        return true;
    }

    private static boolean spanLocal(FieldExpr e) {
        if (e instanceof FieldExpr.IntrinsicField i) {
            return !TRACE_WIDE.contains(i.intrinsic());
        }
        if (e instanceof FieldExpr.Binary b) {
            return spanLocal(b.lhs()) && spanLocal(b.rhs());
        }
        if (e instanceof FieldExpr.Unary u) {
            return spanLocal(u.operand());
        }
        return true;
    }

    /**
     * Whether a block's {@link BlockCounts} can stand for its spans in this query: every first stage filters one
     * spanset by, and groups by, only what a COUNTS group holds (the resource's {@code service.name}, the
     * kind, the status) and counts spans ({@code rate}, {@code count_over_time}) or their durations' log2
     * buckets ({@code histogram_over_time(duration)}, {@code quantile_over_time(duration, …)}); and every step
     * boundary is a multiple of the file's bucket width, so that a bucket lies in one step.
     */
    public boolean countable(long widthNanos) {
        return Math.floorMod(start, widthNanos) == 0 && step % widthNanos == 0
                && leaves.keySet().stream().allMatch(MetricsAggregator::countable);
    }

    private static boolean countable(MetricsExpr.Pipeline p) {
        Function fn = p.function();
        boolean counted = fn instanceof Function.Rate || fn instanceof Function.CountOverTime
                || fn instanceof Function.HistogramOverTime h && isDuration(h.field())
                || fn instanceof Function.QuantileOverTime q && isDuration(q.field());
        return counted && p.spans() instanceof SpansetExpr.Filter f && inGroup(f.condition())
                && p.by().stream().allMatch(MetricsAggregator::inGroup);
    }

    private static boolean isDuration(FieldExpr e) {
        return e instanceof FieldExpr.IntrinsicField i && i.intrinsic() == FieldExpr.Intrinsic.DURATION;
    }

    /** Whether {@code e} looks at nothing but what a COUNTS group holds of a span. */
    private static boolean inGroup(FieldExpr e) {
        if (e instanceof FieldExpr.Literal) {
            return true;
        }
        if (e instanceof FieldExpr.Attribute a) {
            return a.scope() == FieldExpr.AttributeScope.RESOURCE && a.name().equals(BlockCounts.SERVICE_NAME);
        }
        if (e instanceof FieldExpr.IntrinsicField i) {
            return i.intrinsic() == FieldExpr.Intrinsic.STATUS || i.intrinsic() == FieldExpr.Intrinsic.KIND;
        }
        if (e instanceof FieldExpr.Binary b) {
            return inGroup(b.lhs()) && inGroup(b.rhs());
        }
        return e instanceof FieldExpr.Unary u && inGroup(u.operand());
    }

    /**
     * Whether {@code counts} can stand for its block's spans: the query is {@link #countable} with its width, and no
     * row's bucket holds both times in the range asked and times out of it (the range's ends, which a reader
     * gives inclusively, cut some bucket unless a step excludes what it cuts off).
     */
    public boolean countable(BlockCounts counts) {
        if (!countable(counts.widthNanos())) {
            return false;
        }
        long w = counts.widthNanos();
        for (int i = 0; i < counts.rows().size(); i++) {
            long end = counts.bucketEndNanos(i);
            long first = end - w + 1;
            boolean cut = first < from && end >= from || first <= to && end > to;
            if (cut && interval(end) >= 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds a block's counts in place of its spans; only when {@link #countable(BlockCounts)} says so. Each group is
     * judged once, as a span of its service, kind and status, and its rows in the range asked are added to the
     * step their bucket lies in.
     */
    public void add(BlockCounts counts) {
        List<BlockCounts.Group> groups = counts.groups();
        BlockCounts.Rows rows = counts.rows();
        int[] at = new int[rows.size()];
        for (int i = 0; i < at.length; i++) {
            long end = counts.bucketEndNanos(i);
            at[i] = end < from || end - counts.widthNanos() + 1 > to ? -1 : interval(end);
        }
        for (Leaf leaf : leaves.values()) {
            Map<String, Value>[] labels = leaf.groupLabels(counts);
            if (leaf.pipeline.function() instanceof Function.Rate || leaf.pipeline.function() instanceof Function.CountOverTime) {
                double[][] acc = new double[groups.size()][];
                for (int g = 0; g < acc.length; g++) {
                    acc[g] = labels[g] == null ? null : leaf.valuesOf(labels[g]);
                }
                for (int i = 0; i < at.length; i++) {
                    double[] a = acc[rows.group()[i]];
                    if (a != null && at[i] >= 0) {
                        a[at[i]] += rows.count()[i];
                    }
                }
                continue;
            }
            // Durations per step and log2 bucket, in arrays first: a TreeMap merge per row would dominate.
            Map<Map<String, Value>, long[][]> dense = new LinkedHashMap<>();
            long[][][] perGroup = new long[groups.size()][][];
            for (int g = 0; g < perGroup.length; g++) {
                perGroup[g] = labels[g] == null ? null : dense.computeIfAbsent(labels[g], k -> new long[intervals][]);
            }
            for (int i = 0; i < at.length; i++) {
                long[][] steps = perGroup[rows.group()[i]];
                if (steps == null || at[i] < 0) {
                    continue;
                }
                long[] buckets = steps[at[i]] == null ? (steps[at[i]] = new long[65]) : steps[at[i]];
                for (int h = rows.histogram()[i]; h < rows.histogram()[i + 1]; h++) {
                    buckets[rows.exponents()[h]] += rows.histogramCounts()[h];
                }
            }
            dense.forEach((l, steps) -> {
                List<TreeMap<Double, Double>> perStep = leaf.bucketsOf(l);
                for (int i = 0; i < intervals; i++) {
                    if (steps[i] != null) {
                        for (int e = 1; e < 65; e++) {
                            if (steps[i][e] > 0 && perStep.get(i).merge(Math.pow(2, e) / 1e9, (double) steps[i][e],
                                    Double::sum) == steps[i][e]) {
                                held += TREE_ENTRY_BYTES;
                            }
                        }
                    }
                }
            });
        }
    }

    /** Counts the spans of one trace (all of its spans) that the query finds. */
    public void add(List<SpanRecord> trace) {
        if (trace.isEmpty()) {
            return;
        }
        TraceView view = new TraceView(trace);
        for (Leaf leaf : leaves.values()) {
            TraceEvaluator.spansFound(leaf.pipeline.spans(), view).stream().forEach(i -> leaf.observe(view, i));
        }
    }

    /**
     * The heap the series held so far take, estimated: per label set its labels and an array of
     * steps per value kept, per histogram bucket a count per step.
     */
    public long heldBytes() {
        return held;
    }

    /** A label set's estimated heap: the map and, per label, its entry, name and value. */
    private static long labelBytes(Map<String, Value> labels) {
        long bytes = 64;
        for (Map.Entry<String, Value> l : labels.entrySet()) {
            bytes += 96 + 2L * (l.getKey().length() + l.getValue().toString().length());
        }
        return bytes;
    }

    /** The series of the query, in a stable order: by labels' text. */
    public List<TimeSeries> series() {
        List<Series> out = compute(expr);
        List<TimeSeries> result = new ArrayList<>();
        for (Series s : out) {
            List<TimeSeries.Point> points = new ArrayList<>();
            for (int i = 0; i < intervals; i++) {
                if (!Double.isNaN(s.values[i])) {
                    points.add(new TimeSeries.Point(start + (i + 1) * step, s.values[i]));
                }
            }
            if (!points.isEmpty()) {
                result.add(new TimeSeries(s.labels, points));
            }
        }
        result.sort(Comparator.comparing(t -> t.labels().toString()));
        return result;
    }

    /** The step a span's start time falls in, or -1 outside the range. */
    private int interval(long ts) {
        if (ts <= start || ts > start + intervals * step) {
            return -1;
        }
        long offset = ts - start;
        long i = offset / step;
        return (int) (i * step == offset ? i - 1 : i);
    }

    /** Series under computation; NaN where there is no value. */
    private record Series(Map<String, Value> labels, double[] values) {
    }

    private List<Series> compute(MetricsExpr e) {
        if (e instanceof MetricsExpr.Pipeline p) {
            return stages(leaves.get(p).series(), p.stages());
        } else if (e instanceof MetricsExpr.Staged s) {
            return stages(compute(s.inner()), s.stages());
        } else if (e instanceof MetricsExpr.ScalarMath s) {
            List<Series> out = new ArrayList<>();
            for (Series x : compute(s.series())) {
                double[] v = new double[intervals];
                for (int i = 0; i < intervals; i++) {
                    v[i] = s.numberFirst() ? apply(s.op(), s.number(), x.values[i]) : apply(s.op(), x.values[i], s.number());
                }
                out.add(new Series(x.labels, v));
            }
            return out;
        }
        MetricsExpr.Math m = (MetricsExpr.Math) e;
        Map<Map<String, Value>, Series> right = new HashMap<>();
        compute(m.rhs()).forEach(s -> right.put(s.labels, s));
        List<Series> out = new ArrayList<>();
        for (Series l : compute(m.lhs())) {
            Series r = right.get(l.labels);
            if (r != null) {
                double[] v = new double[intervals];
                for (int i = 0; i < intervals; i++) {
                    v[i] = apply(m.op(), l.values[i], r.values[i]);
                }
                out.add(new Series(l.labels, v));
            }
        }
        return out;
    }

    private static double apply(FieldExpr.BinaryOp op, double a, double b) {
        return switch (op) {
            case ADD -> a + b;
            case SUB -> a - b;
            case MUL -> a * b;
            default -> a / b;
        };
    }

    private List<Series> stages(List<Series> series, List<SecondStage> stages) {
        for (SecondStage stage : stages) {
            if (stage instanceof SecondStage.Filter f) {
                for (Series s : series) {
                    for (int i = 0; i < intervals; i++) {
                        if (!Double.isNaN(s.values[i]) && !Operators.isTrue(Operators.binary(f.op(),
                                new Value.Float(s.values[i]), new Value.Float(f.number())))) {
                            s.values[i] = Double.NaN;
                        }
                    }
                }
            } else {
                series = topK((SecondStage.TopK) stage, series);
            }
        }
        return series;
    }

    private List<Series> topK(SecondStage.TopK t, List<Series> series) {
        List<Series> out = new ArrayList<>();
        for (Series s : series) {
            double[] v = new double[intervals];
            Arrays.fill(v, Double.NaN);
            out.add(new Series(s.labels, v));
        }
        for (int i = 0; i < intervals; i++) {
            final int at = i;
            List<Integer> order = new ArrayList<>();
            for (int j = 0; j < series.size(); j++) {
                if (!Double.isNaN(series.get(j).values[i])) {
                    order.add(j);
                }
            }
            Comparator<Integer> byValue = Comparator.comparingDouble(j -> series.get(j).values[at]);
            order.sort((t.bottom() ? byValue : byValue.reversed())
                    .thenComparing(j -> series.get(j).labels.toString()));
            for (int r = 0; r < Math.min(t.k(), order.size()); r++) {
                int j = order.get(r);
                out.get(j).values[i] = series.get(j).values[i];
            }
        }
        return out;
    }

    /** Log2 buckets as Tempo forms them: the next power of two at or above the value; none below 2. */
    static double bucket(Value v) {
        if (v instanceof Value.Duration d) {
            return d.nanos() < 2 ? Double.NaN : log2Bucket(d.nanos()) / 1e9;
        }
        if (v instanceof Value.Int i) {
            return i.value() < 2 ? Double.NaN : log2Bucket(i.value());
        }
        return Double.NaN;
    }

    private static double log2Bucket(long v) {
        return Math.pow(2, 64 - Long.numberOfLeadingZeros(v - 1));
    }

    /** Tempo's quantile of log2 buckets (upper bound → count, ascending), interpolated exponentially. */
    static double quantile(double p, TreeMap<Double, Double> buckets) {
        double total = 0;
        for (double c : buckets.values()) {
            total += c;
        }
        if (total == 0) {
            return Double.NaN;
        }
        double max = Math.max(1, Math.ceil(p * total));
        List<Map.Entry<Double, Double>> list = new ArrayList<>(buckets.entrySet());
        double seen = 0;
        int b = 0;
        for (int i = 0; i < list.size(); i++) {
            b = i;
            double c = list.get(i).getValue();
            if (seen + c > max) {
                break;
            }
            seen += c;
            if (seen == max) {
                return list.get(i).getKey();
            }
        }
        double interp = (max - seen) / list.get(b).getValue();
        double hi = Math.log(list.get(b).getKey()) / Math.log(2);
        double lo = b > 0 ? Math.log(list.get(b - 1).getKey()) / Math.log(2) : hi - 1;
        return Math.pow(2, lo + (hi - lo) * interp);
    }

    /** The accumulation of one first stage. */
    private final class Leaf {
        final MetricsExpr.Pipeline pipeline;
        /** Per label set: counts, sums, mins or maxes per step, by function. */
        final Map<Map<String, Value>, double[]> values = new LinkedHashMap<>();
        final Map<Map<String, Value>, double[]> counts = new LinkedHashMap<>();
        /** Per label set and step: log2 bucket → spans. */
        final Map<Map<String, Value>, List<TreeMap<Double, Double>>> buckets = new LinkedHashMap<>();

        Leaf(MetricsExpr.Pipeline pipeline) {
            this.pipeline = pipeline;
        }

        void observe(TraceView view, int span) {
            SpanRecord s = view.spans.get(span);
            int at = interval(s.startTimeUnixNano());
            if (at < 0) {
                return;
            }
            Function fn = pipeline.function();
            if (fn instanceof Function.Compare c) {
                observeCompare(c, view, span, at);
                return;
            }
            Map<String, Value> labels = new LinkedHashMap<>();
            for (FieldExpr f : pipeline.by()) {
                labels.put(f.toString(), TraceEvaluator.value(f, view, span, -1, -1));
            }
            if (fn instanceof Function.Rate || fn instanceof Function.CountOverTime) {
                add(labels, at, 1);
            } else if (fn instanceof Function.OverTime o) {
                Value v = TraceEvaluator.value(o.field(), view, span, -1, -1);
                if (v.isNumeric()) {
                    double x = v instanceof Value.Duration d ? d.nanos() / 1e9 : v.asDouble();
                    double[] acc = values.computeIfAbsent(labels, k -> {
                        held += labelBytes(k) + arrayBytes();
                        return nans();
                    });
                    acc[at] = switch (o.op()) {
                        case MIN -> Double.isNaN(acc[at]) ? x : Math.min(acc[at], x);
                        case MAX -> Double.isNaN(acc[at]) ? x : Math.max(acc[at], x);
                        case SUM, AVG -> Double.isNaN(acc[at]) ? x : acc[at] + x;
                    };
                    counts.computeIfAbsent(labels, k -> {
                        held += arrayBytes();
                        return new double[intervals];
                    })[at]++;
                }
            } else {
                FieldExpr field = fn instanceof Function.HistogramOverTime h ? h.field()
                        : ((Function.QuantileOverTime) fn).field();
                double b = bucket(TraceEvaluator.value(field, view, span, -1, -1));
                if (!Double.isNaN(b)) {
                    if (bucketsOf(labels).get(at).merge(b, 1.0, Double::sum) == 1.0) {
                        held += TREE_ENTRY_BYTES;
                    }
                }
            }
        }

        List<TreeMap<Double, Double>> bucketsOf(Map<String, Value> labels) {
            return buckets.computeIfAbsent(labels, k -> {
                held += labelBytes(k) + (long) intervals * TREE_BYTES;
                List<TreeMap<Double, Double>> l = new ArrayList<>();
                for (int i = 0; i < intervals; i++) {
                    l.add(new TreeMap<>());
                }
                return l;
            });
        }

        /** Per group of {@code counts}, the labels its spans count under, or null when the leaf finds none of them. */
        @SuppressWarnings("unchecked")
        Map<String, Value>[] groupLabels(BlockCounts counts) {
            Map<String, Value>[] out = new Map[counts.groups().size()];
            for (int g = 0; g < out.length; g++) {
                BlockCounts.Group group = counts.groups().get(g);
                SpanRecord span = SpanRecord.builder().resource(counts.resources().get(group.resource()))
                        .kind(group.a()).statusCode(group.b()).build();
                TraceView view = new TraceView(List.of(span));
                if (!TraceEvaluator.spansFound(pipeline.spans(), view).isEmpty()) {
                    Map<String, Value> labels = new LinkedHashMap<>();
                    for (FieldExpr f : pipeline.by()) {
                        labels.put(f.toString(), TraceEvaluator.value(f, view, 0, -1, -1));
                    }
                    out[g] = labels;
                }
            }
            return out;
        }

        /** Counts start at 0 in every step, as Tempo's: a counted series has a point at every step. */
        private void add(Map<String, Value> labels, int at, double by) {
            valuesOf(labels)[at] += by;
        }

        double[] valuesOf(Map<String, Value> labels) {
            return values.computeIfAbsent(labels, k -> {
                held += labelBytes(k) + arrayBytes();
                return new double[intervals];
            });
        }

        /** An array of a value per step. */
        private long arrayBytes() {
            return 16 + 8L * intervals;
        }

        private double[] nans() {
            double[] v = new double[intervals];
            Arrays.fill(v, Double.NaN);
            return v;
        }

        private void observeCompare(Function.Compare c, TraceView view, int span, int at) {
            long ts = view.spans.get(span).startTimeUnixNano();
            boolean inWindow = c.startNanos() <= 0 || c.endNanos() <= 0 || ts > c.startNanos() && ts <= c.endNanos();
            String type = inWindow && TraceEvaluator.matches(c.selection().condition(), view, span) ? "selection" : "baseline";
            for (Map.Entry<String, Value> a : compareAttributes(view, span).entrySet()) {
                Map<String, Value> labels = new LinkedHashMap<>();
                labels.put("__meta_type", new Value.Str(type));
                labels.put(a.getKey(), a.getValue());
                add(labels, at, 1);
                Map<String, Value> total = new LinkedHashMap<>();
                total.put("__meta_type", new Value.Str(type + "_total"));
                total.put(a.getKey(), Value.NIL);
                add(total, at, 1);
            }
        }

        List<Series> series() {
            List<Series> out = new ArrayList<>();
            Function fn = pipeline.function();
            double stepSeconds = step / 1e9;
            if (fn instanceof Function.Compare c) {
                return topValues(c.topN());
            }
            if (fn instanceof Function.QuantileOverTime q) {
                buckets.forEach((labels, perStep) -> {
                    for (double p : q.quantiles()) {
                        Map<String, Value> l = new LinkedHashMap<>(labels);
                        l.put("p", new Value.Float(p));
                        double[] v = new double[intervals];
                        for (int i = 0; i < intervals; i++) {
                            v[i] = quantile(p, perStep.get(i));
                        }
                        out.add(new Series(l, v));
                    }
                });
                return out;
            }
            if (fn instanceof Function.HistogramOverTime) {
                buckets.forEach((labels, perStep) -> {
                    Map<Double, double[]> byBucket = new TreeMap<>();
                    for (int i = 0; i < intervals; i++) {
                        final int at = i;
                        perStep.get(i).forEach((b, n) -> byBucket.computeIfAbsent(b, k -> new double[intervals])[at] = n);
                    }
                    byBucket.forEach((b, v) -> {
                        Map<String, Value> l = new LinkedHashMap<>(labels);
                        l.put("__bucket", new Value.Float(b));
                        out.add(new Series(l, v));
                    });
                });
                return out;
            }
            values.forEach((labels, v) -> {
                double[] r = v.clone();
                for (int i = 0; i < intervals; i++) {
                    if (fn instanceof Function.Rate) {
                        r[i] = v[i] / stepSeconds;
                    } else if (fn instanceof Function.OverTime o && o.op() == MetricsExpr.OverTimeOp.AVG) {
                        r[i] = v[i] / counts.get(labels)[i];
                    }
                }
                out.add(new Series(labels, r));
            });
            return out;
        }

        /** compare()'s series: per type and attribute, the n values with most spans, and the totals. */
        private List<Series> topValues(int n) {
            Map<String, List<Map.Entry<Map<String, Value>, double[]>>> groups = new LinkedHashMap<>();
            List<Series> out = new ArrayList<>();
            values.forEach((labels, v) -> {
                String type = ((Value.Str) labels.get("__meta_type")).value();
                if (type.endsWith("_total")) {
                    out.add(new Series(labels, v));
                } else {
                    String key = type + "\u0000" + labels.keySet().stream().skip(1).findFirst().orElseThrow();
                    groups.computeIfAbsent(key, k -> new ArrayList<>()).add(Map.entry(labels, v));
                }
            });
            for (List<Map.Entry<Map<String, Value>, double[]>> g : groups.values()) {
                g.sort(Comparator.<Map.Entry<Map<String, Value>, double[]>>comparingDouble(e -> -sum(e.getValue()))
                        .thenComparing(e -> e.getKey().toString()));
                g.stream().limit(n).forEach(e -> out.add(new Series(e.getKey(), e.getValue())));
            }
            return out;
        }
    }

    private static double sum(double[] v) {
        double s = 0;
        for (double x : v) {
            s += Double.isNaN(x) ? 0 : x;
        }
        return s;
    }

    /** The fields compare() counts: span and resource attributes, name, kind and status. */
    private static Map<String, Value> compareAttributes(TraceView view, int span) {
        SpanRecord s = view.spans.get(span);
        Map<String, Value> out = new LinkedHashMap<>();
        for (KeyValue kv : s.attributes()) {
            put(out, "span." + Text.attributeName(kv.key()), TraceView.of(kv.value()));
        }
        for (KeyValue kv : s.resource().attributes()) {
            put(out, "resource." + Text.attributeName(kv.key()), TraceView.of(kv.value()));
        }
        for (FieldExpr.Intrinsic i : List.of(FieldExpr.Intrinsic.NAME, FieldExpr.Intrinsic.KIND, FieldExpr.Intrinsic.STATUS)) {
            put(out, i.text(), view.value(new FieldExpr.IntrinsicField(i), span, -1, -1));
        }
        return out;
    }

    private static void put(Map<String, Value> out, String key, Value v) {
        if (!(v instanceof Value.Nil)) {
            out.putIfAbsent(key, v);
        }
    }
}
