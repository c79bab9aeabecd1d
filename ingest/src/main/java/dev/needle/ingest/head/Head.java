package dev.needle.ingest.head;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.query.engine.HeadSource;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Records acknowledged but not yet in a published block: the active part, which takes new
 * records, and the cuts being published, which stay visible to queries until their blocks are
 * listed by the store (the contract {@link HeadSource} states); then, for
 * {@link HeadSource#NAMES_PUBLISHED_FOR}, the names of the blocks they were published as. The
 * active part keeps each record's trace id hash beside it, so that a trace lookup compares ints
 * instead of copying the head.
 *
 * <p>The active part holds the write-ahead log entries' record lists as they came, not one list or
 * map entry per record: a record then costs no write into the head's long-lived structures, which
 * would make every young collection scan those structures for references to the new records.
 */
public final class Head implements HeadSource {

    private Map<TenantId, Active<Records.Spans, SpanRecord>> spans = new HashMap<>();
    private Map<TenantId, Active<Records.Logs, LogRecord>> logs = new HashMap<>();
    private long rows;
    private long bytes;
    private long heapBytes;
    private long maxSequence;
    private long firstAddNanos;
    private final List<Cut> publishing = new ArrayList<>();
    private long publishingHeapBytes;
    private final List<Published> published = new ArrayList<>();

    /** A block published from a released cut, named in the head's parts until {@code untilNanos}. */
    private record Published(BlockRef block, long untilNanos) {
    }

    /** Adds the records of one durable write-ahead log entry; entries arrive in sequence order. */
    public synchronized void add(WalEntry entry, Records records) {
        if (rows == 0) {
            firstAddNanos = System.nanoTime();
        }
        if (records instanceof Records.Spans s) {
            spans.computeIfAbsent(entry.tenant(), t -> new Active<>(Records.Spans::list, SpanRecord::traceId,
                    Records.Spans::new)).add(s);
        } else if (records instanceof Records.Logs l) {
            logs.computeIfAbsent(entry.tenant(), t -> new Active<>(Records.Logs::list, LogRecord::traceId,
                    Records.Logs::new)).add(l);
        }
        rows += records.size();
        bytes += entry.payloadLength();
        heapBytes += records.heapBytes();
        maxSequence = Math.max(maxSequence, entry.sequence());
    }

    /**
     * Moves every active record into a cut, in blocks of at most {@code blockRows} rows named as
     * {@code writer}'s, that stays visible until {@link #release}; null when there is none.
     */
    public synchronized Cut cut(int blockRows, String writer) {
        if (rows == 0) {
            return null;
        }
        Cut cut = Cut.of(writer, maxSequence, all(spans), all(logs), blockRows, rows, heapBytes);
        publishing.add(cut);
        publishingHeapBytes += heapBytes;
        spans = new HashMap<>();
        logs = new HashMap<>();
        rows = 0;
        bytes = 0;
        heapBytes = 0;
        return cut;
    }

    private static Map<TenantId, Records> all(Map<TenantId, ? extends Active<?, ?>> active) {
        Map<TenantId, Records> out = new HashMap<>();
        active.forEach((tenant, records) -> out.put(tenant, records.whole()));
        return out;
    }

    /**
     * One tenant's active records of one signal: each write-ahead log entry's records as they came,
     * with their trace id hashes.
     */
    private static final class Active<K extends Records, R> {
        private final Function<K, List<R>> list;
        private final Function<R, Bytes> traceId;
        private final Whole<K, R> whole;
        private final List<K> entries = new ArrayList<>();
        private int rows;

        /** Makes one Records of every active record: a list, its heap bytes and its hashes. */
        interface Whole<K, R> {
            K of(List<R> records, long heapBytes, int[] traceHashes);
        }

        Active(Function<K, List<R>> list, Function<R, Bytes> traceId, Whole<K, R> whole) {
            this.list = list;
            this.traceId = traceId;
            this.whole = whole;
        }

        void add(K records) {
            entries.add(records);
            rows += records.size();
        }

        /** Every record, in the order they came. */
        List<R> all() {
            List<R> out = new ArrayList<>(rows);
            entries.forEach(e -> out.addAll(list.apply(e)));
            return out;
        }

        /** Every record as one Records, in the order they came. */
        K whole() {
            int[] hashes = new int[rows];
            int at = 0;
            long heapBytes = 0;
            for (K e : entries) {
                System.arraycopy(e.traceHashes(), 0, hashes, at, e.size());
                at += e.size();
                heapBytes += e.heapBytes();
            }
            return whole.of(all(), heapBytes, hashes);
        }

        /** The records of trace {@code id}, in the order they came. */
        List<R> ofTrace(Bytes id) {
            int hash = id.hashCode();
            List<R> out = new ArrayList<>();
            for (K e : entries) {
                int[] hashes = e.traceHashes();
                List<R> records = list.apply(e);
                for (int i = 0; i < hashes.length; i++) {
                    if (hashes[i] == hash && traceId.apply(records.get(i)).equals(id)) {
                        out.add(records.get(i));
                    }
                }
            }
            return out;
        }
    }

    /**
     * Forgets the records of a cut whose blocks are published, listed and in the store's index, and
     * names {@code blocks}, the blocks it was published as, for {@link HeadSource#NAMES_PUBLISHED_FOR}.
     */
    public synchronized void release(Cut cut, List<BlockRef> blocks) {
        // By identity: a record's equals would compare every span of the two cuts.
        if (publishing.removeIf(c -> c == cut)) {
            publishingHeapBytes -= cut.heapBytes();
        }
        long now = System.nanoTime();
        published.removeIf(p -> now - p.untilNanos() > 0);
        long until = now + NAMES_PUBLISHED_FOR.toNanos();
        blocks.forEach(b -> published.add(new Published(b, until)));
        notifyAll();
    }

    /**
     * Waits until {@code bytes} more fit under {@code bound} (or the head is empty: it takes any
     * request), at most {@code nanos}; returns the heap bytes then held, as {@link #heapBytes}.
     * Room is made only by {@link #release}, which wakes the waiting.
     */
    public synchronized long awaitRoom(long bytes, long bound, long nanos) throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        long held = heapBytes();
        while (held > 0 && held + bytes > bound) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                break;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
            held = heapBytes();
        }
        return held;
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
        List<Part<SpanRecord>> out = publishingParts(tenant, Records.Spans.class, Records.Spans::list);
        out.addAll(publishedParts(tenant, Signal.SPANS));
        Active<Records.Spans, SpanRecord> active = spans.get(tenant);
        out.add(new Part<>(null, active == null ? List.of() : active.all()));
        return out;
    }

    @Override
    public synchronized List<Part<SpanRecord>> traceSpanParts(TenantId tenant, Bytes traceId) {
        List<Part<SpanRecord>> out = HeadSource.filter(publishingParts(tenant, Records.Spans.class, Records.Spans::list),
                s -> s.traceId().equals(traceId));
        out.addAll(publishedParts(tenant, Signal.SPANS));
        Active<Records.Spans, SpanRecord> active = spans.get(tenant);
        List<SpanRecord> ofTrace = active == null ? List.of() : active.ofTrace(traceId);
        if (!ofTrace.isEmpty()) {
            out.add(new Part<>(null, ofTrace));
        }
        return out;
    }

    @Override
    public synchronized List<Part<LogRecord>> traceLogParts(TenantId tenant, Bytes traceId) {
        List<Part<LogRecord>> out = HeadSource.filter(publishingParts(tenant, Records.Logs.class, Records.Logs::list),
                r -> r.traceId().equals(traceId));
        out.addAll(publishedParts(tenant, Signal.LOGS));
        Active<Records.Logs, LogRecord> active = logs.get(tenant);
        List<LogRecord> ofTrace = active == null || traceId.isEmpty() ? List.of() : active.ofTrace(traceId);
        if (!ofTrace.isEmpty()) {
            out.add(new Part<>(null, ofTrace));
        }
        return out;
    }

    @Override
    public synchronized List<Part<LogRecord>> logParts(TenantId tenant) {
        List<Part<LogRecord>> out = publishingParts(tenant, Records.Logs.class, Records.Logs::list);
        out.addAll(publishedParts(tenant, Signal.LOGS));
        Active<Records.Logs, LogRecord> active = logs.get(tenant);
        out.add(new Part<>(null, active == null ? List.of() : active.all()));
        return out;
    }

    /** The tenant's blocks of {@code signal} published lately, each as a part without records naming it. */
    private <R> List<Part<R>> publishedParts(TenantId tenant, Signal signal) {
        long now = System.nanoTime();
        List<Part<R>> out = new ArrayList<>();
        for (Published p : published) {
            if (p.block().tenant().equals(tenant) && p.block().signal() == signal && now - p.untilNanos() < 0) {
                out.add(Part.published(p.block().name().id(), p.block().name().toString()));
            }
        }
        return out;
    }

    /** The tenant's chunks of {@code kind} in the cuts being published, each as the part of its block. */
    private <K extends Records, R> List<Part<R>> publishingParts(TenantId tenant, Class<K> kind,
                                                                 Function<K, List<R>> records) {
        List<Part<R>> out = new ArrayList<>();
        for (Cut c : publishing) {
            for (Cut.Chunk chunk : c.chunks()) {
                if (chunk.tenant().equals(tenant) && kind.isInstance(chunk.records())) {
                    out.add(new Part<>(chunk.blockId(), records.apply(kind.cast(chunk.records()))));
                }
            }
        }
        return out;
    }
}
