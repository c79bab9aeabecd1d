package dev.needle.query.engine;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Literal;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyFilter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The records matching a query: ATTR_IDX decides equalities, the batch zone maps decide
 * comparisons on duration and severity, and the rows are found on only the columns the query
 * names, by {@link ColumnKernels}; a log search's test of the body's text is made on the body column
 * too, and its {@link RecordFilter#record} on the records those leave.
 */
final class SearchTarget<R> implements Target<R> {

    private static final Layout SPANS = new Layout(SpanColumns.START_TIME, SpanColumns.ATTRIBUTES,
            SpanColumns.RESOURCE_ROW, SpanColumns.RESOURCE_ATTRIBUTES,
            SpanColumns.SCOPE_ROW, SpanColumns.SCOPE_ATTRIBUTES);
    private static final Layout LOGS = new Layout(LogColumns.EVENT_TIME, LogColumns.ATTRIBUTES,
            LogColumns.RESOURCE_ROW, LogColumns.RESOURCE_ATTRIBUTES,
            LogColumns.SCOPE_ROW, LogColumns.SCOPE_ATTRIBUTES);

    private final Expr expr;
    private final TimeRange range;
    private final Layout layout;
    private final RecordKind<R> kind;
    private final RecordFilter<R> filter;
    private final Set<String> columns = new HashSet<>();

    /** The names, in one signal's schema, of the columns a search reads besides the intrinsics' own. */
    record Layout(String time, String attributes, String resourceRow, String resourceAttributes,
            String scopeRow, String scopeAttributes) {
    }

    private SearchTarget(Expr expr, TimeRange range, Layout layout, RecordKind<R> kind, RecordFilter<R> filter) {
        this.expr = expr;
        this.range = range;
        this.layout = layout;
        this.kind = kind;
        this.filter = filter;
        collectColumns(expr);
        if (filter.bodyText() != null) {
            columns.add(LogColumns.BODY_STRING);
        }
        // Times are read only to test a range, or to count the rows of a query that names no column.
        if (!range.isAll() || columns.isEmpty()) {
            columns.add(layout.time());
        }
    }

    /** Spans matching {@code expr} whose start time lies in {@code range}. */
    static SearchTarget<SpanRecord> spans(Expr expr, TimeRange range) {
        return spans(expr, range, RecordFilter.none());
    }

    /** Spans matching {@code expr} whose start time lies in {@code range} and that pass {@code filter}. */
    static SearchTarget<SpanRecord> spans(Expr expr, TimeRange range, RecordFilter<SpanRecord> filter) {
        return new SearchTarget<>(expr, range, SPANS, RecordKind.SPANS, filter);
    }

    /** Log records matching {@code expr} whose event time lies in {@code range}. */
    static SearchTarget<LogRecord> logs(Expr expr, TimeRange range) {
        return logs(expr, range, RecordFilter.none());
    }

    /** Log records matching {@code expr} whose event time lies in {@code range} and that pass {@code filter}. */
    static SearchTarget<LogRecord> logs(Expr expr, TimeRange range, RecordFilter<LogRecord> filter) {
        return new SearchTarget<>(expr, range, LOGS, RecordKind.LOGS, filter);
    }

    @Override
    public RecordKind<R> kind() {
        return kind;
    }

    @Override
    public RecordFilter<R> filter() {
        return filter;
    }

    private void collectColumns(Expr e) {
        if (e instanceof Expr.And and) {
            and.terms().forEach(this::collectColumns);
        } else if (e instanceof Expr.Or or) {
            or.terms().forEach(this::collectColumns);
        } else if (e instanceof Expr.Condition c) {
            Attribute a = c.attribute();
            switch (a.scope()) {
                case RESOURCE -> columns.addAll(List.of(layout.resourceRow(), layout.resourceAttributes()));
                case SCOPE -> columns.addAll(List.of(layout.scopeRow(), layout.scopeAttributes()));
                case RECORD -> columns.add(layout.attributes());
                case UNSCOPED -> columns.addAll(List.of(layout.resourceRow(), layout.resourceAttributes(),
                        layout.scopeRow(), layout.scopeAttributes(), layout.attributes()));
                case INTRINSIC -> columns.add(a.intrinsic().column());
                case TRACE -> {
                    // Judged on the whole trace after the search: no column of the span's row.
                }
                // Only spans have events (the Attribute refuses event:name on logs).
                case EVENT -> columns.add(SpanColumns.EVENTS);
            }
        }
    }

    @Override
    public String sidecarFile() {
        return BloomSidecar.ATTR_IDX;
    }

    @Override
    public Step sidecarStep() {
        return Step.ATTR_IDX;
    }

    @Override
    public String ruledOutBy(KeyFilter sidecar) {
        return ruledOut(expr, c -> ruledOut(c, sidecar));
    }

    @Override
    public BatchAttrIdxCheck batchAttrIdxCheck() {
        return BatchAttrIdxCheck.of(expr);
    }

    @Override
    public String ruledOutBy(BatchMeta batch) {
        return ruledOut(expr, c -> ruledOut(c, batch));
    }

    /**
     * Null when {@code e} may hold; else why it cannot. AND is ruled out by any term, OR only by
     * every term; {@code leaf} judges one condition. Every index that rules out by condition
     * (ATTR_IDX, zone maps, BATCH_ATTR_IDX) combines its verdicts through this.
     */
    static String ruledOut(Expr e, Function<Expr.Condition, String> leaf) {
        if (e instanceof Expr.And and) {
            for (Expr term : and.terms()) {
                String why = ruledOut(term, leaf);
                if (why != null) {
                    return why;
                }
            }
            return null;
        } else if (e instanceof Expr.Or or) {
            List<String> whys = new ArrayList<>();
            for (Expr term : or.terms()) {
                String why = ruledOut(term, leaf);
                if (why == null) {
                    return null;
                }
                whys.add(why);
            }
            return String.join("; ", whys);
        }
        return e instanceof Expr.Condition c ? leaf.apply(c) : null;
    }

    /**
     * ATTR_IDX decides equalities only ({@link Expr.Condition#equalities}, one value or a regex's
     * alternatives, any of which may match): fractional literals need HAS_DOUBLE, any other value a
     * probe that may hit.
     */
    private static String ruledOut(Expr.Condition c, KeyFilter sidecar) {
        List<Literal> values = c.equalities();
        if (values.isEmpty() || c.attribute().indexedKeys().isEmpty()) {
            return null;
        }
        if (values.stream().allMatch(Literal::matchesOnlyDoubles) && !sidecar.mayHoldDoubles()) {
            return "ATTR_IDX: the block holds no double, so nothing equals " + c;
        }
        for (Literal value : values) {
            for (String key : c.attribute().indexedKeys()) {
                if (sidecar.mayContain(value.hash(key))) {
                    return null;
                }
            }
        }
        return "ATTR_IDX rules out " + c;
    }

    /** Zone maps decide comparisons on duration (spans) and severity (logs), by their minimum and maximum. */
    private static String ruledOut(Expr.Condition c, BatchMeta batch) {
        if (c.attribute().scope() != Attribute.Scope.INTRINSIC || !(c.literal() instanceof Literal.IntLit lit)) {
            return null;
        }
        return switch (c.attribute().intrinsic()) {
            case DURATION -> batch.minDurationNano() == null ? null
                    : ruledOut(c, lit.value(), batch.minDurationNano(), batch.maxDurationNano());
            case SEVERITY -> batch.severityNullCount() == null ? null
                    : batch.minSeverity() == null ? "no record of the batch has a severity"
                    : ruledOut(c, lit.value(), batch.minSeverity(), batch.maxSeverity());
            case NAME, STATUS, KIND, STATUS_MESSAGE -> null;
        };
    }

    /** Each comparison is ruled out by one fact about the minimum or the maximum. */
    private static String ruledOut(Expr.Condition c, long x, long min, long max) {
        String name = c.attribute().key();
        return switch (c.op()) {
            case EQ -> x < min ? "the minimum " + name + " " + min + " is larger than " + x
                    : x > max ? "the maximum " + name + " " + max + " is smaller than " + x : null;
            case NE -> min == x && max == x ? "every " + name + " equals " + x : null;
            case LT -> min >= x ? "the minimum " + name + " " + min + " is not below " + x : null;
            case LE -> min > x ? "the minimum " + name + " " + min + " is above " + x : null;
            case GT -> max <= x ? "the maximum " + name + " " + max + " is not above " + x : null;
            case GE -> max < x ? "the maximum " + name + " " + max + " is below " + x : null;
            case MATCH, NOT_MATCH -> null;
        };
    }

    @Override
    public String timeColumn() {
        return layout.time();
    }

    @Override
    public Set<String> predicateColumns() {
        return columns;
    }

    @Override
    public RoaringBitmap matchingRows(VectorSchemaRoot batch) throws CorruptValueException {
        try {
            RoaringBitmap rows = new ColumnKernels(batch, layout).rows(expr, range);
            if (filter.bodyText() != null) {
                ColumnKernels.keepBodyText(batch, rows, filter.bodyText());
            }
            return rows;
        } catch (RuntimeException e) {
            throw new CorruptValueException("a row cannot be tested: " + e, 0);
        }
    }
}
