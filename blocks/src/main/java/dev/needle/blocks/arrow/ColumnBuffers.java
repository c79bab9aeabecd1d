package dev.needle.blocks.arrow;

import org.apache.arrow.vector.TypeLayout;
import org.apache.arrow.vector.types.pojo.Field;

/**
 * How many field nodes and buffers a column takes in a record batch's message header: a column
 * and its children, depth first, as Arrow's IPC format lists them. The writer finds each column's
 * byte range by these counts, the reader each column's buffers.
 */
public final class ColumnBuffers {

    private ColumnBuffers() {
    }

    /** The field nodes of {@code field}: its own and its children's. */
    public static int nodes(Field field) {
        return 1 + field.getChildren().stream().mapToInt(ColumnBuffers::nodes).sum();
    }

    /** The buffers of {@code field}: its own and its children's. */
    public static int buffers(Field field) {
        return TypeLayout.getTypeBufferCount(field.getType())
                + field.getChildren().stream().mapToInt(ColumnBuffers::buffers).sum();
    }
}
