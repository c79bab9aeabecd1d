package dev.needle.query.engine;

import dev.needle.blocks.arrow.AttributeColumn;
import dev.needle.blocks.arrow.AttributeView;
import dev.needle.blocks.arrow.BufferViews;
import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.arrow.VarWidthView;
import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.codec.ValueCodec;
import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.model.AnyValue;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.BitSetUtil;
import org.roaringbitmap.RoaringBitmap;

/**
 * A query's expression evaluated on one batch's columns, never on decoded records: each condition
 * gives the set of rows it holds for, AND intersects the sets and OR unions them. A batch has at
 * most 8,192 rows, so a set is a plain bitset of the batch's rows until the answer, a
 * RoaringBitmap, is built from it.
 *
 * <p>A resource (scope) attribute is judged once per distinct resource, on the rows that hold one
 * in full — a few per batch — and reaches every row through {@code resource_row}
 * ({@code scope_row}). A record attribute condition first finds the entries that hold its key's
 * text (a batch stores each key once; every entry refers to its key's holder), then tests only the
 * entries that refer to them, comparing their stored scalars through {@link ValueTest}. What no
 * kernel reads directly — bytes, arrays, maps and empty values — is decoded, for those entries
 * only, and judged by {@link Expr.Condition#matches}, which defines every answer given here.
 *
 * <p>What a sound batch cannot hold — a key reference forward or to an entry without a key, a null
 * where the schema has none, a row reference after its own row — is a {@link CorruptValueException}.
 */
final class ColumnKernels {

    private final VectorSchemaRoot batch;
    private final SearchTarget.Layout layout;
    private final int rows;
    private final int words;
    private final Map<String, AttributeView> views = new HashMap<>();
    /** By attributes column and key: the entries holding the key's text. */
    private final Map<String, Holders> holders = new HashMap<>();
    /** By attributes column: every entry's key reference. */
    private final Map<String, int[]> keyRefs = new HashMap<>();

    ColumnKernels(VectorSchemaRoot batch, SearchTarget.Layout layout) {
        this.batch = batch;
        this.layout = layout;
        this.rows = batch.getRowCount();
        this.words = (rows + 63) >>> 6;
    }

    /** The rows of the batch that satisfy {@code expr} and whose time lies in {@code range}. */
    RoaringBitmap rows(Expr expr, TimeRange range) throws CorruptValueException {
        if (rows == 0) {
            return new RoaringBitmap();
        }
        long[] matched = evaluate(expr);
        if (!range.isAll()) {
            keepInRange(matched, range);
        }
        return BitSetUtil.bitmapOf(matched);
    }

    private long[] evaluate(Expr e) throws CorruptValueException {
        if (e instanceof Expr.Condition c) {
            return condition(c);
        } else if (e instanceof Expr.And and) {
            long[] matched = null;
            for (Expr term : and.terms()) {
                long[] t = evaluate(term);
                matched = matched == null ? t : and(matched, t);
                if (isEmpty(matched)) {
                    break;
                }
            }
            return matched;
        } else if (e instanceof Expr.Or or) {
            long[] matched = new long[words];
            for (Expr term : or.terms()) {
                or(matched, evaluate(term));
            }
            return matched;
        }
        // MatchAll: every row.
        return all();
    }

    private long[] all() {
        long[] all = new long[words];
        Arrays.fill(all, -1L);
        if ((rows & 63) != 0) {
            all[words - 1] = (1L << rows) - 1;
        }
        return all;
    }

    private long[] condition(Expr.Condition c) throws CorruptValueException {
        Attribute a = c.attribute();
        ValueTest test = new ValueTest(c);
        return switch (a.scope()) {
            case RESOURCE -> throughRow(layout.resourceRow(), layout.resourceAttributes(), c, test);
            case SCOPE -> throughRow(layout.scopeRow(), layout.scopeAttributes(), c, test);
            case RECORD -> attribute(layout.attributes(), c, test);
            case UNSCOPED -> or(or(throughRow(layout.resourceRow(), layout.resourceAttributes(), c, test),
                    throughRow(layout.scopeRow(), layout.scopeAttributes(), c, test)),
                    attribute(layout.attributes(), c, test));
            case INTRINSIC -> intrinsic(a.intrinsic(), c, test);
            // A field of the whole trace may hold for every row: the trace's lookup decides it (Values).
            case TRACE -> all();
            case EVENT -> events(c);
        };
    }

