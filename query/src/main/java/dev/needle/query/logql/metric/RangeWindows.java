package dev.needle.query.logql.metric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;

/**
 * One range aggregation's state, fed one sample at a time in any order: per series and per evaluation
 * step, what the aggregation needs of the samples in that step's window {@code (end - range, end]} — a
 * sample falls into every window that holds it. Per step a count, and as the operation needs a sum
 * (count, rate, bytes, sum, avg), a minimum or maximum, the first or last value with its time (ties at one
 * time broken by the value: the smallest first, the largest last), or a running mean and sum of squared
 * deviations (stddev, stdvar: Welford's). quantile_over_time and rate_counter need every value of a window
 * in time order, so for those a series keeps its samples' times and values instead.
 *
 * <p>What it holds is series × steps, not samples (but for those two operations): each series' arrays span
 * only the steps from its first window to its last, grown as samples come; every byte is reported to
 * {@code hold} as it is taken, which stops the query when past its budget. Thread-safe: the engine reads
 * blocks in parallel.
 */
final class RangeWindows {

    /** A series' map and labels, beside its arrays: the map, its entries and the strings. */
    private static final long SERIES_BYTES = 96;

    private final MetricExpr.RangeOp op;
    private final boolean unwrapped;
    private final long rangeNanos;
    /** Each step's window end: its time less the offset, ascending. */
    private final long[] ends;
    private final LongConsumer hold;
    private final Map<Map<String, String>, Windows> series = new HashMap<>();

    /**
     * State for {@code r} evaluated at {@code times} (ascending), reporting every byte it takes to {@code hold}.
     */
    RangeWindows(MetricExpr.Range r, long[] times, LongConsumer hold) {
        this.op = r.op();
        this.unwrapped = r.unwrap() != null;
        this.rangeNanos = r.rangeNanos();
        this.ends = new long[times.length];
        for (int i = 0; i < times.length; i++) {
            ends[i] = times[i] - r.offsetNanos();
        }
        this.hold = hold;
    }

    /** Counts a sample of series {@code labels} at {@code time}, of {@code value}, into every window holding it. */
    synchronized void add(Map<String, String> labels, long time, double value) {
        // Windows (end - range, end] hold time when end >= time and end < time + range.
        int first = firstAtLeast(time);
        int last = firstAtLeast(time + rangeNanos) - 1;
        if (first > last) {
            return;
        }
        Windows w = windows(labels);
        if (keepsSamples()) {
            w.keep(time, value);
        }
        w.ensure(first, last);
        for (int i = first; i <= last; i++) {
            w.add(i - w.lo, time, value);
        }
    }

    /**
     * Counts {@code n} samples of series {@code labels} at {@code time} whose values sum to {@code sum} into every
     * window holding them, as {@code n} calls of {@link #add} would: a COUNTS row. For the operations that only
     * count and sum (count, rate, bytes, bytes_rate, each without unwrap).
     */
    synchronized void addAll(Map<String, String> labels, long time, double sum, long n) {
        int first = firstAtLeast(time);
        int last = firstAtLeast(time + rangeNanos) - 1;
        if (first > last) {
            return;
        }
        Windows w = windows(labels);
        w.ensure(first, last);
        for (int i = first; i <= last; i++) {
            w.count[i - w.lo] += n;
            if (w.a != null) {
                w.a[i - w.lo] += sum;
            }
        }
    }

    private Windows windows(Map<String, String> labels) {
        Windows w = series.get(labels);
        if (w == null) {
            long bytes = SERIES_BYTES;
            for (Map.Entry<String, String> l : labels.entrySet()) {
                bytes += 96 + 2L * (l.getKey().length() + l.getValue().length());
            }
            hold.accept(bytes);
            w = new Windows();
            series.put(labels, w);
        }
        return w;
    }

    /** Whether some step's window holds {@code time}. */
    boolean inSomeWindow(long time) {
        return firstAtLeast(time) < firstAtLeast(time + rangeNanos);
    }

