package dev.needle.query.engine;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import java.io.IOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * Every record of a tenant's signal in a time range for a metrics query: each block whose COUNTS file the
 * query can use is given whole, as counts; every other block is read, pruned by the query's sidecars as a
 * search is, and its matching records handed over one by one and not kept; then the head's records in the
 * range, all of them. The consumer judges every record it is given: pruning only spares reads. The query
 * holds its aggregation, never the records.
 */
final class CountedScan {

    private final BlockStore store;
    private final LookupPlanner planner;
    private final BlockScan scan;
    private final QueryPools pools;

    CountedScan(BlockStore store, LookupPlanner planner, BlockScan scan, QueryPools pools) {
        this.store = store;
        this.planner = planner;
        this.scan = scan;
        this.pools = pools;
    }

    /**
     * Hands every block of {@code plan} overlapping {@code range} to {@code counted} when its COUNTS file
     * {@code usable} accepts, else every record {@code target} finds in it to {@code record}; then the head's
     * records in {@code range}. Both consumers are called under one lock, never at once.
     */
    <R> QueryEngine.CountedResult run(TenantId tenant, Signal signal, List<HeadSource.Part<R>> headParts,
                                       Function<RecordFilter<R>, SearchTarget<R>> target, ToLongFunction<R> time,
                                       TimeRange range, Predicate<BlockCounts> usable, Consumer<BlockCounts> counted,
                                       Consumer<R> record, Mechanisms mechanisms, QueryBudget budget) throws IOException {
        List<String> problems = new ArrayList<>();
        LookupPlanner.Plan<R> plan = planner.plan(tenant, signal, mechanisms, headParts, problems);
        List<BlockRef> blocks = new ArrayList<>(plan.known().blocks());
        blocks.addAll(plan.named());
        blocks.removeIf(b -> !range.overlaps(b.name().startUnixNano(), b.name().endUnixNano()));
        Object lock = new Object();
        List<Counts> files = pools.runAll(blocks, ref -> countsFile(ref, usable), budget);
        List<BlockRef> toRead = new ArrayList<>();
        List<BlockDecision> decisions = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            Counts c = files.get(i);
            if (c == null) {
                toRead.add(blocks.get(i));
            } else {
                counted.accept(c.counts);
                // Its records are judged as its groups, so they count as scanned: Tempo's inspectedSpans.
                long records = Arrays.stream(c.counts.rows().count()).sum();
                decisions.add(new BlockDecision(blocks.get(i).name().toString(), BlockDecision.Step.COUNTS, true,
                        records + " records in " + c.counts.rows().size() + " rows of COUNTS", null, 0, 0, records, 0,
                        c.bytes, c.bytes, 1));
            }
        }
        SearchTarget<R> handing = target.apply(new RecordFilter<>(null, r -> {
            synchronized (lock) {
                record.accept(r);
            }
            return false;
        }));
        for (BlockScan.Outcome<R> outcome : pools.runAll(toRead, ref -> scan.run(ref, handing, range, mechanisms,
                null, budget, null, null), budget)) {
            if (outcome.problem() != null) {
                problems.add(outcome.problem());
            }
            decisions.add(outcome.decision());
        }
        long headMatched = 0;
        for (R r : plan.headRecords()) {
            if (range.contains(time.applyAsLong(r))) {
                record.accept(r);
                headMatched++;
            }
        }
        return new QueryEngine.CountedResult(new Explain(signal.dirName(), mechanisms, plan.source(), decisions,
                plan.headRecords().size(), headMatched), problems);
    }

    /** A block's decoded COUNTS and the bytes read for it. */
    private record Counts(BlockCounts counts, long bytes) {
    }

    /** A block's COUNTS when {@code usable} accepts it, or null when the block must be read instead. */
    private Counts countsFile(BlockRef ref, Predicate<BlockCounts> usable) {
        try (SeekableByteChannel channel = store.open(ref, BlockCounts.FILE)) {
            if (channel.size() > BlockCounts.HEADER_BYTES + (long) BlockCounts.MAX_BODY_BYTES) {
                return null;
            }
            byte[] bytes = Channels.newInputStream(channel).readAllBytes();
            BlockCounts counts = BlockCounts.decode(bytes, ref + "/" + BlockCounts.FILE);
            return usable.test(counts) ? new Counts(counts, bytes.length) : null;
        } catch (IOException | RuntimeException e) {
            // Derived data, like a sidecar: whatever is wrong with it, the block itself still answers.
            return null;
        }
    }
}
