package dev.needle.query.engine;

import dev.needle.blocks.cli.Units;
import dev.needle.blocks.index.BlockIndex;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.meta.BlockMetaJson;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.read.BlockFacts;
import dev.needle.blocks.read.DataFooter;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.IndexObject;
import dev.needle.blocks.store.LiveBlocks;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

/**
 * Where the engine learns a tenant's blocks of one signal, and their meta.json and filters: from the
 * store's index ({@link BlockIndex}), decoded and kept, read again at most once per poll interval
 * (conditionally: an unchanged index costs no body), together with the blocks a listing found that the
 * index lacks, listed again at most once per listing interval. A missing, damaged or unreadable index
 * gives a listing instead, as before the index (the blocks' sidecars are then read one by one); so
 * does an engine asked to leave the index alone. Thread-safe.
 */
final class BlockCatalog {

    /**
     * A block as the index records it: its meta.json and data.arrow's footer, decoded when the block is
     * first opened (most blocks are ruled out by their filter, held in {@link IndexedFilters}, and never are).
     */
    static final class Indexed {
        private final byte[] metaJson;
        private final byte[] dataFooter;
        private BlockMeta meta;
        private boolean metaDecoded;
        private BlockFacts facts;
        private boolean factsDecoded;

        Indexed(byte[] metaJson, byte[] dataFooter) {
            this.metaJson = metaJson;
            this.dataFooter = dataFooter;
        }

        /**
         * What opening block {@code ref} would learn, from its meta.json and data.arrow's footer: a
         * block opened with these reads no file but the batches it needs. Null when the index holds
         * either not, or they cannot be read or do not agree ({@link DataFooter#facts}).
         */
        synchronized BlockFacts facts(BlockRef ref) {
            if (!factsDecoded) {
                factsDecoded = true;
                BlockMeta decoded = meta();
                facts = decoded == null || dataFooter.length == 0 ? null
                        : DataFooter.facts(ref, decoded, dataFooter).orElse(null);
            }
            return facts;
        }

        /** The block's meta.json; null when the index holds none or it cannot be read (the block's own is read then). */
        synchronized BlockMeta meta() {
            if (!metaDecoded) {
                metaDecoded = true;
                if (metaJson.length > 0) {
                    try {
                        meta = BlockMetaJson.read(metaJson);
                    } catch (IOException | RuntimeException ignored) {
                        // The block's own meta.json is read when it is opened, and says what is wrong with it.
                    }
                }
            }
            return meta;
        }

        /** What the index holds of the block, for {@link LiveBlocks}: its meta.json and data.arrow's footer. */
        LiveBlocks.Held held() {
            return new LiveBlocks.Held(meta(), dataFooter);
        }

        /** Heap held, roughly: meta.json's and the footer's bytes. */
        long sizeInBytes() {
            return metaJson.length + dataFooter.length;
        }
    }

    /**
     * What a query reads: the blocks, oldest first, what the index holds of them (by name, and their
     * filters, with where each block sits in them; empty when the blocks come from a listing), the
     * visible blocks left out because one of the blocks replaces them or may (see {@link LiveBlocks}),
     * the ids of both (the blocks whose records the ingest head need not give), the problems that make
     * every answer over these blocks partial (blocks left out on doubt, named), and a sentence on where
     * they come from, for EXPLAIN.
     */
    record Known(List<BlockRef> blocks, Map<BlockName, Indexed> indexed, IndexedFilters filters,
                 Positions positions, Set<BlockName> replaced, Set<String> ids, List<String> problems,
                 String source) {
    }

    /** The ids of {@code blocks} and of {@code replaced}. */
    private static Set<String> ids(List<BlockRef> blocks, Set<BlockName> replaced) {
        Set<String> ids = new HashSet<>(2 * (blocks.size() + replaced.size()));
        blocks.forEach(b -> ids.add(b.name().id()));
        replaced.forEach(name -> ids.add(name.id()));
        return Collections.unmodifiableSet(ids);
    }

    /**
     * Where the blocks of a {@link Known} sit, worked out once each time they change so that a query
     * does no per-block lookup: each block's id in the filters (-1 when they do not hold it), the
     * position of each id's block (-1 for an id of no block here), the positions of the blocks the
     * filters do not hold, and every position by end time, newest first (a search's order).
     */
    record Positions(int[] filterIds, int[] byId, int[] unheld, int[] newestEndFirst) {