    /**
     * The rows whose resource (or scope) satisfies {@code c}: the condition is judged on the rows
     * that hold a resource in full, then each row follows its reference to the one it shares.
     */
    private long[] throughRow(String rowColumn, String attributes, Expr.Condition c, ValueTest test)
            throws CorruptValueException {
        long[] holding = attribute(attributes, c, test);
        long[] matched = new long[words];
        if (isEmpty(holding)) {
            return matched;
        }
        IntVector refs = (IntVector) batch.getVector(rowColumn);
        requireNoNulls(refs);
        ByteBuffer at = BufferViews.of(refs.getDataBuffer());
        for (int row = 0; row < rows; row++) {
            int holder = at.getInt(row << 2);
            if (holder < 0 || holder > row) {
                throw corrupt(rowColumn + " of row " + row + " points at row " + holder);
            }
            if ((holding[holder >>> 6] & 1L << holder) != 0) {
                matched[row >>> 6] |= 1L << row;
            }
        }
        return matched;
    }

    /**
     * The rows of an attributes column with an entry of the condition's key that satisfies it. One
     * pass over the key references: an entry of another key costs an int and a bit read from arrays.
     */
    private long[] attribute(String name, Expr.Condition c, ValueTest test) throws CorruptValueException {
        long[] matched = new long[words];
        AttributeView view = view(name);
        int from = view.start(0);
        int to = view.end(rows - 1);
        Holders keyHolders = holders(name, view, c.attribute().key(), to);
        if (keyHolders.entries == null) {
            return matched;
        }
        long[] keyed = keyHolders.keyed;
        long[] holding = keyHolders.entries;
        int only = keyHolders.only;
        int[] refs = keyRefs.computeIfAbsent(name, n -> view.keyRefs(to));
        int row = 0;
        for (int i = from; i < to; i++) {
            int ref = refs[i];
            // Unsigned, a negative reference is above every entry: one compare rules out both.
            if (Integer.compareUnsigned(ref, i) > 0 || (keyed[ref >>> 6] & 1L << ref) == 0) {
                throw corrupt("attribute entry " + i + " of " + name + " refers to entry " + ref + " for its key");
            }
            if ((only >= 0 ? ref == only : (holding[ref >>> 6] & 1L << ref) != 0) && matches(view, i, c, test)) {
                // Entries are visited in order, so the row of each match is found moving forward only.
                while (view.end(row) <= i) {
                    row++;
                }
                matched[row >>> 6] |= 1L << row;
            }
        }
        return matched;
    }

    /** Whether entry {@code i} satisfies the condition: stored scalars tested where they lie, the rest decoded. */
    private static boolean matches(AttributeView view, int i, Expr.Condition c, ValueTest test)
            throws CorruptValueException {
        byte type = view.type(i);
        switch (type) {
            case AttributeColumn.STRING -> {
                if (!view.bytes().isSet(i)) {
                    throw corrupt("attribute entry " + i + " is a string without bytes");
                }
                return test.string(view.bytes(), i);
            }
            case AttributeColumn.INT, AttributeColumn.DOUBLE, AttributeColumn.BOOL -> {
                if (!view.hasNum(i)) {
                    throw corrupt("attribute entry " + i + " of type " + (char) type + " has no num");
                }
                long num = view.num(i);
                return type == AttributeColumn.INT ? test.integer(num)
                        : type == AttributeColumn.DOUBLE ? test.dbl(Double.longBitsToDouble(num))
                        : test.bool(num != 0);
            }
            default -> {
                return c.matches(view.value(i));
            }
        }
    }

    /**
     * The entries of one column that hold a key's text. {@code keyed}: every entry that holds a
     * key, the only ones a reference may point at. {@code entries}: those holding this key, null
     * when none does; {@code only}: the one holder when there is one, as a sound batch has, else -1.
     */
    private record Holders(long[] keyed, long[] entries, int only) {
    }

    /**
     * The entries before {@code end} holding the text of {@code key}. Only holders have a key, so
     * the key column's validity bits are crossed a word at a time.
     */
    private Holders holders(String column, AttributeView view, String key, int end) {
        return holders.computeIfAbsent(column + '\0' + key, k -> {
            byte[] utf8 = ValueTest.exactUtf8(key);
            VarWidthView keys = view.keys();
            long[] keyed = keys.setBits(end);
            long[] found = null;
            int count = 0;
            int only = -1;
            for (int w = 0; w < keyed.length; w++) {
                for (long bits = keyed[w]; bits != 0; bits &= bits - 1) {
                    int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                    if (utf8 != null ? keys.equalTo(i, utf8) : keys.string(i).equals(key)) {
                        found = found == null ? new long[keyed.length] : found;
                        found[i >>> 6] |= 1L << i;
                        only = count++ == 0 ? i : -1;
                    }
                }
            }
            return new Holders(keyed, found, only);
        });
    }

