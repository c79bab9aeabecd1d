package dev.needle.ingest;

import dev.needle.blocks.SignalKind;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.Retention;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.ingest.head.Cut;
import dev.needle.ingest.head.CutIds;
import dev.needle.ingest.head.Head;
import dev.needle.ingest.head.Records;
import dev.needle.ingest.wal.WalEntry;
import dev.needle.ingest.wal.WalFullException;
import dev.needle.ingest.wal.WriteAheadLog;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Predicate;
import org.apache.arrow.memory.RootAllocator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Ingest from acknowledgement to published block: records go into the write-ahead log (fsynced,
 * group commit) and the head; the head is cut by rows, bytes and age into blocks; once a cut's
 * blocks are published the log is checkpointed past it. Opening replays what the log holds
 * beyond what the published blocks already hold.
 */
public final class IngestPipeline implements Ingestor, Closeable {

    private static final Logger LOG = LoggerFactory.getLogger(IngestPipeline.class);
    /**
     * How long ingest counts as busy after its head was last above half its bound: under load the head
     * swings between empty and its bound as cuts are published, and a moment's low must not count as quiet.
     */
    private static final Duration BUSY_FOR = Duration.ofSeconds(10);

    private final BlockStore store;
    private final IngestLimits limits;
    /** Whose cuts this pipeline's blocks are (see {@link CutIds}); "" for a store's one unnamed writer. */
    private final String writerId;
    private final PublishBackoff backoff;
    private final Head head = new Head();
    private final RootAllocator allocator = new RootAllocator();
    private final BlockWriter writer;
    private final ScheduledExecutorService publisher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "needle-publisher");
        t.setDaemon(true);
        return t;
    });
    /** Builds each block's sidecars while the publisher writes its data.arrow, the ingest's second core. */
    private final ExecutorService sidecarBuilder = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "needle-sidecars");
        t.setDaemon(true);
        return t;
    });
    private final List<Cut> unpublished = new ArrayList<>();
    /** Writes the store's index; null when the store keeps none. */
    private final BlockIndexWriter index;
    /** Blocks published but not yet added to the index (adding failed): added with the next publish. */
    private final List<BlockRef> unindexed = new ArrayList<>();
    /** The blocks published from the chunks of cuts not yet released, by chunk id. */
    private final Map<String, BlockRef> publishedChunks = new HashMap<>();
    private final AtomicLong blocksPublished = new AtomicLong();
    private final AtomicLong sidecarBytesPublished = new AtomicLong();
    private final AtomicLong failedPublishes = new AtomicLong();
    /** Whether a publish is queued on the publisher beside its tick, because the head became due by size. */
    private final AtomicBoolean publishQueued = new AtomicBoolean();
    /** The wait after the last failed attempt; zero while publishing succeeds. */
    private volatile Duration publishWait = Duration.ZERO;
    /** When the publisher may try again after a failure ({@link System#nanoTime}); the publisher's thread only. */
    private long nextAttemptNanos;
    /** Attempts failed since the last that succeeded; the publisher's thread only. */
    private int failuresInARow;
    /** Until when ingest counts as busy ({@link System#nanoTime}): {@link #BUSY_FOR} after the head was last above half its bound. */
    private volatile long busyUntilNanos = System.nanoTime();
    /** Heap bytes of the last request the head took: what the next is expected to add, before it is decoded. */
    private volatile long lastRequestHeapBytes;
    private WriteAheadLog<Records<?>> wal;
    /** What stopped the publisher (an Error in a publish); null while it runs. */
    private volatile Error publisherFailure;
    private List<String> recoveryProblems = List.of();

    private IngestPipeline(BlockStore store, IngestLimits limits, PublishBackoff backoff, String writerId,
                           BlockWriter.Options blocks) {
        this.store = store;
        this.limits = limits;
        this.backoff = backoff;
        this.writerId = writerId;
        this.writer = new BlockWriter(store, allocator, blocks).withSidecarsOn(sidecarBuilder);
        this.index = store.keepsIndex() ? new BlockIndexWriter(store) : null;
    }

    /**
     * {@link #open(BlockStore, Path, IngestLimits, PublishBackoff, LongConsumer, String, BlockWriter.Options)}
     * with {@link PublishBackoff#DEFAULT}, as the store's one unnamed writer, blocks uncompressed.
     */
    public static IngestPipeline open(BlockStore store, Path walDir, IngestLimits limits, LongConsumer fsyncNanos)
            throws IOException {
        return open(store, walDir, limits, PublishBackoff.DEFAULT, fsyncNanos, "", BlockWriter.Options.DEFAULT);
    }

    /**
     * Opens ingest over {@code store} with its write-ahead log in {@code walDir}: recovers
     * ({@link IngestRecovery}: removes blocks of cuts that were only partly published, replays the log
     * entries no complete cut holds into the head), and starts cutting; a failed publish is tried again after {@code backoff}. Its blocks are
     * named as {@code writerId}'s (see {@link CutIds}; "" when it is the store's one writer), and
     * recovery reads only the blocks of that name, so that it may share the store with other writers.
     * Blocks are written with {@code blocks} (batch size, compression).
     */
    public static IngestPipeline open(BlockStore store, Path walDir, IngestLimits limits, PublishBackoff backoff,
                                      LongConsumer fsyncNanos, String writerId, BlockWriter.Options blocks)
            throws IOException {
        IngestPipeline pipeline = new IngestPipeline(store, limits, backoff, writerId, blocks);
        WriteAheadLog.Recovery<Records<?>> recovery = WriteAheadLog.open(walDir, limits.walSegmentBytes(),
                limits.maxWalPendingBytes(), pipeline::durable, fsyncNanos);
        pipeline.wal = recovery.log();
        pipeline.recoveryProblems = List.copyOf(recovery.problems());
        IngestRecovery recover = new IngestRecovery(store, writerId, pipeline.index);
        try {
            recover.replay(recovery, pipeline.head);
        } catch (IOException | RuntimeException e) {
            pipeline.wal.close();
            pipeline.sidecarBuilder.shutdown();
            pipeline.allocator.close();
            throw e;
        }
        recover.reconcileIndex();
        long tick = Math.max(50, Math.min(1000, limits.cutAge().toMillis() / 4));
        pipeline.publisher.scheduleWithFixedDelay(pipeline::publishDue, tick, tick, TimeUnit.MILLISECONDS);
        return pipeline;
    }

    /** A tenant's signal as the log names it: {@code tenant/spans}. */
    static String key(TenantId tenant, Signal signal) {
        return tenant.value() + "/" + signal.dirName();
    }

    /**
     * Deletes the blocks whose every record is older than {@code cutoffUnixNano}; the blocks of one
     * cut go together, once all of them are older, so that recovery never sees a cut cut short.
     */
    public List<BlockRef> applyRetention(long cutoffUnixNano) throws IOException {
        return Retention.deleteOlderThan(store, cutoffUnixNano,
                ref -> CutIds.parse(ref.name().id()).<Object>map(c -> c.writer() + "/" + c.sequence()).orElse(ref));
    }

    /**
     * Which blocks this node's compactor may merge: see {@link #compactable(String, LongSupplier, boolean)}
     * with this pipeline's writer and log.
     */
    public Predicate<BlockRef> compactable(boolean othersToo) {
        return compactable(writerId, wal::checkpoint, othersToo);
    }

    /**
     * Which blocks a compactor beside {@code writerId}'s write-ahead log may merge: none of that writer's
     * cuts past the log's checkpoint (recovery would find such a cut short, delete what is left of it
     * and write its records again, beside the compaction's copy), and blocks of no cut of that writer
     * only when {@code othersToo} (the store's one writer; nodes sharing a bucket compact their own).
     */
    public static Predicate<BlockRef> compactable(String writerId, LongSupplier checkpoint, boolean othersToo) {
        return block -> CutIds.parse(block.name().id()).filter(c -> c.writer().equals(writerId))
                .map(c -> c.sequence() <= checkpoint.getAsLong()).orElse(othersToo);
    }

    private void durable(List<WalEntry> entries, List<Records<?>> records) {
        for (int i = 0; i < entries.size(); i++) {
            head.add(entries.get(i), records.get(i));
        }
        if (dueBySize() && publishQueued.compareAndSet(false, true)) {
            // Now, not at the next tick: under load requests wait for room that only a cut makes.
            try {
                publisher.execute(() -> {
                    publishQueued.set(false);
                    publishDue();
                });
            } catch (RejectedExecutionException e) {
                // Closing: close() publishes the whole head.
                publishQueued.set(false);
            }
        }
    }

    @Override
    public void acceptSpans(TenantId tenant, List<SpanRecord> spans, byte[] protobuf, int length)
            throws IngestRefusedException, IOException {
        accept(tenant, Records.of(SignalKind.SPANS, spans), protobuf, length);
    }

    @Override
    public void acceptLogs(TenantId tenant, List<LogRecord> logs, byte[] protobuf, int length)
            throws IngestRefusedException, IOException {
        accept(tenant, Records.of(SignalKind.LOGS, logs), protobuf, length);
    }

    /**
     * Waits, up to {@link IngestLimits#headWait}, while the head and a request as large as the last one
     * taken would pass the bound, then refuses if they still would: most requests {@link #accept} would
     * refuse once decoded are so refused before. One larger than the last may still pass here and be
     * refused once decoded; one smaller may be refused here though it would fit, and is taken when
     * retried. An empty head admits every request.
     */
    @Override
    public void admit() throws IngestRefusedException {
        roomFor(lastRequestHeapBytes);
    }

    /**
     * Returns once {@code bytes} more fit in the head (or it is empty), waiting up to
     * {@link IngestLimits#headWait} for a cut to be published: under sustained load a request waits for
     * the publisher rather than being sent away for the seconds its Retry-After asks. Refuses (429) when
     * there is no room by then.
     */
    private void roomFor(long bytes) throws IngestRefusedException {
        long bound = limits.maxHeadBytes();
        long held = head.heapBytes();
        if (held > 0 && held + bytes > bound) {
            busyUntilNanos = System.nanoTime() + BUSY_FOR.toNanos();
            try {
                held = head.awaitRoom(bytes, bound, limits.headWait().toNanos());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IngestRefusedException(503, 1, "interrupted while waiting for room in the head: the server is stopping");
            }
            if (held > 0 && held + bytes > bound) {
                throw headFull(held);
            }
        }
    }

    /** The refusal of a request the head has no room for, after waiting for it. */
    private IngestRefusedException headFull(long held) {
        // 5 s, not less: a client that retries sooner spends its attempts while the head is still full
        // (the ingest bench's sender gave up at 1 s).
        return new IngestRefusedException(429, 5, "the head holds " + held
                + " bytes of unpublished records in memory, within a request of its bound of " + limits.maxHeadBytes()
                + ", after waiting " + limits.headWait().toMillis() + " ms for the publisher to make room");
    }

    private void accept(TenantId tenant, Records<?> records, byte[] protobuf, int length)
            throws IngestRefusedException, IOException {
        if (records.size() == 0) {
            return;
        }
        if (head.heapBytes() + records.heapBytes() > limits.maxHeadBytes() / 2) {
            busyUntilNanos = System.nanoTime() + BUSY_FOR.toNanos();
        }
        // An empty head takes any request, or one larger than the bound would be refused for ever.
        roomFor(records.heapBytes());
        lastRequestHeapBytes = records.heapBytes();
        byte[] payload = protobuf != null ? protobuf : records.encode();
        try {
            wal.append(records.signal(), tenant, payload, protobuf != null ? length : payload.length, records).get();
        } catch (WalFullException e) {
            throw new IngestRefusedException(503, 1, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for the write-ahead log", e);
        } catch (ExecutionException e) {
            throw new IngestRefusedException(503, 10, "the write-ahead log could not be written: " + e.getCause().getMessage());
        }
    }

    /**
     * Whether ingest is busy: a request in the last {@link #BUSY_FOR} found the head above half its bound
     * (or over it). Background work that competes with the publisher for the cores waits while it is.
     */
    public boolean busy() {
        return System.nanoTime() - busyUntilNanos < 0;
    }

    /** The head, which queries scan. */
    public Head head() {
        return head;
    }

    /** The write-ahead log, for metrics. */
    public WriteAheadLog<Records<?>> wal() {
        return wal;
    }

    /** What recovery found damaged in the write-ahead log at start and dropped, one line a segment; empty when nothing. */
    public List<String> recoveryProblems() {
        return recoveryProblems;
    }

    /** Blocks published since start. */
    public long blocksPublished() {
        return blocksPublished.get();
    }

    /** Sidecar bytes (TRACE_IDX and ATTR_IDX) of the blocks published since start. */
    public long sidecarBytesPublished() {
        return sidecarBytesPublished.get();
    }

    /** Publish attempts that failed since start; each leaves its records in the head and the write-ahead log. */
    public long failedPublishes() {
        return failedPublishes.get();
    }

    /** How long the publisher waits before its next attempt after a failure; zero while publishing succeeds. */
    public Duration publishBackoff() {
        return publishWait;
    }

    private void publishDue() {
        if (!publishWait.isZero() && System.nanoTime() - nextAttemptNanos < 0) {
            return;
        }
        try {
            if (dueBySize() || head.activeAgeNanos() >= limits.cutAge().toNanos()) {
                // Under load the next cut is due by the time one is published: it is cut at once, not a tick later,
                // while the receivers near the head's bound.
                do {
                    cutAndPublish();
                } while (dueBySize());
            } else {
                publishPending();
            }
            if (failuresInARow > 0) {
                LOG.info("publishing works again after {} failed attempts", failuresInARow);
                failuresInARow = 0;
                publishWait = Duration.ZERO;
            }
        } catch (IOException e) {
            // An S3 outage or a full disk, typically: said once an attempt without a stack trace.
            LOG.error("publishing failed ({}); the records stay in the head and the write-ahead log, retrying in {}",
                    e, backOff());
        } catch (RuntimeException e) {
            LOG.error("publishing failed; the records stay in the head and the write-ahead log, retrying in "
                    + backOff(), e);
        } catch (Error e) {
            // The scheduler would drop the task silently, and the head would fill for ever: said, and left
            // to whoever watches failure().
            publisherFailure = e;
            LOG.error("publishing failed and the publisher stopped; the records stay in the write-ahead log", e);
            throw e;
        }
    }

    /**
     * What stopped ingest for good, or null while it works: the write-ahead log refuses every entry, or
     * the publisher stopped. The process should then exit, so that a restart replays the log.
     */
    public Throwable failure() {
        IOException wal = this.wal.broken();
        return wal != null ? wal : publisherFailure;
    }

    /** Whether the active part is large enough to cut; half the head's bound too, so that publishing frees memory before ingest must refuse data. */
    private boolean dueBySize() {
        // Never an empty part: with a head bound of 1 byte half of it is 0, and the publisher would cut for ever.
        return head.activeRows() > 0 && (head.activeRows() >= limits.cutRows() || head.activeBytes() >= limits.cutBytes()
                || head.activeHeapBytes() >= limits.maxHeadBytes() / 2);
    }

    /** Counts a failed attempt and sets when the next may be made; returns the wait, as the log says it. */
    private String backOff() {
        failedPublishes.incrementAndGet();
        failuresInARow++;
        publishWait = backoff.after(publishWait);
        nextAttemptNanos = System.nanoTime() + publishWait.toNanos();
        return publishWait.toMillis() % 1000 == 0 ? publishWait.toSeconds() + " s" : publishWait.toMillis() + " ms";
    }

    /** Cuts the head now and publishes everything cut so far; what fails stays queued for the next try. */
    public synchronized void cutAndPublish() throws IOException {
        Cut cut = head.cut(limits.blockRows(), writerId);
        if (cut != null) {
            unpublished.add(cut);
        }
        publishPending();
    }

    private synchronized void publishPending() throws IOException {
        while (!unpublished.isEmpty()) {
            Cut cut = unpublished.get(0);
            publish(cut);
            wal.checkpoint(cut.maxSequence());
            unpublished.remove(0);
            List<BlockRef> blocks = new ArrayList<>();
            for (Cut.Chunk chunk : cut.chunks()) {
                BlockRef ref = publishedChunks.remove(chunk.blockId());
                if (ref != null) {
                    blocks.add(ref);
                }
            }
            head.release(cut, blocks);
        }
    }

    /** Publishes the cut's blocks, then adds them to the index; a chunk published by an earlier try is not written again. */
    private void publish(Cut cut) throws IOException {
        for (Cut.Chunk chunk : cut.chunks()) {
            try {
                WrittenBlock block = chunk.records().writeBlock(writer, chunk.tenant(), chunk.blockId());
                blocksPublished.incrementAndGet();
                sidecarBytesPublished.addAndGet(block.sidecarBytes());
                publishedChunks.put(chunk.blockId(), block.ref());
                if (index != null) {
                    unindexed.add(block.ref());
                }
                int records = chunk.records().size();
                LOG.info("published {}: {} {}, {} bytes", block.ref(), records, Units.plural(records, "record"),
                        block.meta().dataBytes());
            } catch (FileAlreadyExistsException e) {
                // A retry after a partly failed publish: this chunk made it the first time.
                LOG.info("block {} of {} was already published", chunk.blockId(),
                        key(chunk.tenant(), chunk.records().signal()));
            }
        }
        indexPublished();
    }

    /**
     * Adds the published blocks not yet indexed to the index. Until that succeeds the cut is not
     * released, so queries still find its records in the head.
     */
    private void indexPublished() throws IOException {
        if (index == null) {
            return;
        }
        Map<String, List<BlockRef>> bySignal = new LinkedHashMap<>();
        unindexed.forEach(ref -> bySignal.computeIfAbsent(key(ref.tenant(), ref.signal()), k -> new ArrayList<>()).add(ref));
        for (List<BlockRef> refs : bySignal.values()) {
            index.add(refs.get(0).tenant(), refs.get(0).signal(), refs);
            unindexed.removeAll(refs);
        }
    }

    /** Stops taking data: publishes the whole head, checkpoints the log and closes it. */
    @Override
    public void close() throws IOException {
        publisher.shutdown();
        try {
            publisher.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            cutAndPublish();
        } finally {
            sidecarBuilder.shutdown();
            wal.close();
            allocator.close();
        }
    }
}
