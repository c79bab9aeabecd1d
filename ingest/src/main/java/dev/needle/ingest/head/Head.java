package dev.needle.ingest.head;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.query.engine.HeadSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Records acknowledged but not yet in a published block: the active part, which takes new
 * records, and the cuts being published, which stay visible to queries until their blocks are
 * listed by the store (the contract {@link HeadSource} states).
 */
public final class Head implements HeadSource {

    private Map<TenantId, List<SpanRecord>> spans = new HashMap<>();
    private Map<TenantId, List<LogRecord>> logs = new HashMap<>();
    private long rows;
    private long bytes;
    private long heapBytes;
    private long maxSequence;
    private long firstAddNanos;
    private final List<Cut> publishing = new ArrayList<>();
    private long publishingHeapBytes;

    /** Adds the records of one durable write-ahead log entry; entries arrive in sequence order. */
    public synchronized void add(WalEntry entry, Records records) {
        if (rows == 0) {
            firstAddNanos = System.nanoTime();
        }
        if (records instanceof Records.Spans s) {
            spans.computeIfAbsent(entry.tenant(), t -> new ArrayList<>()).addAll(s.list());
        } else if (records instanceof Records.Logs l) {
            logs.computeIfAbsent(entry.tenant(), t -> new ArrayList<>()).addAll(l.list());
        }
        rows += records.size();
        bytes += entry.payload().length;
        heapBytes += records.heapBytes();
        maxSequence = Math.max(maxSequence, entry.sequence());
    }

    /**
     * Moves every active record into a cut, in blocks of at most {@code blockRows} rows, that stays
     * visible until {@link #release}; null when there is none.
     */
    public synchronized Cut cut(int blockRows) {
        if (rows == 0) {
            return null;
        }
        Cut cut = Cut.of(maxSequence, spans, logs, blockRows, rows, heapBytes);
        publishing.add(cut);
        publishingHeapBytes += heapBytes;
        spans = new HashMap<>();
        logs = new HashMap<>();
        rows = 0;
        bytes = 0;
        heapBytes = 0;
        return cut;
    }

    /** Forgets a cut whose blocks are published and listed. */
    public synchronized void release(Cut cut) {
        // By identity: a record's equals would compare every span of the two cuts.
        if (publishing.removeIf(c -> c == cut)) {
            publishingHeapBytes -= cut.heapBytes();
        }
    }

    /** Records in the active part. */
    public synchronized long activeRows() {
        return rows;
    }

    /** Write-ahead log bytes of the active part's records. */
    public synchronized long activeBytes() {
        return bytes;
    }

    /** Heap bytes of the active part's records, estimated. */
    public synchronized long activeHeapBytes() {
        return heapBytes;
    }

    /** Nanoseconds since the active part's first record arrived; 0 when it is empty. */
    public synchronized long activeAgeNanos() {
        return rows == 0 ? 0 : System.nanoTime() - firstAddNanos;
    }

    /** Heap bytes of every record held, active and being published, estimated: what the memory bound counts. */
    public synchronized long heapBytes() {
        return heapBytes + publishingHeapBytes;
    }

    /** Records held, active and being published. */
    public synchronized long rows() {
        long total = rows;
        for (Cut c : publishing) {
            total += c.rows();
        }
        return total;
    }

    @Override
    public synchronized List<Part<SpanRecord>> spanParts(TenantId tenant) {
        List<Part<SpanRecord>> out = new ArrayList<>();
        for (Cut c : publishing) {
            for (Cut.Chunk chunk : c.chunks()) {
                if (chunk.tenant().equals(tenant) && chunk.records() instanceof Records.Spans s) {
                    out.add(new Part<>(chunk.blockId(), s.list()));
                }
            }
        }
        out.add(new Part<>(null, List.copyOf(spans.getOrDefault(tenant, List.of()))));
        return out;
    }

    @Override
    public synchronized List<Part<LogRecord>> logParts(TenantId tenant) {
        List<Part<LogRecord>> out = new ArrayList<>();
        for (Cut c : publishing) {
            for (Cut.Chunk chunk : c.chunks()) {
                if (chunk.tenant().equals(tenant) && chunk.records() instanceof Records.Logs l) {
                    out.add(new Part<>(chunk.blockId(), l.list()));
                }
            }
        }
        out.add(new Part<>(null, List.copyOf(logs.getOrDefault(tenant, List.of()))));
        return out;
    }
}