    private AttributeView view(String name) throws CorruptValueException {
        AttributeView view = views.get(name);
        if (view == null) {
            view = new AttributeView(batch.getVector(name));
            views.put(name, view);
        }
        return view;
    }

    /** The rows whose intrinsic field satisfies the condition, tested on the field's own column. */
    private long[] intrinsic(Intrinsic intrinsic, Expr.Condition c, ValueTest test) throws CorruptValueException {
        FieldVector vector = batch.getVector(intrinsic.column());
        boolean nullable = vector.getField().isNullable();
        if (!nullable) {
            requireNoNulls(vector);
        }
        long[] matched = new long[words];
        if (vector instanceof VarCharVector strings) {
            VarWidthView values = new VarWidthView(strings);
            // A nullable string column (the status message) stores "" as null, whatever bytes a null row spans.
            boolean emptyMatches = c.matches(new AnyValue.Str(""));
            for (int row = 0; row < rows; row++) {
                if (nullable && strings.isNull(row) ? emptyMatches : test.string(values, row)) {
                    matched[row >>> 6] |= 1L << row;
                }
            }
        } else if (vector instanceof IntVector ints) {
            ByteBuffer values = BufferViews.of(ints.getDataBuffer());
            for (int row = 0; row < rows; row++) {
                int v = values.getInt(row << 2);
                if (!intrinsic.isNone(v) && test.integer(v)) {
                    matched[row >>> 6] |= 1L << row;
                }
            }
        } else {
            ByteBuffer values = BufferViews.of(((BigIntVector) vector).getDataBuffer());
            for (int row = 0; row < rows; row++) {
                long v = values.getLong(row << 3);
                if (!intrinsic.isNone(v) && test.integer(v)) {
                    matched[row >>> 6] |= 1L << row;
                }
            }
        }
        return matched;
    }

    /**
     * The rows with an event whose name satisfies {@code c}: the events column holds each row's
     * events encoded together, so the rows are decoded one by one and judged as {@link Values} judges them.
     */
    private long[] events(Expr.Condition c) throws CorruptValueException {
        VarBinaryVector events = (VarBinaryVector) batch.getVector(SpanColumns.EVENTS);
        long[] matched = new long[words];
        for (int row = 0; row < rows; row++) {
            if (!events.isNull(row) && Values.anyEventName(ValueCodec.decodeEvents(events.get(row)), c)) {
                matched[row >>> 6] |= 1L << row;
            }
        }
        return matched;
    }

    /** Clears the matched rows whose time lies outside {@code range}; only matched rows are read. */
    private void keepInRange(long[] matched, TimeRange range) throws CorruptValueException {
        BigIntVector times = (BigIntVector) batch.getVector(layout.time());
        requireNoNulls(times);
        ByteBuffer time = BufferViews.of(times.getDataBuffer());
        for (int w = 0; w < words; w++) {
            for (long bits = matched[w]; bits != 0; bits &= bits - 1) {
                int row = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (!range.contains(time.getLong(row << 3))) {
                    matched[w] &= ~(1L << row);
                }
            }
        }
    }

    /**
     * Removes from {@code rows} those whose body is a string that fails {@code text}; a row whose body is
     * of another type (body_str null) stays, for the record's own test.
     */
    static void keepBodyText(VectorSchemaRoot batch, RoaringBitmap rows, Predicate<String> text) {
        VarCharVector bodies = (VarCharVector) batch.getVector(LogColumns.BODY_STRING);
        RoaringBitmap failed = new RoaringBitmap();
        for (int row : rows) {
            if (!bodies.isNull(row) && !text.test(new String(bodies.get(row), StandardCharsets.UTF_8))) {
                failed.add(row);
            }
        }
        rows.andNot(failed);
    }

    private static void requireNoNulls(FieldVector vector) throws CorruptValueException {
        if (vector.getNullCount() > 0) {
            throw corrupt(vector.getName() + " has " + vector.getNullCount() + " nulls, which its schema does not allow");
        }
    }

    private static long[] and(long[] a, long[] b) {
        for (int w = 0; w < a.length; w++) {
            a[w] &= b[w];
        }
        return a;
    }

    private static long[] or(long[] a, long[] b) {
        for (int w = 0; w < a.length; w++) {
            a[w] |= b[w];
        }
        return a;
    }

    private static boolean isEmpty(long[] bits) {
        for (long w : bits) {
            if (w != 0) {
                return false;
            }
        }
        return true;
    }

    private static CorruptValueException corrupt(String problem) {
        return new CorruptValueException(problem, 0);
    }
}
