package dev.needle.query.engine;

import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.BitSlicedFilters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What every lookup, search and tags scan reads and how: the tenant's blocks from the
 * {@link BlockCatalog} and the head's records none of them holds ({@link #plan}), the order the
 * blocks are visited in, and each block decided on the query's thread where that needs no read and
 * read in the pool otherwise ({@link #decideAndRun}).
 */
final class LookupPlanner {

    private final BlockStore store;
    private final BlockCatalog catalog;
    private final SidecarCache cache;
    private final BlockScan scan;
    private final QueryPools pools;

    LookupPlanner(BlockStore store, BlockCatalog catalog, SidecarCache cache, BlockScan scan, QueryPools pools) {
        this.store = store;
        this.catalog = catalog;
        this.cache = cache;
        this.scan = scan;
        this.pools = pools;
    }

    /**
     * The blocks a lookup reads, what the index holds of them (meta.json and filters), the head's
     * records that none of them holds, and where the blocks were learnt (for EXPLAIN).
     */
    record Plan<R>(BlockCatalog.Known known, List<BlockRef> named, List<R> headRecords, String source) {
    }

    /**
     * The blocks from the catalog, and the head's records that are not in one of them. The head's
     * snapshot was taken before the blocks were learnt (see {@link HeadSource}): a part whose block is
     * known is read from the block, and every other part from the head, each record once; a block the
     * head names as published but the catalog does not know yet (its index was read before the block
     * was in it) is read too. A part that names a problem (an ingest node that did not answer) adds it
     * to {@code problems}, once, as does a block the catalog left out on doubt ({@code LiveBlocks}).
     */
    <R> Plan<R> plan(TenantId tenant, Signal signal, Mechanisms mechanisms, List<HeadSource.Part<R>> head,
                     List<String> problems) throws IOException {
        BlockCatalog.Known known = catalog.blocks(tenant, signal, mechanisms.index());
        cache.reserve(catalog.bytes());
        // Blocks left out on doubt (what a compaction replaced cannot be known for certain) make the answer partial.
        known.problems().stream().filter(p -> !problems.contains(p)).forEach(problems::add);
        // A replaced block's records are read from the block that replaces it, so neither the head's
        // part of it nor the block itself is read again: known.ids() holds both.
        Set<String> namedIds = new HashSet<>();
        List<BlockRef> named = new ArrayList<>();
        for (HeadSource.Part<R> part : head) {
            if (part.problem() != null && !problems.contains(part.problem())) {
                problems.add(part.problem());
            }
            Optional<BlockName> published = part.published() == null ? Optional.empty() : BlockName.parse(part.published());
            if (published.isPresent() && !known.ids().contains(published.get().id())
                    && namedIds.add(published.get().id())) {
                named.add(new BlockRef(tenant, signal, published.get()));
            }
        }
        List<R> records = new ArrayList<>();
        for (HeadSource.Part<R> part : head) {
            if (part.blockId() == null || !known.ids().contains(part.blockId()) && !namedIds.contains(part.blockId())) {
                records.addAll(part.records());
            }
        }
        String source = known.source() + (named.isEmpty() ? "" : "; " + named.size()
                + " more the ingest head named as just published");
        return new Plan<>(known, named, records, source);
    }

    /** Blocks in the order a lookup visits them, with each one's id in the index's filters (-1 when they do not hold it). */
    record Visit(List<BlockRef> blocks, int[] ids) {
    }

    /**
     * The catalog's blocks at {@code positions}, in that order, when the ingest head named no block
     * the catalog lacks; else every block of the plan, those too, sorted by {@code order}.
     */
    static Visit visit(Plan<?> plan, int[] positions, Comparator<BlockRef> order) {
        BlockCatalog.Known known = plan.known();
        if (plan.named().isEmpty()) {
            List<BlockRef> blocks = new ArrayList<>(positions.length);
            int[] ids = new int[positions.length];
            for (int i = 0; i < positions.length; i++) {
                blocks.add(known.blocks().get(positions[i]));
                ids[i] = known.positions().filterIds()[positions[i]];
            }
            return new Visit(blocks, ids);
        }
        List<BlockRef> blocks = new ArrayList<>(known.blocks());
        blocks.addAll(plan.named());
        blocks.sort(order);
        return new Visit(blocks, blocks.stream().mapToInt(b -> known.filters().id(b.name())).toArray());
    }

    /**
     * The positions, newest first, of the blocks one probe left: those whose filter may hold the key
     * ({@code candidates}, failed-open ones among them) and those the filters do not hold.
     */
    static int[] survivors(BlockCatalog.Positions positions, BitSlicedFilters.Candidates candidates) {
        int[] unheld = positions.unheld();
        int[] found = Arrays.copyOf(unheld, unheld.length + Math.min(candidates.count(), positions.byId().length));
        int n = unheld.length;
        for (int id = candidates.next(0); id >= 0 && id < positions.byId().length; id = candidates.next(id + 1)) {
            int p = positions.byId()[id];
            if (p >= 0) {
                found[n++] = p;
            }
        }
        int[] sorted = Arrays.copyOf(found, n);
        Arrays.sort(sorted);
        for (int i = 0; i < n / 2; i++) {
            int t = sorted[i];
            sorted[i] = sorted[n - 1 - i];
            sorted[n - 1 - i] = t;
        }
        return sorted;
    }

    /**
     * Each block's outcome, in order: decided on this thread where that needs no read (the time range
     * in the block's name, its filter in the index: a probe of the bit-sliced filters of every block
     * at once), read in the pool otherwise. {@code ids} are the blocks' ids in the index's filters.
     */
    <R> List<BlockScan.Outcome<R>> decideAndRun(List<BlockRef> blocks, int[] ids, Target<R> target,
                                                TimeRange range, Mechanisms mechanisms, FirstRecords<R> first,
                                                Plan<R> plan, IndexedFilters.Lookup filters, QueryBudget budget) {
        List<BlockScan.Outcome<R>> outcomes = new ArrayList<>(blocks.size());
        List<Integer> toRead = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            BlockScan.Outcome<R> decided = scan.decideUnread(blocks.get(i), target, range, mechanisms,
                    filters.block(ids[i]));
            outcomes.add(decided);
            if (decided == null) {
                toRead.add(i);
            }
        }
        List<BlockScan.Outcome<R>> read = pools.runAll(toRead, i -> scan.run(blocks.get(i), target, range, mechanisms,
                first, budget, plan.known().indexed().get(blocks.get(i).name()), filters.block(ids[i])), budget);
        for (int i = 0, next = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == null) {
                outcomes.set(i, read.get(next++));
            }
        }
        return outcomes;
    }

    /**
     * Whether a block that could not be read is no longer in the store: deleted (by retention) since
     * the engine learnt of it, so that it cannot change the answer.
     */
    boolean gone(BlockRef block) {
        try {
            return !store.list(block.tenant(), block.signal()).contains(block);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
