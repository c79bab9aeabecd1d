package dev.needle.ingest.head;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.query.engine.HeadSource;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

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

    /** Each signal's active records, by tenant. */
    private Map<Signal, Map<TenantId, Active<?>>> active = newActive();
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
    public synchronized void add(WalEntry entry, Records<?> records) {
        if (rows == 0) {
            firstAddNanos = System.nanoTime();
        }
        add(entry.tenant(), records);
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
        Cut cut = Cut.of(writer, maxSequence, whole(Signal.SPANS), whole(Signal.LOGS), blockRows, rows, heapBytes);
        publishing.add(cut);
        publishingHeapBytes += heapBytes;
        active = newActive();
        rows = 0;
        bytes = 0;
        heapBytes = 0;
        return cut;
    }

    private static Map<Signal, Map<TenantId, Active<?>>> newActive() {
        Map<Signal, Map<TenantId, Active<?>>> out = new EnumMap<>(Signal.class);
        for (Signal signal : Signal.values()) {
            out.put(signal, new HashMap<>());
        }
        return out;
    }

    private <R> void add(TenantId tenant, Records<R> records) {
        active(records.kind()).computeIfAbsent(tenant, t -> new Active<>(records.kind())).add(records);
    }

    /** The active records of {@code kind}, by tenant. */
    @SuppressWarnings("unchecked")
    private <R> Map<TenantId, Active<R>> active(SignalKind<R> kind) {
        // Each signal's map holds only its own kind's records: add puts them there by their kind.
        return (Map<TenantId, Active<R>>) (Map<TenantId, ?>) active.get(kind.signal());
    }

    /** Each tenant's active records of {@code signal} as one Records. */
    private Map<TenantId, Records<?>> whole(Signal signal) {
        Map<TenantId, Records<?>> out = new HashMap<>();
        active.get(signal).forEach((tenant, records) -> out.put(tenant, records.whole()));
        return out;
    }

    /**
     * One tenant's active records of one signal: each write-ahead log entry's records as they came,
     * with their trace id hashes.
     */
    private static final class Active<R> {
        private final SignalKind<R> kind;
        private final List<Records<R>> entries = new ArrayList<>();
        private int rows;

        Active(SignalKind<R> kind) {
            this.kind = kind;
        }

        void add(Records<R> records) {
            entries.add(records);
            rows += records.size();
        }

        /** Every record, in the order they came. */
        List<R> all() {
            List<R> out = new ArrayList<>(rows);
            entries.forEach(e -> out.addAll(e.list()));
            return out;
        }

        /** Every record as one Records, in the order they came. */
        Records<R> whole() {
            int[] hashes = new int[rows];
            int at = 0;
            long heapBytes = 0;
            for (Records<R> e : entries) {
                System.arraycopy(e.traceHashes(), 0, hashes, at, e.size());
                at += e.size();
                heapBytes += e.heapBytes();
            }
            return new Records<>(kind, all(), heapBytes, hashes);
        }

        /** The records of trace {@code id}, in the order they came. */
        List<R> ofTrace(Bytes id) {
            int hash = id.hashCode();
            List<R> out = new ArrayList<>();
            for (Records<R> e : entries) {
                int[] hashes = e.traceHashes();
                List<R> records = e.list();
                for (int i = 0; i < hashes.length; i++) {
                    if (hashes[i] == hash && kind.traceId(records.get(i)).equals(id)) {
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
    public List<Part<SpanRecord>> spanParts(TenantId tenant) {
        return parts(SignalKind.SPANS, tenant);
    }

    @Override
    public List<Part<LogRecord>> logParts(TenantId tenant) {
        return parts(SignalKind.LOGS, tenant);
    }

    @Override
    public List<Part<SpanRecord>> traceSpanParts(TenantId tenant, Bytes traceId) {
        return traceParts(SignalKind.SPANS, tenant, traceId);
    }

    @Override
    public List<Part<LogRecord>> traceLogParts(TenantId tenant, Bytes traceId) {
        return traceParts(SignalKind.LOGS, tenant, traceId);
    }

    private synchronized <R> List<Part<R>> parts(SignalKind<R> kind, TenantId tenant) {
        List<Part<R>> out = publishingParts(tenant, kind);
        out.addAll(publishedParts(tenant, kind.signal()));
        Active<R> records = active(kind).get(tenant);
        out.add(new Part<>(null, records == null ? List.of() : records.all()));
        return out;
    }

    private synchronized <R> List<Part<R>> traceParts(SignalKind<R> kind, TenantId tenant, Bytes traceId) {
        List<Part<R>> out = HeadSource.filter(publishingParts(tenant, kind), r -> kind.traceId(r).equals(traceId));
        out.addAll(publishedParts(tenant, kind.signal()));
        Active<R> records = active(kind).get(tenant);
        // An empty id is no trace's: every span has one, and the log records without one are of none.
        List<R> ofTrace = records == null || traceId.isEmpty() ? List.of() : records.ofTrace(traceId);
        if (!ofTrace.isEmpty()) {
            out.add(new Part<>(null, ofTrace));
        }
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
    private <R> List<Part<R>> publishingParts(TenantId tenant, SignalKind<R> kind) {
        List<Part<R>> out = new ArrayList<>();
        for (Cut c : publishing) {
            for (Cut.Chunk chunk : c.chunks()) {
                Records<R> records = chunk.records().as(kind);
                if (chunk.tenant().equals(tenant) && records != null) {
                    out.add(new Part<>(chunk.blockId(), records.list()));
                }
            }
        }
        return out;
    }
}
