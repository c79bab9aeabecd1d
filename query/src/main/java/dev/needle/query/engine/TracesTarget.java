package dev.needle.query.engine;

import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.KeyFilter;
import dev.needle.sidecar.KeyMix;
import java.util.Collection;
import java.util.List;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.FixedSizeBinaryVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.roaringbitmap.RoaringBitmap;

/**
 * Every span of several traces over all time, in one pass: a block is read when TRACE_IDX cannot rule
 * out one of the ids, a batch when its trace-id range holds one, and each such batch once, however many
 * of the traces it holds (looking the traces up one by one reads a batch once per trace).
 */
final class TracesTarget implements Target<SpanRecord> {

    private final NavigableSet<Bytes> traceIds;
    /**
     * Each id's halves, as the id column holds them, xor-ed, sorted: most rows are told apart by these alone
     * (ids of one family often share a half, such as zero-padded 64-bit ids).
     */
    private final long[] keys;

    TracesTarget(Collection<Bytes> traceIds) {
        this.traceIds = new TreeSet<>(traceIds);
        for (Bytes id : this.traceIds) {
            if (id.length() != 16) {
                throw new IllegalArgumentException("a trace id has 16 bytes, got " + id.length());
            }
        }
        this.keys = this.traceIds.stream().mapToLong(id -> KeyMix.traceIdLo(id.unsafeArray(), 0)
                ^ KeyMix.traceIdHi(id.unsafeArray(), 0)).sorted().toArray();
    }

    @Override
    public RecordKind<SpanRecord> kind() {
        return RecordKind.SPANS;
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
        for (Bytes id : traceIds) {
            byte[] b = id.unsafeArray();
            if (sidecar.mayContainTraceId(KeyMix.traceIdLo(b, 0), KeyMix.traceIdHi(b, 0))) {
                return null;
            }
        }
        return "TRACE_IDX rules every trace id out";
    }

    /** Only the trace ids the block's TRACE_IDX may hold: with many ids, its false positives would otherwise read every batch. */
    @Override
    public TracesTarget within(KeyFilter sidecar) {
        List<Bytes> held = new ArrayList<>();
        for (Bytes id : traceIds) {
            byte[] b = id.unsafeArray();
            if (sidecar.mayContainTraceId(KeyMix.traceIdLo(b, 0), KeyMix.traceIdHi(b, 0))) {
                held.add(id);
            }
        }
        return held.size() == traceIds.size() ? this : new TracesTarget(held);
    }

    @Override
    public String ruledOutBy(BatchMeta batch) {
        if (batch.minTraceId() == null) {
            return "no row has a trace id";
        }
        Bytes first = traceIds.ceiling(batch.minTraceId());
        return first == null || first.compareTo(batch.maxTraceId()) > 0 ? "no trace id lies in its range" : null;
    }

    @Override
    public String timeColumn() {
        return SpanColumns.START_TIME;
    }

    /** Trace ids are sorted: a batch whose zone maps hold one of the ids nearly always holds that trace. */
    @Override
    public boolean readsWholeBatches() {
        return true;
    }

    @Override
    public Set<String> predicateColumns() {
        return Set.of(SpanColumns.TRACE_ID);
    }

    @Override
    public RoaringBitmap matchingRows(VectorSchemaRoot columns) {
        FixedSizeBinaryVector ids = (FixedSizeBinaryVector) columns.getVector(SpanColumns.TRACE_ID);
        ArrowBuf data = ids.getDataBuffer();
        RoaringBitmap rows = new RoaringBitmap();
        for (int row = 0; row < columns.getRowCount(); row++) {
            long at = (long) row * 16;
            if (!ids.isNull(row) && Arrays.binarySearch(keys, data.getLong(at) ^ data.getLong(at + 8)) >= 0
                    && traceIds.contains(Bytes.wrap(ids.getObject(row)))) {
                rows.add(row);
            }
        }
        return rows;
    }
}