    /** The first step whose window end is at least {@code t}, or the number of steps. */
    private int firstAtLeast(long t) {
        int lo = 0;
        int hi = ends.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (ends[mid] < t) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    private boolean keepsSamples() {
        return op == MetricExpr.RangeOp.QUANTILE || op == MetricExpr.RangeOp.RATE_COUNTER;
    }

    /** The series whose window at step {@code step} holds a sample, with the aggregation's value there. */
    interface StepVisitor {
        /** Series {@code labels} has {@code value} at the step. */
        void series(Map<String, String> labels, double value);
    }

    /** Every series whose window at {@code step} holds a sample, with its value, in no particular order. */
    synchronized void step(int step, double param, StepVisitor visitor) {
        for (Map.Entry<Map<String, String>, Windows> s : series.entrySet()) {
            Windows w = s.getValue();
            int at = step - w.lo;
            if (at < 0 || at >= w.count.length || w.count[at] == 0) {
                continue;
            }
            visitor.series(s.getKey(), value(w, at, step, param));
        }
    }

    private double value(Windows w, int at, int step, double param) {
        double seconds = rangeNanos / 1e9;
        long n = w.count[at];
        return switch (op) {
            case COUNT -> n;
            case RATE -> (unwrapped ? w.a[at] : n) / seconds;
            case BYTES, SUM -> w.a[at];
            case BYTES_RATE -> w.a[at] / seconds;
            case AVG -> w.a[at] / n;
            case MIN, MAX, FIRST, LAST -> w.a[at];
            case STDVAR -> w.b[at] / n;
            case STDDEV -> Math.sqrt(w.b[at] / n);
            case QUANTILE, RATE_COUNTER -> w.fromSamples(ends[step] - rangeNanos, ends[step], param);
            case ABSENT -> 1;
        };
    }

    /** One series' state: per step from {@link #lo}, the count and what the operation keeps. */
    private final class Windows {
        int lo;
        long[] count = new long[0];
        /** The sum, minimum, maximum, first or last value, or the running mean. */
        double[] a;
        /** The sum of squared deviations (stddev, stdvar). */
        double[] b;
        /** The time of the first or last value. */
        long[] at;
        /** quantile_over_time's and rate_counter's samples, as they came. */
        long[] times;
        double[] values;
        int samples;
        boolean sorted;

        /** Makes the arrays span steps {@code first} to {@code last}, grown at least twice over, within the steps. */
        void ensure(int first, int last) {
            int cap = count.length;
            if (cap > 0 && first >= lo && last < lo + cap) {
                return;
            }
            int newLo = cap == 0 ? first : Math.min(lo, first);
            int newHi = cap == 0 ? last : Math.max(lo + cap - 1, last);
            int length = Math.min(ends.length, Math.max(newHi - newLo + 1, 2 * cap));
            // Room to grow on the side the series grew on, within the steps.
            int start = cap > 0 && first < lo ? newHi - length + 1 : newLo;
            start = Math.max(0, Math.min(start, ends.length - length));
            hold.accept((long) (length - cap) * bytesPerStep());
            int shift = lo - start;
            count = grow(count, length, shift, cap);
            boolean uses = op != MetricExpr.RangeOp.COUNT && op != MetricExpr.RangeOp.ABSENT && !keepsSamples()
                    && !(op == MetricExpr.RangeOp.RATE && !unwrapped);
            if (uses) {
                a = grow(a == null ? new double[0] : a, length, shift, cap);
            }
            if (op == MetricExpr.RangeOp.STDDEV || op == MetricExpr.RangeOp.STDVAR) {
                b = grow(b == null ? new double[0] : b, length, shift, cap);
            }
            if (op == MetricExpr.RangeOp.FIRST || op == MetricExpr.RangeOp.LAST) {
                at = grow(at == null ? new long[0] : at, length, shift, cap);
            }
            lo = start;
        }

        private long bytesPerStep() {
            return switch (op) {
                case COUNT, ABSENT, QUANTILE, RATE_COUNTER -> 8;
                case RATE -> unwrapped ? 16 : 8;
                case STDDEV, STDVAR, FIRST, LAST -> 24;
                default -> 16;
            };
        }

        /** Counts a sample at {@code time} of {@code value} into the window at index {@code i}. */
        void add(int i, long time, double value) {
            long n = ++count[i];
            switch (op) {
                case COUNT, ABSENT, QUANTILE, RATE_COUNTER -> {
                }
                case RATE -> {
                    if (unwrapped) {
                        a[i] += value;
                    }
                }
                case BYTES, BYTES_RATE, SUM, AVG -> a[i] += value;
                case MIN -> a[i] = n == 1 ? value : Math.min(a[i], value);
                case MAX -> a[i] = n == 1 ? value : Math.max(a[i], value);
                case FIRST -> {
                    if (n == 1 || time < at[i] || time == at[i] && Double.compare(value, a[i]) < 0) {
                        a[i] = value;
                        at[i] = time;
                    }
                }
                case LAST -> {
                    if (n == 1 || time > at[i] || time == at[i] && Double.compare(value, a[i]) > 0) {
                        a[i] = value;
                        at[i] = time;
                    }
                }
                case STDDEV, STDVAR -> {
                    double delta = value - a[i];
                    a[i] += delta / n;
                    b[i] += delta * (value - a[i]);
                }
            }
        }

        /** Keeps a sample for quantile_over_time or rate_counter, its 16 bytes held. */
        void keep(long time, double value) {
            if (times == null || samples == times.length) {
                int length = times == null ? 8 : times.length * 2;
                hold.accept(16L * (length - (times == null ? 0 : times.length)));
                times = times == null ? new long[length] : Arrays.copyOf(times, length);
                values = values == null ? new double[length] : Arrays.copyOf(values, length);
            }
            times[samples] = time;
            values[samples] = value;
            samples++;
            sorted = false;
        }

        /** quantile_over_time's or rate_counter's value of the samples in {@code (start, end]}, by time then value. */
        double fromSamples(long start, long end, double param) {
            if (!sorted) {
                sort();
            }
            List<MetricEval.Point> window = new ArrayList<>();
            for (int i = firstAfter(start); i < samples && times[i] <= end; i++) {
                window.add(new MetricEval.Point(times[i], values[i], null));
            }
            if (op == MetricExpr.RangeOp.QUANTILE) {
                double[] v = new double[window.size()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = window.get(i).value();
                }
                return MetricEval.quantile(param, v);
            }
            return MetricEval.counterRate(window, rangeNanos, end);
        }

        /** The first of the sorted samples after {@code t}, or their number. */
        private int firstAfter(long t) {
            int low = 0;
            int high = samples;
            while (low < high) {
                int mid = (low + high) >>> 1;
                if (times[mid] <= t) {
                    low = mid + 1;
                } else {
                    high = mid;
                }
            }
            return low;
        }

        private void sort() {
            Integer[] order = new Integer[samples];
            for (int i = 0; i < samples; i++) {
                order[i] = i;
            }
            Arrays.sort(order, (x, y) -> times[x] != times[y] ? Long.compare(times[x], times[y])
                    : Double.compare(values[x], values[y]));
            long[] t = new long[times.length];
            double[] v = new double[values.length];
            for (int i = 0; i < samples; i++) {
                t[i] = times[order[i]];
                v[i] = values[order[i]];
            }
            times = t;
            values = v;
            sorted = true;
        }
    }

    private static long[] grow(long[] old, int length, int shift, int cap) {
        long[] out = new long[length];
        if (cap > 0) {
            System.arraycopy(old, 0, out, shift, cap);
        }
        return out;
    }

    private static double[] grow(double[] old, int length, int shift, int cap) {
        double[] out = new double[length];
        if (cap > 0) {
            System.arraycopy(old, 0, out, shift, cap);
        }
        return out;
    }
}
