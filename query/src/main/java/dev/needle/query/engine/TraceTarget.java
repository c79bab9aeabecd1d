package dev.needle.query.engine;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.sidecar.BitSlicedFilters;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyFilter;
import dev.needle.sidecar.KeyMix;
import java.util.Set;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/** The records of one trace: TRACE_IDX, then the batches' trace-id ranges, then the trace-id column. */
final class TraceTarget<R> implements Target<R> {

    private final Bytes traceId;
    private final TimeRange range;
    private final String idColumn;
    private final String timeColumn;
    private final RecordKind<R> kind;

    private TraceTarget(Bytes traceId, TimeRange range, String idColumn, String timeColumn, RecordKind<R> kind) {
        this.traceId = traceId;
        this.range = range;
        this.idColumn = idColumn;
        this.timeColumn = timeColumn;
        this.kind = kind;
    }

    /** The spans of trace {@code traceId} whose start time lies in {@code range}. */
    static TraceTarget<SpanRecord> spans(Bytes traceId, TimeRange range) {
        return new TraceTarget<>(traceId, range, SpanColumns.TRACE_ID, SpanColumns.START_TIME, RecordKind.SPANS);
    }

    /** The log records of trace {@code traceId} whose event time lies in {@code range}. */
    static TraceTarget<LogRecord> logs(Bytes traceId, TimeRange range) {
        return new TraceTarget<>(traceId, range, LogColumns.TRACE_ID, LogColumns.EVENT_TIME, RecordKind.LOGS);
    }

    @Override
    public RecordKind<R> kind() {
        return kind;
    }

    @Override
    public String sidecarFile() {
        return BloomSidecar.TRACE_IDX;
    }

    @Override
    public Step sidecarStep() {
        return Step.TRACE_IDX;
    }

    @Override
    public String ruledOutBy(KeyFilter sidecar) {
        byte[] id = traceId.unsafeArray();
        return sidecar.mayContainTraceId(KeyMix.traceIdLo(id, 0), KeyMix.traceIdHi(id, 0))
                ? null : "TRACE_IDX rules the trace id out";
    }

    @Override
    public BitSlicedFilters.Candidates mayHold(IndexedFilters.Lookup filters) {
        byte[] id = traceId.unsafeArray();
        long lo = KeyMix.traceIdLo(id, 0);
        long hi = KeyMix.traceIdHi(id, 0);
        return filters.candidates(KeyMix.h1(lo, hi), KeyMix.h2(lo, hi));
    }

    @Override
    public String ruledOutBy(BatchMeta batch) {
        if (batch.minTraceId() == null) {
            return "no row has a trace id";
        }
        if (traceId.compareTo(batch.minTraceId()) < 0) {
            return "its smallest trace id is larger";
        }
        return traceId.compareTo(batch.maxTraceId()) > 0 ? "its largest trace id is smaller" : null;
    }

    @Override
    public String timeColumn() {
        return timeColumn;
    }

    /** Trace ids are sorted: a batch whose zone maps hold the id nearly always holds the trace (TRACE_IDX checked it first). */
    @Override
    public boolean readsWholeBatches() {
        return true;
    }

    @Override
    public Set<String> predicateColumns() {
        return range.isAll() ? Set.of(idColumn) : Set.of(idColumn, timeColumn);
    }

    @Override
    public RoaringBitmap matchingRows(VectorSchemaRoot columns) {
        FixedSizeBinaryVector ids = (FixedSizeBinaryVector) columns.getVector(idColumn);
        BigIntVector times = range.isAll() ? null : (BigIntVector) columns.getVector(timeColumn);
        ArrowBuf data = ids.getDataBuffer();
        byte[] id = traceId.unsafeArray();
        RoaringBitmap rows = new RoaringBitmap();
        for (int row = 0; row < columns.getRowCount(); row++) {
            if (!ids.isNull(row) && sameId(data, row, id) && (times == null || range.contains(times.get(row)))) {
                rows.add(row);
            }
        }
        return rows;
    }

    private static boolean sameId(ArrowBuf data, int row, byte[] id) {
        long at = (long) row * 16;
        return data.getLong(at) == KeyMix.traceIdLo(id, 0) && data.getLong(at + 8) == KeyMix.traceIdHi(id, 0);
    }
}
