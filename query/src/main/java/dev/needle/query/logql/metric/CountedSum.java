package dev.needle.query.logql.metric;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How a block's COUNTS stands for its entries in {@code sum [by (…)] (f({selector} | stages [range]))}, f one of
 * {@code count_over_time}, {@code rate}, {@code bytes_over_time}, {@code bytes_rate} — Explore's log volume and
 * the rates Logs Drilldown draws. A sum of counts is the count of the union, so a row adds its records to its
 * group's windows at once ({@link RangeWindows#addAll}). Exact: a block's rows are used only when every name the
 * query reads has, on every record of a row's group, the value it has on the group's representative, a record
 * with the group's resource and severity and nothing else ({@link #usable}); the line is read only for its length.
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
    /** The series labels of each group's representative, a record with what the group fixes and nothing else. */
    private final Map<Fixed, Optional<Map<String, String>>> judged = new ConcurrentHashMap<>();

    private CountedSum(MetricExpr.Vector sum, long[] times) {
        this.sum = sum;
        this.range = (MetricExpr.Range) sum.inner();
        this.times = times;
        this.names = names(range.log(), sum.grouping());
    }

    /** How COUNTS stands in for {@code v} evaluated at {@code times}, or null when {@code v} is not such a sum. */
    static CountedSum of(MetricExpr.Vector v, long[] times) {
        if (v.op() != MetricExpr.VectorOp.SUM || v.grouping() != null && v.grouping().without()
                || !(v.inner() instanceof MetricExpr.Range r) || r.unwrap() != null || r.grouping() != null) {
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
            Map<String, String> labels = labels(counts, g);
            if (labels != null && labels.containsKey(EntryState.ERROR)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds a block's rows to {@code windows}, once {@link #usable} accepted its COUNTS: summed first per group of
     * the answer and bucket, since a block has a few of those for thousands of rows.
     */
    void add(BlockCounts counts, RangeWindows windows) {
        Map<String, String>[] keys = groupKeys(counts);
        List<Map<String, String>> distinct = new ArrayList<>();
        Map<Map<String, String>, Integer> ids = new HashMap<>();
        int[] keyOf = new int[keys.length];
        for (int g = 0; g < keys.length; g++) {
            keyOf[g] = keys[g] == null ? -1 : ids.computeIfAbsent(keys[g], k -> {
                distinct.add(k);
                return distinct.size() - 1;
            });
        }
        BlockCounts.Rows rows = counts.rows();
        if (rows.size() == 0 || distinct.isEmpty()) {
            return;
        }
        int buckets = (int) rows.bucket()[rows.size() - 1] + 1;
        long[][] n = new long[distinct.size()][buckets];
        long[][] sum = new long[distinct.size()][buckets];
        for (int i = 0; i < rows.size(); i++) {
            int k = keyOf[rows.group()[i]];
            if (k >= 0) {
                n[k][(int) rows.bucket()[i]] += rows.count()[i];
                sum[k][(int) rows.bucket()[i]] += bytes() ? rows.bytes()[i] : 0;
            }
        }
        for (int k = 0; k < n.length; k++) {
            for (int b = 0; b < buckets; b++) {
                if (n[k][b] > 0) {
                    windows.addAll(distinct.get(k), (counts.firstBucket() + b + 1) * counts.widthNanos(), sum[k][b],
                            n[k][b]);
                }
            }
        }
    }

    /** Per group, the sum's group its records count in, or null when the query drops them. */
    @SuppressWarnings("unchecked")
    private Map<String, String>[] groupKeys(BlockCounts counts) {
        Map<String, String>[] keys = new Map[counts.groups().size()];
        for (int g = 0; g < keys.length; g++) {
            Map<String, String> labels = labels(counts, g);
            keys[g] = labels == null ? null : sum.grouping() == null ? Map.of() : sum.grouping().apply(labels);
        }
        return keys;
    }

    private boolean bytes() {
        return range.op() == MetricExpr.RangeOp.BYTES || range.op() == MetricExpr.RangeOp.BYTES_RATE;
    }

    /** The series labels the range aggregation gives a group's records, or null when the query drops them. */
    private Map<String, String> labels(BlockCounts counts, int g) {
        BlockCounts.Group group = counts.groups().get(g);
        // Blocks share their streams: a group's answer is worked out once per query.
        return judged.computeIfAbsent(new Fixed(counts.resources().get(group.resource()), group.text(), group.a()), f -> {
            MetricEval.Point p = MetricEval.sample(range, LokiEntry.of(LogRecord.builder().resource(f.resource())
                    .severityText(f.text()).severityNumber(f.number()).body(AnyValue.of("")).build()));
            return p == null ? Optional.empty() : Optional.of(p.labels());
        }).orElse(null);
    }

    /** What a log group fixes: its resource and severity. */
    private record Fixed(Resource resource, String text, int number) {
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
