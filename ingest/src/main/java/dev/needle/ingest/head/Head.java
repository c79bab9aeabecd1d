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
 * active part is indexed by trace id, so that a trace lookup takes its records without copying or
 * scanning the head.
 */
public final class Head implements HeadSource {

    private Map<TenantId, List<SpanRecord>> spans = new HashMap<>();
    private Map<TenantId, List<LogRecord>> logs = new HashMap<>();
    private Map<TenantId, Map<Bytes, List<SpanRecord>>> spansByTrace = new HashMap<>();
    private Map<TenantId, Map<Bytes, List<LogRecord>>> logsByTrace = new HashMap<>();
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
        long indexBytes = 0;
        if (records instanceof Records.Spans s) {
            spans.computeIfAbsent(entry.tenant(), t -> new ArrayList<>()).addAll(s.list());
            Map<Bytes, List<SpanRecord>> byTrace = spansByTrace.computeIfAbsent(entry.tenant(), t -> new HashMap<>());
            for (SpanRecord span : s.list()) {
                indexBytes += index(byTrace, span.traceId(), span);
            }
        } else if (records instanceof Records.Logs l) {
            logs.computeIfAbsent(entry.tenant(), t -> new ArrayList<>()).addAll(l.list());
            Map<Bytes, List<LogRecord>> byTrace = logsByTrace.computeIfAbsent(entry.tenant(), t -> new HashMap<>());
            for (LogRecord log : l.list()) {
                if (log.traceId().length() > 0) {
                    indexBytes += index(byTrace, log.traceId(), log);
                }
            }
        }
        rows += records.size();
        bytes += entry.payload().length;
        heapBytes += records.heapBytes() + indexBytes;
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
        Cut cut = Cut.of(writer, maxSequence, spans, logs, blockRows, rows, heapBytes);
        publishing.add(cut);
        publishingHeapBytes += heapBytes;
        spans = new HashMap<>();
        logs = new HashMap<>();
        spansByTrace = new HashMap<>();
        logsByTrace = new HashMap<>();
        rows = 0;
        bytes = 0;
        heapBytes = 0;
        return cut;
    }

    /** Adds {@code record} to its trace's list; returns the heap the index took for it. */
    private static <R> long index(Map<Bytes, List<R>> byTrace, Bytes traceId, R record) {
        List<R> trace = byTrace.get(traceId);
        long bytes = HeapEstimate.INDEX_ENTRY;
        if (trace == null) {
            trace = new ArrayList<>(1);
            byTrace.put(traceId, trace);
            bytes += HeapEstimate.INDEX_KEY;
        }
        trace.add(record);
        return bytes;
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
        out.add(new Part<>(null, List.copyOf(spans.getOrDefault(tenant, List.of()))));
        return out;
    }

    @Override
    public synchronized List<Part<SpanRecord>> traceSpanParts(TenantId tenant, Bytes traceId) {
        List<Part<SpanRecord>> out = HeadSource.filter(publishingParts(tenant, Records.Spans.class, Records.Spans::list),
                s -> s.traceId().equals(traceId));
        out.addAll(publishedParts(tenant, Signal.SPANS));
        List<SpanRecord> active = spansByTrace.getOrDefault(tenant, Map.of()).get(traceId);
        if (active != null) {
            out.add(new Part<>(null, List.copyOf(active)));
        }
        return out;
    }

    @Override
    public synchronized List<Part<LogRecord>> traceLogParts(TenantId tenant, Bytes traceId) {
        List<Part<LogRecord>> out = HeadSource.filter(publishingParts(tenant, Records.Logs.class, Records.Logs::list),
                r -> r.traceId().equals(traceId));
        out.addAll(publishedParts(tenant, Signal.LOGS));
        List<LogRecord> active = logsByTrace.getOrDefault(tenant, Map.of()).get(traceId);
        if (active != null) {
            out.add(new Part<>(null, List.copyOf(active)));
        }
        return out;
    }

    @Override
    public synchronized List<Part<LogRecord>> logParts(TenantId tenant) {
        List<Part<LogRecord>> out = publishingParts(tenant, Records.Logs.class, Records.Logs::list);
        out.addAll(publishedParts(tenant, Signal.LOGS));
        out.add(new Part<>(null, List.copyOf(logs.getOrDefault(tenant, List.of()))));
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
