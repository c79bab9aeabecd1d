package dev.needle.query.logql.metric;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.pipeline.DropLabels;
import dev.needle.query.logql.pipeline.EntryState;
import dev.needle.query.logql.pipeline.KeepLabels;
import dev.needle.query.logql.pipeline.LabelFilter;
import dev.needle.query.logql.pipeline.Stage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code sum [by (…)] (f({selector} | stages [range]))} with f one of {@code count_over_time}, {@code rate},
 * {@code bytes_over_time}, {@code bytes_rate} — Explore's log volume and the rates Logs Drilldown draws —
 * computed while reading: a sum of counts is the count of the union, so each entry (or each COUNTS row
 * standing for a block's entries) adds to the groups of the steps whose windows hold it, and nothing else
 * is kept. Exact: a row counts its records, and a block's rows are used only when every name the query
 * reads has, on every record of a row's group, the value it has on the group's representative
 * ({@link #usable}); the line is read only for its length.
 */
final class CountedSum {

    /** Names of LokiEntry's fields that each record sets for itself: a row's group does not say them. */
    private static final Set<String> PER_RECORD = new HashSet<>(LokiEntry.FIELDS);

    static {
        PER_RECORD.removeAll(Set.of("severity_number", "severity_text", "detected_level"));
    }

    private final MetricExpr.Vector sum;
    private final MetricExpr.Range range;
    private final long[] times;
    private final Set<String> names;
    /** Per group of the answer: the sum at each time, and the entries that made it (present when more than 0). */
    private final Map<Map<String, String>, double[]> sums = new HashMap<>();
    private final Map<Map<String, String>, long[]> entries = new HashMap<>();

    private CountedSum(MetricExpr.Vector sum, long[] times) {
        this.sum = sum;
        this.range = (MetricExpr.Range) sum.inner();
        this.times = times;
        this.names = names(range.log(), sum.grouping());
    }

    /** The summing of {@code e} at {@code times}, or null when {@code e} is not such a sum. */
    static CountedSum of(MetricExpr e, long[] times) {
        if (!(e instanceof MetricExpr.Vector v) || v.op() != MetricExpr.VectorOp.SUM
                || v.grouping() != null && v.grouping().without() || !(v.inner() instanceof MetricExpr.Range r)
                || r.unwrap() != null || r.grouping() != null) {
            return null;
        }
        boolean linear = switch (r.op()) {
            case COUNT, RATE, BYTES, BYTES_RATE -> true;
            default -> false;
        };
        boolean stagesRead = r.log().pipeline().stream().allMatch(s -> s instanceof DropLabels || s instanceof KeepLabels
                || s instanceof LabelFilter);
        return linear && stagesRead ? new CountedSum(v, times) : null;
    }

    /** The log query whose entries are summed. */
    LogQl.LogQuery log() {
        return range.log();
    }

    /** The first and last event time any window holds: (first time − offset − range, last time − offset]. */
    long fromNanos() {
        return times[0] - range.offsetNanos() - range.rangeNanos() + 1;
    }

    long toNanos() {
        return times[times.length - 1] - range.offsetNanos();
    }

    /**
     * Whether a block's COUNTS can stand for its entries: every window's bounds are multiples of its bucket
     * width, bodies are strings where their bytes are summed, and each name the query reads is one a group
     * fixes (a resource label, the severity) or one no record of the block has (not a field each record sets,
     * not the name of an attribute key of the block), and no group's representative makes a pipeline error.
     */
    boolean usable(BlockCounts counts) {
        long w = counts.widthNanos();
        boolean aligned = Arrays.stream(times).allMatch(t -> Math.floorMod(t, w) == 0)
                && range.rangeNanos() % w == 0 && range.offsetNanos() % w == 0;
        if (!aligned || bytes() && Arrays.stream(counts.rows().notStrings()).anyMatch(n -> n > 0)) {
            return false;
        }
        for (String key : counts.attributeKeys()) {
            if (names.contains(LokiEntry.labelName(key))) {
                return false;
            }
        }
        if (names.stream().anyMatch(PER_RECORD::contains)) {
            return false;
        }
        for (int g = 0; g < counts.groups().size(); g++) {
            Map<String, String> labels = labels(representative(counts, g));
            if (labels != null && labels.containsKey(EntryState.ERROR)) {
                return false;
            }
        }
        return true;
    }

    /** Adds a block's rows, once {@link #usable} accepted its COUNTS. */
    void add(BlockCounts counts) {
        int groups = counts.groups().size();
        Map<String, String>[] keys = groupKeys(counts, groups);
        BlockCounts.Rows rows = counts.rows();
        for (int i = 0; i < rows.size(); i++) {
            Map<String, String> key = keys[rows.group()[i]];
            if (key != null) {
                add(key, counts.bucketEndNanos(i), bytes() ? rows.bytes()[i] : rows.count()[i], rows.count()[i]);
            }
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, String>[] groupKeys(BlockCounts counts, int groups) {
        Map<String, String>[] keys = new Map[groups];
        for (int g = 0; g < groups; g++) {
            Map<String, String> labels = labels(representative(counts, g));
            keys[g] = labels == null ? null : group(labels);
        }
        return keys;
    }

    /**
     * Adds one entry read from a block or the head.
     *
     * @throws MetricEval.EvalException when the pipeline leaves an error on it, as Loki refuses such a series
     */
    void add(LokiEntry e) throws MetricEval.EvalException {
        MetricEval.Point p = MetricEval.sample(range, e);
        if (p == null) {
            return;
        }
        if (p.labels().containsKey(EntryState.ERROR)) {
            throw MetricEval.pipelineError(p.labels());
        }
        add(group(p.labels()), p.time(), p.value(), 1);
    }

    /** Adds {@code value} of {@code n} entries at {@code time} to every step whose window (t − offset − range, t − offset] holds it. */
    private void add(Map<String, String> key, long time, double value, long n) {
        long lo = time + range.offsetNanos();
        long hi = lo + range.rangeNanos();
        int k = firstAtOrAfter(lo);
        if (k == times.length || times[k] >= hi) {
            return;
        }
        double[] s = sums.computeIfAbsent(key, x -> new double[times.length]);
        long[] c = entries.computeIfAbsent(key, x -> new long[times.length]);
        for (; k < times.length && times[k] < hi; k++) {
            s[k] += value;
            c[k] += n;
        }
    }

    private int firstAtOrAfter(long t) {
        int i = Arrays.binarySearch(times, t);
        return i >= 0 ? i : -i - 1;
    }

    /** The sum at each time: a group is there where some entry was. */
    MetricEval.Value value() {
        double seconds = range.rangeNanos() / 1e9;
        boolean perSecond = range.op() == MetricExpr.RangeOp.RATE || range.op() == MetricExpr.RangeOp.BYTES_RATE;
        List<List<MetricEval.Sample>> steps = new ArrayList<>();
        for (int k = 0; k < times.length; k++) {
            List<MetricEval.Sample> at = new ArrayList<>();
            for (Map.Entry<Map<String, String>, long[]> g : entries.entrySet()) {
                if (g.getValue()[k] > 0) {
                    double v = sums.get(g.getKey())[k];
                    at.add(new MetricEval.Sample(g.getKey(), perSecond ? v / seconds : v));
                }
            }
            at.sort((a, b) -> MetricEval.compareLabels(a.labels(), b.labels()));
            steps.add(at);
        }
        return new MetricEval.Value(null, steps);
    }

    private boolean bytes() {
        return range.op() == MetricExpr.RangeOp.BYTES || range.op() == MetricExpr.RangeOp.BYTES_RATE;
    }

    private Map<String, String> group(Map<String, String> labels) {
        return sum.grouping() == null ? Map.of() : sum.grouping().apply(labels);
    }

    /** The series labels the range aggregation gives a group's records, or null when the query drops them. */
    private Map<String, String> labels(LokiEntry representative) {
        MetricEval.Point p = MetricEval.sample(range, representative);
        return p == null ? null : p.labels();
    }

    /** A record with what group {@code g} fixes and nothing else. */
    private static LokiEntry representative(BlockCounts counts, int g) {
        BlockCounts.Group group = counts.groups().get(g);
        return LokiEntry.of(LogRecord.builder().resource(counts.resources().get(group.resource()))
                .severityText(group.text()).severityNumber(group.a()).body(AnyValue.of("")).build());
    }

    /** Every label name the query reads: the selector's, its stages', the sum's grouping. */
    private static Set<String> names(LogQl.LogQuery log, MetricExpr.Grouping grouping) {
        Set<String> names = new HashSet<>();
        log.selector().forEach(m -> names.add(m.name()));
        for (Stage s : log.pipeline()) {
            if (s instanceof DropLabels d) {
                d.labels().forEach(n -> names.add(n.name()));
            } else if (s instanceof KeepLabels k) {
                k.labels().forEach(n -> names.add(n.name()));
            } else {
                names(((LabelFilter) s).predicate(), names);
            }
        }
        if (grouping != null) {
            names.addAll(grouping.labels());
        }
        return names;
    }

    private static void names(LabelFilter.Predicate p, Set<String> names) {
        if (p instanceof LabelFilter.And a) {
            names(a.left(), names);
            names(a.right(), names);
        } else if (p instanceof LabelFilter.Or o) {
            names(o.left(), names);
            names(o.right(), names);
        } else if (p instanceof LabelFilter.Match m) {
            names.add(m.matcher().name());
        } else if (p instanceof LabelFilter.Numeric n) {
            names.add(n.name());
        } else if (p instanceof LabelFilter.Duration d) {
            names.add(d.name());
        } else if (p instanceof LabelFilter.Bytes b) {
            names.add(b.name());
        } else {
            names.add(((LabelFilter.Ip) p).name());
        }
    }
}