        static Positions of(List<BlockRef> blocks, IndexedFilters filters) {
            int[] filterIds = new int[blocks.size()];
            int[] byId = new int[filters.idLimit()];
            Arrays.fill(byId, -1);
            int unheld = 0;
            for (int p = 0; p < filterIds.length; p++) {
                int id = filters.id(blocks.get(p).name());
                filterIds[p] = id;
                if (id < 0) {
                    unheld++;
                } else {
                    byId[id] = p;
                }
            }
            int[] unheldAt = new int[unheld];
            for (int p = 0, u = 0; p < filterIds.length; p++) {
                if (filterIds[p] < 0) {
                    unheldAt[u++] = p;
                }
            }
            // Sorted stably by end time, newest first, as Comparator#reversed sorts a search's blocks.
            int[] byEnd = IntStream.range(0, blocks.size()).boxed()
                    .sorted(Comparator.comparingLong((Integer p) -> blocks.get(p).name().endUnixNano()).reversed())
                    .mapToInt(Integer::intValue).toArray();
            return new Positions(filterIds, byId, unheldAt, byEnd);
        }
    }

    private record Key(TenantId tenant, Signal signal) {
    }

    /** One tenant's signal: the index as last read, and the blocks the last listing found outside it. */
    private static final class State {
        boolean read;
        long readAtNanos;
        String token;
        Map<BlockName, Indexed> entries;
        IndexedFilters filters = IndexedFilters.EMPTY;
        String problem;
        boolean listed;
        long listedAtNanos;
        List<BlockRef> lastListing = List.of();
        /**
         * The blocks of the index, then those of the last listing outside it, less those replaced;
         * null until built again.
         */
        List<BlockRef> blocks;
        int unindexed;
        /** The blocks among {@link #entries} and {@link #lastListing} left out: another of them replaces them, or may. */
        Set<BlockName> replaced = Set.of();
        /** Why some of them were left out on doubt; built with them. */
        List<String> problems = List.of();
        /** Where {@link #blocks} sit; built with them. */
        Positions positions;
        /** The ids of {@link #blocks} and {@link #replaced}; built with them. */
        Set<String> ids;
        /** What {@link #entries} and {@link #filters} hold, in bytes, as last counted. */
        long bytes;
    }

    private final BlockStore store;
    private final long pollNanos;
    private final long listNanos;
    private final Map<Key, State> states = new ConcurrentHashMap<>();
    private final LiveBlocks live;
    /** The sum of every state's {@code bytes}. */
    private final AtomicLong held = new AtomicLong();

    BlockCatalog(BlockStore store, long pollNanos, long listNanos) {
        this.store = store;
        this.live = new LiveBlocks(store);
        this.pollNanos = pollNanos;
        this.listNanos = listNanos;
    }

    /** The blocks of {@code tenant}'s {@code signal}; from a listing alone when {@code useIndex} is false. */
    Known blocks(TenantId tenant, Signal signal, boolean useIndex) throws IOException {
        if (!useIndex) {
            return listing(tenant, signal, store.list(tenant, signal), "a listing: the index is turned off");
        }
        State state = states.computeIfAbsent(new Key(tenant, signal), k -> new State());
        synchronized (state) {
            long now = System.nanoTime();
            long read = -1;
            boolean listDue = !state.listed || now - state.listedAtNanos >= listNanos;
            Future<List<BlockRef>> listing = null;
            if (!state.read || now - state.readAtNanos >= pollNanos) {
                if (listDue) {
                    // Listed while the index is read: on a bucket, a cold lookup's two requests at once, not one after the other.
                    listing = store.readPool().submit(() -> store.list(tenant, signal));
                }
                read = refresh(state, tenant, signal, now);
                if (read > 0 || state.entries == null) {
                    count(state);
                }
            }
            if (state.entries == null) {
                return listing(tenant, signal, listing != null ? listed(listing) : store.list(tenant, signal),
                        "a listing: " + state.problem);
            }
            if (listDue) {
                state.lastListing = listing != null ? listed(listing) : store.list(tenant, signal);
                state.listed = true;
                state.listedAtNanos = now;
                state.blocks = null;
            }
            if (state.blocks == null || read > 0) {
                // Built again only when the index or the listing changed: most queries find both as they were.
                List<BlockRef> blocks = new ArrayList<>(state.entries.size());
                state.entries.keySet().forEach(name -> blocks.add(new BlockRef(tenant, signal, name)));
                for (BlockRef ref : state.lastListing) {
                    if (!state.entries.containsKey(ref.name())) {
                        blocks.add(ref);
                    }
                }
                state.unindexed = blocks.size() - state.entries.size();
                Map<BlockName, Indexed> entries = state.entries;
                LiveBlocks.View view = live.view(tenant, signal, blocks.stream().map(BlockRef::name).toList(),
                        name -> entries.containsKey(name) ? entries.get(name).held() : LiveBlocks.Held.NOTHING);
                Set<BlockName> replaced = view.leftOut();
                if (!replaced.isEmpty()) {
                    blocks.removeIf(b -> replaced.contains(b.name()));
                }
                state.replaced = replaced;
                state.problems = view.problems();
                blocks.sort(null);
                state.blocks = Collections.unmodifiableList(blocks);
                state.positions = Positions.of(state.blocks, state.filters);
                state.ids = ids(state.blocks, replaced);
            }
            int unindexed = state.unindexed;
            Set<BlockName> replaced = state.replaced;
            return new Known(state.blocks, state.entries, state.filters, state.positions, replaced, state.ids,
                    state.problems, "the index (" + state.entries.size() + " " + Units.plural(state.entries.size(), "block")
                    + (unindexed == 0 ? "" : ", and " + unindexed + " a listing found outside it")
                    + (replaced.isEmpty() ? "" : ", " + replaced.size() + " of them replaced by a compaction") + "; "
                    + (read < 0 ? "held in memory" : read == 0 ? "read again, unchanged" : "read now, " + read + " bytes")
                    + ")");
        }
    }

