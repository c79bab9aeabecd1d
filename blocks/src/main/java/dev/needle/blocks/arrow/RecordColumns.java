package dev.needle.blocks.arrow;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * The vectors of one batch of a block, bound for writing or reading one signal's rows: what
 * {@link SpanColumns} and {@link LogColumns} share (the attributes, resource and scope columns, ending a
 * batch, decoding a row) around the columns each signal has of its own.
 */
public abstract sealed class RecordColumns<R> permits SpanColumns, LogColumns {

    public static final String ATTRIBUTES = "attributes";
    public static final String DROPPED_ATTRIBUTES = "dropped_attributes_count";
    public static final String RESOURCE_ROW = ResourceScopeColumns.RESOURCE_ROW;
    public static final String RESOURCE_ATTRIBUTES = ResourceScopeColumns.RESOURCE_ATTRIBUTES;
    public static final String SCOPE_ROW = ResourceScopeColumns.SCOPE_ROW;
    public static final String SCOPE_ATTRIBUTES = ResourceScopeColumns.SCOPE_ATTRIBUTES;

    private final VectorSchemaRoot root;
    final AttributeColumn attributes;
    final ResourceScopeColumns resourceScope;

    RecordColumns(VectorSchemaRoot root) {
        this.root = root;
        attributes = new AttributeColumn(root.getVector(ATTRIBUTES));
        resourceScope = new ResourceScopeColumns(root);
    }

    /**
     * Writes {@code record} as row {@code row}; rows are written in order from 0, into vectors fresh from
     * allocateNew or reset, where a row's nullable columns are null until set, and that were allocated for at
     * least {@code row + 1} rows: fixed-width columns are set without growing (an index past them throws).
     * {@code resource} and {@code scope} are the record's, as one instance per distinct value of the block (see
     * {@link dev.needle.blocks.model.Interner}), which a batch writes once.
     */
    public abstract void write(int row, R record, Resource resource, Scope scope);

    /** Sets the row count of every vector once {@code rows} rows were written. */
    public void finish(int rows) {
        attributes.finish(rows);
        resourceScope.finish(rows);
        root.setRowCount(rows);
    }

    /** Row {@code row} as a record; bytes that cannot be one are a {@link CorruptValueException}. */
    public R read(int row) throws CorruptValueException {
        return Vectors.decodeRow(row, this::decode);
    }

    /** Row {@code row} as a record, read from the vectors as they are. */
    abstract R decode(int row) throws CorruptValueException;
}
