package dev.needle.blocks.read;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * The records of one trace in one block, read a batch at a time: batches whose trace-id zone map
 * cannot hold the id are skipped, the others have only their trace-id column read, and only a
 * batch with a match has its other columns read.
 */
public final class TraceLookup {

    private TraceLookup() {
    }

    /** The rows of batch {@code batch} whose trace id is {@code traceId}, reading only that column. */
    public static RoaringBitmap matchingRows(BlockReader reader, int batch, Bytes traceId) throws CorruptBlockException {
        String column = reader.block().signal() == Signal.SPANS ? SpanColumns.TRACE_ID : LogColumns.TRACE_ID;
        RoaringBitmap rows = new RoaringBitmap();
        byte[] id = traceId.unsafeArray();
        try (VectorSchemaRoot root = reader.read(batch, Set.of(column))) {
            FixedSizeBinaryVector ids = (FixedSizeBinaryVector) root.getVector(column);
            for (int row = 0; row < root.getRowCount(); row++) {
                if (!ids.isNull(row) && equalsAt(ids, row, id)) {
                    rows.add(row);
                }
            }
        }
        return rows;
    }

    /** Whether batch {@code batch}'s zone map allows {@code traceId}; true when there are no zone maps. */
    public static boolean mayHold(BlockReader reader, int batch, Bytes traceId) {
        if (reader.meta().isEmpty()) {
            return true;
        }
        BatchMeta meta = reader.meta().get().batches().get(batch);
        return meta.minTraceId() != null
                && traceId.compareTo(meta.minTraceId()) >= 0 && traceId.compareTo(meta.maxTraceId()) <= 0;
    }

    /** Every span of trace {@code traceId} in a spans block, in block order. */
    public static List<SpanRecord> spans(BlockReader reader, Bytes traceId) throws CorruptBlockException {
        return records(reader, traceId, root -> new SpanColumns(root)::read);
    }

    /** Every log record of trace {@code traceId} in a logs block, in block order. */
    public static List<LogRecord> logs(BlockReader reader, Bytes traceId) throws CorruptBlockException {
        return records(reader, traceId, root -> new LogColumns(root)::read);
    }

    /** Decodes one row of a bound batch. */
    private interface RowReader<R> {
        R read(int row) throws CorruptValueException;
    }

    private static <R> List<R> records(BlockReader reader, Bytes traceId, Function<VectorSchemaRoot, RowReader<R>> bind)
            throws CorruptBlockException {
        List<R> out = new ArrayList<>();
        for (int batch = 0; batch < reader.batchCount(); batch++) {
            if (!mayHold(reader, batch, traceId)) {
                continue;
            }
            RoaringBitmap rows = matchingRows(reader, batch, traceId);
            if (rows.isEmpty()) {
                continue;
            }
            try (VectorSchemaRoot root = reader.readAll(batch)) {
                RowReader<R> rowReader = bind.apply(root);
                for (int row : rows) {
                    out.add(rowReader.read(row));
                }
            } catch (CorruptValueException e) {
                throw new CorruptBlockException(reader.block(), "batch " + batch + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static boolean equalsAt(FixedSizeBinaryVector ids, int row, byte[] id) {
        long base = (long) row * 16;
        var data = ids.getDataBuffer();
        for (int i = 0; i < 16; i++) {
            if (data.getByte(base + i) != id[i]) {
                return false;
            }
        }
        return true;
    }
}