    /** The decoded filters held, in bytes, over every tenant and signal, as counted when each index was last read. */
    long bytes() {
        return held.get();
    }

    /** Counts what {@code state} holds now, after its index was read (or found unchanged, or lost). */
    private void count(State state) {
        long bytes = 0;
        if (state.entries != null) {
            for (Indexed i : state.entries.values()) {
                bytes += i.sizeInBytes();
            }
            bytes += state.filters.sizeInBytes();
        }
        held.addAndGet(bytes - state.bytes);
        state.bytes = bytes;
    }

    private Known listing(TenantId tenant, Signal signal, List<BlockRef> listed, String source) throws IOException {
        LiveBlocks.View view = live.view(tenant, signal, listed.stream().map(BlockRef::name).toList(),
                name -> LiveBlocks.Held.NOTHING);
        Set<BlockName> replaced = view.leftOut();
        List<BlockRef> blocks = new ArrayList<>(listed);
        blocks.removeIf(b -> replaced.contains(b.name()));
        blocks.sort(null);
        return new Known(blocks, Map.of(), IndexedFilters.EMPTY, Positions.of(blocks, IndexedFilters.EMPTY), replaced,
                ids(blocks, replaced), view.problems(), source
                + (replaced.isEmpty() ? "" : " (" + replaced.size() + " " + Units.plural(replaced.size(), "block")
                + " replaced by a compaction left out)"));
    }

    /** What a listing started before found, or the error it met. */
    private static List<BlockRef> listed(Future<List<BlockRef>> listing) throws IOException {
        try {
            return listing.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw io;
            }
            throw new IOException("the blocks cannot be listed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while listing the blocks", e);
        }
    }

    /**
     * Reads the index again unless unchanged; whatever goes wrong leaves no entries and says why.
     * Returns the bytes read (0 when unchanged).
     */
    private long refresh(State state, TenantId tenant, Signal signal, long now) {
        state.read = true;
        state.readAtNanos = now;
        Optional<IndexObject> read;
        try {
            read = store.readIndex(tenant, signal, state.entries == null ? null : state.token);
        } catch (IOException | RuntimeException e) {
            forget(state, "the index cannot be read (" + e.getMessage() + ")");
            return 0;
        }
        if (read.isEmpty()) {
            forget(state, "there is no index");
            return 0;
        }
        if (read.get().unchanged()) {
            return 0;
        }
        try {
            BlockIndex index = BlockIndex.decode(read.get().bytes(), tenant, signal);
            // In the index's order, which is the blocks' time order: a query's sort of them is then one pass.
            Map<BlockName, Indexed> entries = new LinkedHashMap<>();
            for (BlockIndex.Entry e : index.entries()) {
                // A published block never changes: what was decoded of it before still holds.
                Indexed known = state.entries == null ? null : state.entries.get(e.name());
                entries.put(e.name(), known != null ? known : decode(e));
            }
            state.entries = Collections.unmodifiableMap(entries);
            state.filters = state.filters.update(index.entries());
            state.token = read.get().token();
            state.problem = null;
        } catch (BlockIndex.CorruptIndexException e) {
            forget(state, "the index is damaged (" + e.getMessage() + ")");
        }
        return read.get().bytes().length;
    }

    private static void forget(State state, String problem) {
        state.entries = null;
        state.filters = IndexedFilters.EMPTY;
        state.blocks = null;
        state.token = null;
        state.problem = problem;
    }

    private static Indexed decode(BlockIndex.Entry e) {
        return new Indexed(e.meta(), e.dataFooter());
    }
}
