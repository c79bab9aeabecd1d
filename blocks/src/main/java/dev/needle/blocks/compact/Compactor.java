package dev.needle.blocks.compact;

import dev.needle.blocks.BlockLayout;
import dev.needle.blocks.SignalKind;
import dev.needle.blocks.arrow.RecordColumns;
import dev.needle.blocks.cli.Units;
import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.index.BlockIndexWriter;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.meta.CorruptMetaException;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.LiveBlocks;
import dev.needle.blocks.store.StoreLocks;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Merges runs of adjacent small blocks of one tenant and signal into blocks of up to
 * {@link Options#blockRows} rows, so that the number of blocks stays bounded whatever the ingest rate.
 *
 * <p>A pass, per tenant and signal, under the {@link StoreLocks} lock that retention also takes:
 * <ol>
 *   <li><b>Finish.</b> A visible block whose {@link BlockMeta#replaces} are still there is a compaction
 *       that was interrupted, or one whose inputs wait for their grace: the index is made to name the
 *       new block instead of the old ones ({@link BlockIndexWriter#replace}), and the old ones are
 *       deleted once {@link Options#grace} has passed since. Only when its meta.json and data.arrow's
 *       footer name the same blocks (or meta.json is the only copy its writer wrote): deleting cannot be
 *       undone, and readers answer each record once without it ({@link LiveBlocks}); a block whose copies
 *       do not agree keeps its old blocks until it is repaired or removed.</li>
 *   <li><b>Pick.</b> The blocks that answer queries, in name (time) order; a block is small when it holds
 *       at most half of {@code blockRows} rows, the caller's {@link Options#eligible} lets it be
 *       compacted (ingest keeps back blocks whose write-ahead log entries are not yet checkpointed, and
 *       blocks retention is about to delete) and none of the blocks it replaces is left. Adjacent small
 *       blocks are taken into a run while the run holds at most {@code blockRows} rows; the run's oldest
 *       blocks are left out while each is a compaction's own and holds more rows than the newer ones after
 *       it together (such a block is written again only once it would at least double); a run of two or
 *       more is merged.</li>
 *   <li><b>Merge.</b> The run's records are read and written again by the ordinary {@link BlockWriter}
 *       (sorted, batches and zone maps, TRACE_IDX, ATTR_IDX, BATCH_ATTR_IDX and TAGS built from the
 *       data, with the store's writer options), its meta.json and data.arrow's footer naming the run's
 *       blocks as those it replaces, and published. From that moment every reader skips the old blocks ({@link LiveBlocks}).
 *       Then the index is changed in one compare-and-swap, and the old blocks' deletion is due after
 *       the grace.</li>
 * </ol>
 *
 * <p>A {@link Deferral} may leave a signal's merges to a later pass (a server's, while ingest is busy and the
 * backlog short), between merges and within one, which then gives way before its write: what a pass leaves
 * stays as it is, answering queries, and is merged by the next one.
 *
 * <p><b>Why a grace before deleting, locally too.</b> Query nodes read the index at most once per poll
 * interval (1 s) and list blocks at most once a minute, each time the index lacks a block. A node whose
 * index is from before the swap names the old blocks and not the new one: were those deleted at once,
 * its query would find them gone and answer without their records. So the old blocks stay, answering
 * nothing while the new one is visible, until every node has read the index again: the grace is a few
 * poll intervals ({@link #DEFAULT_GRACE}). The same holds for a query engine in the compactor's own
 * process, which polls the same way; a query that runs longer than the grace may still miss a deleted
 * block's records and counts it as gone. Failing over instead (a reader that finds a block gone reads
 * the index again) would make every reader handle a case that waiting a few seconds avoids.
 *
 * <p><b>Crashes.</b> Before the publish nothing is visible (a staged block is swept). After it, the new
 * block names the old ones, so whatever is visible answers each record once: old blocks alone, or the
 * new block with old ones it replaces. The next pass (after a restart, the first one) finishes the
 * index change and the deletion.
 *
 * <p>Several nodes sharing a bucket each compact only blocks they own (the caller's {@code eligible},
 * and the outputs of their own {@link Options#writerId}), so that two compactions never replace the
 * same block. Not thread-safe: one pass at a time.
 */
public final class Compactor implements AutoCloseable {

    /** Three index poll intervals of the query engine: every node has read the index again by then. */
    public static final Duration DEFAULT_GRACE = Duration.ofSeconds(3);

    private static final Logger LOG = LoggerFactory.getLogger(Compactor.class);

    /** Ids of blocks a compactor wrote: {@code k}, 20 random characters, then {@code o<writer>} for a named writer. */
    private static final Pattern OUTPUT_ID = Pattern.compile("k[0-9a-z]{20}(?:o([0-9a-z]{1,16}))?");

    /**
     * How a compactor works.
     *
     * @param blockRows the most rows of a block it writes; blocks of at most half of it are small
     * @param writer    the block writer's options, the store's own (batch rows, compression)
     * @param grace     how long the old blocks stay after the index names the new block
     * @param writerId  whose outputs it writes and may compact again ("" for a store's one writer)
     * @param eligible  which other blocks it may compact
     */
    public record Options(int blockRows, BlockWriter.Options writer, Duration grace, String writerId,
                          Predicate<BlockRef> eligible) {
        /** Checks the values. */
        public Options {
            if (blockRows < 2) {
                throw new IllegalArgumentException("blockRows (" + blockRows + ") must be >= 2");
            }
            if (grace.isNegative()) {
                throw new IllegalArgumentException("grace (" + grace + ") must not be negative");
            }
            if (!writerId.matches("[0-9a-z]{0,16}")) {
                throw new IllegalArgumentException("a writer id is up to 16 of [0-9a-z], got '" + writerId + "'");
            }
        }
    }

    /** One merge: the blocks replaced, the block written, its rows and the bytes read and written. */
    public record Merge(TenantId tenant, Signal signal, List<BlockName> inputs, BlockName output, long rows,
                        long bytesRead, long bytesWritten) {
    }

    /**
     * A tenant's signal as a pass left it.
     *
     * @param blocks  the blocks that answer queries
     * @param backlog small blocks in runs that a pass would merge
     */
    public record SignalState(TenantId tenant, Signal signal, int blocks, int backlog) {
    }

    /**
     * What a pass did.
     *
     * @param merges   the merges, in order (planned only, with a dry run)
     * @param finished replaced blocks found still there and not yet waiting for their grace (left by a
     *                 compaction that was cut short, or by another process's): taken out of the index and
     *                 handed to the grace
     * @param deleted  replaced blocks deleted
     * @param signals  every tenant's signal after the pass
     */
    public record Pass(List<Merge> merges, int finished, List<BlockRef> deleted, List<SignalState> signals) {
    }

    private final BlockStore store;
    private final Options options;
    private final RootAllocator allocator = new RootAllocator();
    private final BlockWriter writer;
    private final BlockIndexWriter index;
    private final LiveBlocks live;
    /** The meta of every block seen, kept while it is listed (a published block never changes). */
    private final Map<BlockRef, BlockMeta> metas = new ConcurrentHashMap<>();
    /** Blocks whose two lists of the blocks they replace do not agree, each warned of once. */
    private final Set<BlockRef> unsettled = new HashSet<>();
    /** Replaced blocks the index no longer names, with when they may be deleted ({@link System#nanoTime}). */
    private final Map<BlockRef, Long> due = new HashMap<>();
    private final AtomicLong compactions = new AtomicLong();
    private final AtomicLong blocksRewritten = new AtomicLong();
    private final AtomicLong rowsRewritten = new AtomicLong();
    private final AtomicLong bytesRewritten = new AtomicLong();
    private final AtomicLong mergesDeferred = new AtomicLong();
    private volatile List<SignalState> lastSignals = List.of();

    /** A compactor of {@code store}. */
    public Compactor(BlockStore store, Options options) {
        this.store = store;
        this.options = options;
        this.writer = new BlockWriter(store, allocator, options.writer());
        this.index = store.keepsIndex() ? new BlockIndexWriter(store) : null;
        this.live = new LiveBlocks(store);
    }

    /** Merges done since start. */
    public long compactions() {
        return compactions.get();
    }

    /** Blocks merged into others since start. */
    public long blocksRewritten() {
        return blocksRewritten.get();
    }

    /** Rows written again since start. */
    public long rowsRewritten() {
        return rowsRewritten.get();
    }

    /** data.arrow bytes written again since start. */
    public long bytesRewritten() {
        return bytesRewritten.get();
    }

    /** Merges a pass left to a later one since start, as its {@link Deferral} asked; each counted at every pass that left it. */
    public long mergesDeferred() {
        return mergesDeferred.get();
    }

    /** Every tenant's signal as the last pass left it. */
    public List<SignalState> signals() {
        return lastSignals;
    }

    /** Whether the old blocks of a merge are still waiting for their grace. */
    public boolean deletionsDue() {
        return !due.isEmpty();
    }

    /**
     * Whether a pass leaves a tenant's signal's remaining merges to a later pass: asked before each merge with
     * that signal's {@code backlog}, the small blocks in runs still to merge, and inside a merge (before each
     * block and each batch it reads, and before it writes) with the backlog it began with. A merge told so
     * inside gives way at once: it publishes nothing, drops what it read, and is left to a later pass with
     * the rest, so that ingest gets the cores within one batch's read instead of after a whole merge. The
     * write of the merged block, once begun, is not cut short.
     */
    @FunctionalInterface
    public interface Deferral {
        /** Never defers. */
        Deferral NEVER = backlog -> false;

        /** True to leave the merges still to do for this tenant's signal to a later pass. */
        boolean defer(int backlog);
    }

    /** {@link #run(boolean, Deferral)} deferring nothing. */
    public Pass run(boolean dryRun) throws IOException {
        return run(dryRun, Deferral.NEVER);
    }

    /**
     * One pass: deletes the replaced blocks whose grace has passed ({@link #deleteDue}), then finishes and
     * merges over every tenant and signal, leaving what {@code deferral} defers (finishing and deleting are
     * never deferred: they write little and bring the store back to one answer per record); with
     * {@code dryRun} it only plans (and neither finishes nor deletes).
     */
    public Pass run(boolean dryRun, Deferral deferral) throws IOException {
        List<Merge> merges = new ArrayList<>();
        List<BlockRef> deleted = dryRun ? List.of() : deleteDue();
        List<SignalState> signals = new ArrayList<>();
        int finished = 0;
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                ReentrantLock lock = StoreLocks.of(tenant, signal);
                lock.lock();
                try {
                    finished += pass(tenant, signal, dryRun, deferral, merges, signals);
                } finally {
                    lock.unlock();
                }
            }
        }
        if (!dryRun) {
            lastSignals = List.copyOf(signals);
        }
        return new Pass(merges, finished, deleted, signals);
    }

    private int pass(TenantId tenant, Signal signal, boolean dryRun, Deferral deferral, List<Merge> merges,
                     List<SignalState> signals) throws IOException {
        List<BlockRef> listed = store.list(tenant, signal);
        if (listed.isEmpty()) {
            return 0;
        }
        Set<BlockName> names = new HashSet<>();
        listed.forEach(ref -> names.add(ref.name()));
        metas.keySet().removeIf(ref -> ref.tenant().equals(tenant) && ref.signal() == signal && !names.contains(ref.name()));
        Map<BlockName, BlockMeta> known = knownMetas(tenant, signal);
        LiveBlocks.View view = live.view(tenant, signal, names,
                name -> new LiveBlocks.Held(metaOrNull(new BlockRef(tenant, signal, name), known), new byte[0]));
        int finished = 0;
        Set<BlockName> replaced = view.leftOut();
        for (Map.Entry<BlockName, List<BlockName>> r : view.replacements().entrySet()) {
            if (dryRun) {
                continue;
            }
            if (view.settled().contains(r.getKey())) {
                finished += finish(tenant, signal, r.getKey(), r.getValue());
            } else if (unsettled.add(new BlockRef(tenant, signal, r.getKey()))) {
                LOG.warn("compaction: {}/{}/{}: its meta.json and data.arrow do not both name the blocks it replaces;"
                        + " those are kept until it is repaired or removed: {}", tenant.value(), signal.dirName(),
                        r.getKey(), r.getValue());
            }
        }
        unsettled.removeIf(ref -> ref.tenant().equals(tenant) && ref.signal() == signal
                && !view.replacements().containsKey(ref.name()));
        Set<BlockName> heldBack = new HashSet<>(view.replacements().keySet());
        for (BlockName name : names) {
            // A block whose list cannot be read may hold the records of any block its range holds: merging
            // those would give their records a second block that answers them.
            if (view.unresolved().stream().anyMatch(u -> !u.equals(name) && u.startUnixMilli() <= name.startUnixMilli()
                    && name.endUnixMilli() <= u.endUnixMilli())) {
                heldBack.add(name);
            }
        }
        List<List<BlockRef>> runs = runs(listed, replaced, heldBack, known);
        int backlog = runs.stream().mapToInt(List::size).sum();
        int blocks = listed.size() - replaced.size();
        for (int i = 0; i < runs.size(); i++) {
            if (!dryRun && deferral.defer(backlog)) {
                mergesDeferred.addAndGet(runs.size() - i);
                break;
            }
            List<BlockRef> run = runs.get(i);
            Optional<Merge> merge;
            if (dryRun) {
                merge = Optional.of(plan(run, known));
            } else {
                int left = backlog;
                try {
                    merge = merge(run, known, () -> deferral.defer(left));
                } catch (Yielded e) {
                    LOG.info("compaction: a merge of {} blocks from {} yielded to ingest before its write; a later pass"
                            + " merges them", run.size(), run.get(0));
                    mergesDeferred.addAndGet(runs.size() - i);
                    break;
                }
            }
            if (merge.isPresent()) {
                merges.add(merge.get());
                if (!dryRun) {
                    backlog -= run.size();
                    blocks -= run.size() - 1;
                }
            }
        }
        signals.add(new SignalState(tenant, signal, blocks, backlog));
        return finished;
    }

    /**
     * Moves the index from {@code replaced} to {@code replacing} and starts the grace of those not yet
     * waiting for it. Returns how many it found not yet waiting.
     */
    private int finish(TenantId tenant, Signal signal, BlockName replacing, List<BlockName> replaced) throws IOException {
        List<BlockRef> fresh = new ArrayList<>();
        for (BlockName name : replaced) {
            BlockRef ref = new BlockRef(tenant, signal, name);
            if (!due.containsKey(ref)) {
                fresh.add(ref);
            }
        }
        if (!fresh.isEmpty()) {
            LOG.info("compaction: {} replaces {} {} still there, deleted after the grace", replacing,
                    fresh.size(), Units.plural(fresh.size(), "block"));
            replaceInIndex(tenant, signal, fresh, new BlockRef(tenant, signal, replacing));
        }
        return fresh.size();
    }

    /**
     * Deletes the replaced blocks whose grace has passed, under their tenant's and signal's lock; returns
     * them. Each was left out of the index before its grace began.
     */
    public List<BlockRef> deleteDue() throws IOException {
        long now = System.nanoTime();
        List<BlockRef> ready = due.entrySet().stream().filter(e -> now - e.getValue() >= 0).map(Map.Entry::getKey)
                .sorted().toList();
        List<BlockRef> deleted = new ArrayList<>();
        for (BlockRef ref : ready) {
            ReentrantLock lock = StoreLocks.of(ref.tenant(), ref.signal());
            lock.lock();
            try {
                store.delete(ref);
            } finally {
                lock.unlock();
            }
            due.remove(ref);
            deleted.add(ref);
        }
        if (!deleted.isEmpty()) {
            LOG.info("compaction: deleted {} replaced {}", deleted.size(), Units.plural(deleted.size(), "block"));
        }
        return deleted;
    }

    private void replaceInIndex(TenantId tenant, Signal signal, List<BlockRef> replaced, BlockRef replacing)
            throws IOException {
        if (index != null) {
            Set<BlockName> names = new HashSet<>();
            replaced.forEach(ref -> names.add(ref.name()));
            index.replace(tenant, signal, names, replacing);
        }
        long at = System.nanoTime() + options.grace().toNanos();
        replaced.forEach(ref -> due.put(ref, at));
    }

    /**
     * Runs of adjacent small blocks that answer queries, each of at least two blocks and at most
     * {@code blockRows} rows, in name order.
     */
    private List<List<BlockRef>> runs(List<BlockRef> listed, Set<BlockName> replaced, Set<BlockName> heldBack,
                                      Map<BlockName, BlockMeta> known) throws IOException {
        List<List<BlockRef>> runs = new ArrayList<>();
        List<BlockRef> run = new ArrayList<>();
        List<Long> runRows = new ArrayList<>();
        long rows = 0;
        for (BlockRef ref : listed) {
            if (replaced.contains(ref.name())) {
                continue;
            }
            BlockMeta meta = small(ref, heldBack) ? meta(ref, known) : null;
            boolean small = meta != null && meta.rows() <= options.blockRows() / 2;
            if (!small || rows + meta.rows() > options.blockRows()) {
                addTrimmed(runs, run, runRows);
                run = new ArrayList<>();
                runRows = new ArrayList<>();
                rows = 0;
            }
            if (small) {
                run.add(ref);
                runRows.add(meta.rows());
                rows += meta.rows();
            }
        }
        addTrimmed(runs, run, runRows);
        return runs;
    }

    /**
     * Adds {@code run} (whose blocks hold {@code rows}) to {@code runs}, less its oldest blocks while
     * each is one this compactor wrote and holds more rows than the newer blocks after it together, if
     * two or more blocks are left. Such a block is so written again only once the rows merged into it
     * at least match its own: one that grows pass by pass is rewritten each time it has doubled, not at
     * every pass, and each row is written again a few times (about log2 of blockRows over the cut's
     * rows) instead of once per pass. Blocks as ingest cut them are merged whatever their sizes.
     */
    private void addTrimmed(List<List<BlockRef>> runs, List<BlockRef> run, List<Long> rows) {
        long newer = rows.stream().mapToLong(Long::longValue).sum();
        int from = 0;
        while (from < run.size()) {
            newer -= rows.get(from);
            if (!isOwnOutput(run.get(from).name().id()) || rows.get(from) <= newer) {
                break;
            }
            from++;
        }
        if (run.size() - from >= 2) {
            runs.add(run.subList(from, run.size()));
        }
    }

    /**
     * Whether {@code ref} may be compacted at all, before its size is known: not when {@code heldBack}
     * (blocks whose own inputs are still there, and those an unresolved block's range holds) names it.
     */
    private boolean small(BlockRef ref, Set<BlockName> heldBack) {
        // A block whose own inputs are still there is not merged again: deleting it before them would
        // bring them back.
        return !heldBack.contains(ref.name()) && (isOwnOutput(ref.name().id()) || options.eligible().test(ref));
    }

    /** Whether {@code id} names a block this compactor's writer wrote. */
    private boolean isOwnOutput(String id) {
        var m = OUTPUT_ID.matcher(id);
        return m.matches() && options.writerId().equals(m.group(1) == null ? "" : m.group(1));
    }

    private Merge plan(List<BlockRef> run, Map<BlockName, BlockMeta> known) throws IOException {
        long rows = 0;
        long bytes = 0;
        for (BlockRef ref : run) {
            BlockMeta meta = meta(ref, known);
            rows += meta.rows();
            bytes += meta.dataBytes();
        }
        return new Merge(run.get(0).tenant(), run.get(0).signal(), run.stream().map(BlockRef::name).toList(), null,
                rows, bytes, 0);
    }

    /**
     * Reads the run, writes and publishes its replacement, moves the index to it; empty when a block could not
     * be read. Asks {@code yielding} before each block it reads, after each batch, and before it writes.
     *
     * @throws Yielded when {@code yielding} says so: nothing is published, and what was read is dropped
     */
    private Optional<Merge> merge(List<BlockRef> run, Map<BlockName, BlockMeta> known, BooleanSupplier yielding)
            throws IOException, Yielded {
        TenantId tenant = run.get(0).tenant();
        Signal signal = run.get(0).signal();
        List<BlockName> inputs = run.stream().map(BlockRef::name).toList();
        String id = "k" + BlockName.newId() + (options.writerId().isEmpty() ? "" : "o" + options.writerId());
        Rewritten rewritten;
        try {
            rewritten = rewrite(SignalKind.of(signal), run, id, inputs, yielding);
        } catch (CorruptBlockException | CorruptValueException e) {
            LOG.warn("compaction: not merging {} blocks from {}: {}", run.size(), run.get(0), e.getMessage());
            return Optional.empty();
        }
        WrittenBlock written = rewritten.written();
        replaceInIndex(tenant, signal, run, written.ref());
        BlockMeta meta = written.meta();
        compactions.incrementAndGet();
        blocksRewritten.addAndGet(run.size());
        rowsRewritten.addAndGet(meta.rows());
        bytesRewritten.addAndGet(meta.dataBytes());
        LOG.info("compaction: {} blocks ({} rows) merged into {}", run.size(), meta.rows(), written.ref());
        return Optional.of(new Merge(tenant, signal, inputs, written.ref().name(), meta.rows(), rewritten.bytesRead(),
                meta.dataBytes()));
    }

    /** The block a run was merged into, and the bytes of data.arrow read for it. */
    private record Rewritten(WrittenBlock written, long bytesRead) {
    }

    /** Reads every record of {@code run}, block by block, and writes them as block {@code id} replacing {@code inputs}. */
    private <R> Rewritten rewrite(SignalKind<R> kind, List<BlockRef> run, String id, List<BlockName> inputs,
                                  BooleanSupplier yielding) throws IOException, CorruptValueException, Yielded {
        List<R> records = new ArrayList<>();
        long bytesRead = 0;
        for (BlockRef ref : run) {
            bytesRead += read(ref, yielding, root -> {
                RecordColumns<R> columns = kind.columns(root);
                for (int row = 0; row < root.getRowCount(); row++) {
                    records.add(columns.read(row));
                }
            });
        }
        yieldIf(yielding);
        return new Rewritten(writer.write(kind, run.get(0).tenant(), records, id, inputs), bytesRead);
    }

    /** One batch's records, taken from its root. */
    private interface BatchSink {
        void take(VectorSchemaRoot root) throws CorruptValueException;
    }

    /**
     * A merge gave way to ingest: the caller's {@link Deferral} said to leave the merges still to do, asked
     * inside the merge. Nothing was published.
     */
    private static final class Yielded extends Exception {
        Yielded() {
            super(null, null, false, false);
        }
    }

    private static void yieldIf(BooleanSupplier yielding) throws Yielded {
        if (yielding.getAsBoolean()) {
            throw new Yielded();
        }
    }

    /** Hands every batch of {@code ref} to {@code sink}, asking {@code yielding} before each; returns the bytes read. */
    private long read(BlockRef ref, BooleanSupplier yielding, BatchSink sink)
            throws IOException, CorruptValueException, Yielded {
        try (BlockReader reader = BlockReader.open(store, ref, allocator)) {
            for (int b = 0; b < reader.batchCount(); b++) {
                yieldIf(yielding);
                try (VectorSchemaRoot root = reader.readAll(b)) {
                    sink.take(root);
                }
            }
            return reader.bytesRead();
        }
    }

    /** The meta.json copies the index holds, by block; empty without a readable index. */
    private Map<BlockName, BlockMeta> knownMetas(TenantId tenant, Signal signal) {
        Map<BlockName, BlockMeta> known = new LinkedHashMap<>();
        if (index == null) {
            return known;
        }
        try {
            Optional<IndexObject> read = store.readIndex(tenant, signal, null);
            if (read.isPresent()) {
                for (BlockIndex.Entry e : BlockIndex.decode(read.get().bytes(), tenant, signal).entries()) {
                    if (e.meta().length > 0 && !metas.containsKey(new BlockRef(tenant, signal, e.name()))) {
                        try {
                            known.put(e.name(), BlockMetaJson.read(e.meta()));
                        } catch (CorruptMetaException bad) {
                            // The block's own meta.json is read instead.
                        }
                    }
                }
            }
        } catch (IOException e) {
            LOG.debug("compaction: the index of {}/{} gives no meta.json ({}); the blocks' own are read", tenant.value(),
                    signal.dirName(), e.getMessage());
        }
        return known;
    }

    /** {@link #meta}, null also when it cannot be read for now ({@link LiveBlocks} then tries itself, and says why). */
    private BlockMeta metaOrNull(BlockRef ref, Map<BlockName, BlockMeta> known) {
        try {
            return meta(ref, known);
        } catch (IOException e) {
            return null;
        }
    }

    /** The block's meta, from the index's copy or its own meta.json; null when neither can be read. */
    private BlockMeta meta(BlockRef ref, Map<BlockName, BlockMeta> known) throws IOException {
        BlockMeta meta = metas.get(ref);
        if (meta == null) {
            meta = known.get(ref.name());
        }
        if (meta == null) {
            try (InputStream in = Channels.newInputStream(store.open(ref, BlockLayout.META))) {
                byte[] bytes = in.readNBytes((int) BlockLayout.MAX_META_BYTES + 1);
                meta = bytes.length > BlockLayout.MAX_META_BYTES ? null : BlockMetaJson.read(bytes);
            } catch (CorruptMetaException | NoSuchFileException e) {
                // Never merged: a block whose meta cannot be read is left as it is.
                return null;
            }
        }
        if (meta != null) {
            metas.put(ref, meta);
        }
        return meta;
    }

    @Override
    public void close() {
        allocator.close();
    }
}
