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
    private long maxSequence;
    private long firstAddNanos;
    private final List<Cut> publishing = new ArrayList<>();
    private long publishingBytes;

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
        maxSequence = Math.max(maxSequence, entry.sequence());
    }

    /** Moves every active record into a cut that stays visible until {@link #release}; null when there is none. */
    public synchronized Cut cut() {
        if (rows == 0) {
            return null;
        }
        Cut cut = new Cut(maxSequence, spans, logs, rows, bytes);
        publishing.add(cut);
        publishingBytes += bytes;
        spans = new HashMap<>();
        logs = new HashMap<>();
        rows = 0;
        bytes = 0;
        return cut;
    }

    /** Forgets a cut whose blocks are published and listed. */
    public synchronized void release(Cut cut) {
        // By identity: a record's equals would compare every span of the two cuts.
        if (publishing.removeIf(c -> c == cut)) {
            publishingBytes -= cut.walBytes();
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

    /** Nanoseconds since the active part's first record arrived; 0 when it is empty. */
    public synchronized long activeAgeNanos() {
        return rows == 0 ? 0 : System.nanoTime() - firstAddNanos;
    }

    /** Write-ahead log bytes of every record held, active and being published: what the memory bound counts. */
    public synchronized long bytes() {
        return bytes + publishingBytes;
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
    public synchronized List<SpanRecord> spans(TenantId tenant) {
        List<SpanRecord> out = new ArrayList<>();
        for (Cut c : publishing) {
            out.addAll(c.spans().getOrDefault(tenant, List.of()));
        }
        out.addAll(spans.getOrDefault(tenant, List.of()));
        return out;
    }

    @Override
    public synchronized List<LogRecord> logs(TenantId tenant) {
        List<LogRecord> out = new ArrayList<>();
        for (Cut c : publishing) {
            out.addAll(c.logs().getOrDefault(tenant, List.of()));
        }
        out.addAll(logs.getOrDefault(tenant, List.of()));
        return out;
    }
}
