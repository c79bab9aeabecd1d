package dev.needle.query.engine;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.index.TagsOnlyPairs;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * The attribute keys and values of a tenant's spans or log records in a time range: each block's
 * TAGS file, a scan of the block where that file cannot answer, then the head's unpublished records.
 */
final class TagsScan {

    private final BlockStore store;
    private final HeadSource head;
    private final LookupPlanner planner;
    private final BlockScan scan;
    private final QueryPools pools;

    TagsScan(BlockStore store, HeadSource head, LookupPlanner planner, BlockScan scan, QueryPools pools) {
        this.store = store;
        this.head = head;
        this.planner = planner;
        this.scan = scan;
        this.pools = pools;
    }

    /** The spans' keys and values, as {@link QueryEngine#spanTags} describes them. */
    TagsResult spans(TenantId tenant, TimeRange range, Predicate<String> complete, boolean tagsOnly, QueryBudget budget)
            throws IOException {
        return tags(tenant, Signal.SPANS, range, complete, tagsOnly, head.spanParts(tenant),
                filter -> SearchTarget.spans(new Expr.MatchAll(), TimeRange.ALL, filter), TagsOnlyPairs::allOf,
                SpanRecord::startTimeUnixNano, budget);
    }

    /** The log records' keys and values, as {@link QueryEngine#logTags} describes them. */
    TagsResult logs(TenantId tenant, TimeRange range, Predicate<String> complete, QueryBudget budget)
            throws IOException {
        return tags(tenant, Signal.LOGS, range, complete, false, head.logParts(tenant),
                filter -> SearchTarget.logs(new Expr.MatchAll(), TimeRange.ALL, filter), tags -> new IndexedPairs(tags)::log,
                LogRecord::eventTimeUnixNano, budget);
    }

    /** {@code pairs} gives what feeds a builder every TAGS pair of the records passed to it. */
    private <R> TagsResult tags(TenantId tenant, Signal signal, TimeRange range, Predicate<String> complete,
                                boolean tagsOnly, List<HeadSource.Part<R>> headParts,
                                Function<RecordFilter<R>, SearchTarget<R>> everything,
                                Function<BlockTags.Builder, Consumer<R>> pairs, ToLongFunction<R> time,
                                QueryBudget budget) throws IOException {
        List<String> problems = new ArrayList<>();
        LookupPlanner.Plan<R> plan = planner.plan(tenant, signal, Mechanisms.ALL, headParts, problems);
        List<BlockRef> blocks = new ArrayList<>(plan.known().blocks());
        blocks.addAll(plan.named());
        List<R> head = plan.headRecords();
        blocks.removeIf(b -> !range.overlaps(b.name().startUnixNano(), b.name().endUnixNano()));
        List<BlockTags> files = pools.runAll(blocks, ref -> tagsFile(ref, complete, tagsOnly), budget);
        List<BlockRef> toScan = new ArrayList<>();
        BlockTags.Builder tags = new BlockTags.Builder();
        for (int i = 0; i < blocks.size(); i++) {
            if (files.get(i) == null) {
                toScan.add(blocks.get(i));
            } else {
                tags.merge(files.get(i));
            }
        }
        Consumer<R> add = pairs.apply(tags);
        // A scanned block's records are added as they are decoded and none is kept, so that a block of any
        // size is scanned within the query's memory; the blocks are scanned in parallel into one builder.
        SearchTarget<R> adding = everything.apply(new RecordFilter<>(null, r -> {
            synchronized (tags) {
                add.accept(r);
            }
            return false;
        }));
        for (BlockScan.Outcome<R> outcome : pools.runAll(toScan, ref -> scan.run(ref, adding, TimeRange.ALL,
                Mechanisms.ALL, null, budget, null, null), budget)) {
            if (outcome.problem() != null) {
                problems.add(outcome.problem());
            }
        }
        head.stream().filter(r -> range.contains(time.applyAsLong(r))).forEach(add);
        return new TagsResult(tags.build(), blocks.size(), toScan.size(), problems);
    }

    /**
     * A block's TAGS, or null when the block must be scanned instead: no file, a damaged one, a key
     * cut short, or a version 1 file when {@code tagsOnly} asks for the keys it does not hold.
     */
    private BlockTags tagsFile(BlockRef ref, Predicate<String> complete, boolean tagsOnly) {
        try {
            byte[] bytes = DerivedFile.read(store, ref, BlockTags.FILE,
                    BlockTags.HEADER_BYTES + (long) BlockTags.MAX_BODY_BYTES);
            if (bytes == null) {
                return null;
            }
            BlockTags tags = BlockTags.decode(bytes, ref + "/" + BlockTags.FILE);
            if (tagsOnly && !tags.holdsTagsOnlyPairs()) {
                return null;
            }
            boolean cutShort = tags.keys().entrySet().stream().anyMatch(e -> e.getValue().truncated() && complete.test(e.getKey()));
            return cutShort ? null : tags;
        } catch (IOException | RuntimeException e) {
            // Derived data, like a sidecar: whatever is wrong with it, the block itself still answers.
            return null;
        }
    }
}
