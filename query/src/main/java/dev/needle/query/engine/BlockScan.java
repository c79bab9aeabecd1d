package dev.needle.query.engine;

import dev.needle.blocks.codec.CorruptValueException;
import dev.needle.blocks.meta.BatchMeta;
import dev.needle.blocks.meta.BlockMeta;
import dev.needle.blocks.read.BlockFacts;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.read.CorruptBlockException;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.reads.ReadTally;
import dev.needle.query.engine.BlockDecision.Step;
import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.FailOpenReason;
import dev.needle.sidecar.KeyFilter;
import dev.needle.sidecar.Sidecar;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Runs the plan on one block: time range from the name, then the sidecar, then each batch's zone
 * maps and, for a search ATTR_IDX could not rule out, BATCH_ATTR_IDX, then the rows. Each step
 * either skips with certainty or passes the block on; a sidecar that cannot be trusted passes it on
 * and is counted as failed open.
 */
final class BlockScan {

    /** The outcome for one block: the decision, the matching records, and an error if it could not be read. */
    record Outcome<R>(BlockDecision decision, List<R> records, String problem) {
    }

    /** How a BATCH_ATTR_IDX that cannot be trusted is named among failed-open sidecars: {@code batch_attr_idx:crc}. */
    private static final String BATCH_FAILED_OPEN = "batch_attr_idx:";

    private final BlockStore store;
    private final BufferAllocator allocator;
    private final SidecarCache cache;

    BlockScan(BlockStore store, BufferAllocator allocator, SidecarCache cache) {
        this.store = store;
        this.allocator = allocator;
        this.cache = cache;
    }

    /**
     * The outcome for block {@code ref} when it is decided without a read: by the time range in its
     * name, or by {@code held}, its filter as the store's index holds it (null when the index does not
     * hold the block). Null when the block must be read ({@link #run}).
     */
    <R> Outcome<R> decideUnread(BlockRef ref, Target<R> target, TimeRange range, Mechanisms mechanisms,
                                IndexedFilters.Held held) {
        if (mechanisms.time() && !range.isAll()
                && !ref.name().mayOverlap(range.fromUnixNano(), range.toUnixNano())) {
            return pruned(held != null ? held.name() : ref.name().toString(), Step.TIME, "the block's events lie in "
                    + ref.name().startUnixNano() + ".." + ref.name().endUnixNano() + ", outside the query's range",
                    null, 0, new ReadTally());
        }
        if (held != null && usesSidecar(target, mechanisms) && held.filter().isVerified()) {
            String ruledOut = target.ruledOutBy(held.filter());
            if (ruledOut != null) {
                return pruned(held.name(), target.sidecarStep(), ruledOut + " (its filter in the index)", null, 0,
                        new ReadTally());
            }
        }
        return null;
    }

    /** Whether {@code mechanisms} let {@code target} consult its sidecar (TRACE_IDX or ATTR_IDX). */
    static boolean usesSidecar(Target<?> target, Mechanisms mechanisms) {
        return target.sidecarStep() == Step.TRACE_IDX ? mechanisms.traceIdx() : mechanisms.attrIdx();
    }

    /**
     * The records of block {@code ref} that {@code target} matches. A lookup ({@code first} null) returns
     * all of them; a search offers them to {@code first}, the search's first records over every block, and
     * returns none: only rows that may be among those are decoded. With {@code indexed} and {@code held}
     * (what the store's index holds of the block, its meta.json and its filter; else null) those come from
     * there instead of the block. Records decoded are reserved in {@code budget}, which is checked between
     * batches.
     *
     * @throws QueryAbortedException when the query passes its memory or its deadline
     */
    <R> Outcome<R> run(BlockRef ref, Target<R> target, TimeRange range, Mechanisms mechanisms, FirstRecords<R> first,
                       QueryBudget budget, BlockCatalog.Indexed indexed, IndexedFilters.Held held) {
        Outcome<R> unread = decideUnread(ref, target, range, mechanisms, held);
        if (unread != null) {
            return unread;
        }
        return run(ref, target, range, mechanisms, new Keep<>(first, first == null ? Integer.MAX_VALUE : -1, null,
                budget), indexed, held, true, new ReadTally());
    }

    /**
     * Hands every record of block {@code ref} that {@code target} matches to {@code visitor} as its batch is
     * read, keeping none: the outcome holds no records. Otherwise as {@link #run}: decided unread where it
     * can be, then read with {@code indexed} and {@code held}, {@code budget} checked between batches.
     *
     * @throws QueryAbortedException when the query passes its memory or its deadline
     */
    <R> Outcome<R> visit(BlockRef ref, Target<R> target, TimeRange range, Mechanisms mechanisms, Consumer<R> visitor,
                         QueryBudget budget, BlockCatalog.Indexed indexed, IndexedFilters.Held held) {
        Outcome<R> unread = decideUnread(ref, target, range, mechanisms, held);
        if (unread != null) {
            return unread;
        }
        return run(ref, target, range, mechanisms, new Keep<>(null, Integer.MAX_VALUE, new Handing<>(visitor), budget),
                indexed, held, true, new ReadTally());
    }

    /** A visit's visitor, which knows whether it was handed a record: a block read again must not hand it twice. */
    private static final class Handing<R> implements Consumer<R> {
        private final Consumer<R> to;
        private volatile boolean any;

        Handing(Consumer<R> to) {
            this.to = to;
        }

        @Override
        public void accept(R record) {
            any = true;
            to.accept(record);
        }
    }

    /**
     * What a block's scan keeps: a lookup's every match ({@code first} and {@code visitor} null), for a search
     * the rows that may be among {@code first}, at most {@code positions} of them (-1:
     * {@link FirstRecords#rowsPerBlock}), or for a visit nothing, every match handed to {@code visitor}.
     */
    private record Keep<R>(FirstRecords<R> first, int positions, Handing<R> visitor, QueryBudget budget) {
    }

    /**
     * {@link #run(BlockRef, Target, TimeRange, Mechanisms, int, BlockCatalog.Indexed, IndexedFilters.Held)} on
     * a block that must be read, opening it with what the index holds of data.arrow when {@code indexFacts}
     * allows and nothing better is cached; a read that fails that way is made again from the block's own
     * files, counting every request in {@code tally}.
     */
    private <R> Outcome<R> run(BlockRef ref, Target<R> target, TimeRange range, Mechanisms mechanisms, Keep<R> keep,
                               BlockCatalog.Indexed indexed, IndexedFilters.Held held, boolean indexFacts,
                               ReadTally tally) {
        FirstRecords<R> first = keep.first();
        String name = ref.name().toString();
        String failedOpen = null;
        long sidecarBytes = 0;
        if (usesSidecar(target, mechanisms)) {
            KeyFilter sidecar = held == null ? null : held.filter();
            if (sidecar == null) {
                boolean[] hit = new boolean[1];
                String file = target.sidecarFile();
                Sidecar read = cache.get(ref, file, () -> BlockReader.readSidecar(store, ref, file, tally), hit);
                sidecarBytes = hit[0] ? 0 : read.bytesRead();
                sidecar = read;
                String ruledOut = read.isVerified() ? target.ruledOutBy(read) : null;
                if (ruledOut != null) {
                    return pruned(name, target.sidecarStep(), ruledOut, null, sidecarBytes, tally);
                }
            }
            failedOpen = sidecar.failOpenReason().map(FailOpenReason::label).orElse(null);
            if (sidecar.isVerified()) {
                target = target.within(sidecar);
            }
        }
        // The block may hold a match: BATCH_ATTR_IDX may still rule out its batches, or all of them.
        BatchAttrIdxCheck batchCheck = mechanisms.attrIdx() ? target.batchAttrIdxCheck() : null;
        Sidecar batchIdx = null;
        if (batchCheck != null) {
            boolean[] hit = new boolean[1];
            Sidecar sidecar = cache.get(ref, BloomSidecar.BATCH_ATTR_IDX,
                    () -> BlockReader.readSidecar(store, ref, BloomSidecar.BATCH_ATTR_IDX, tally), hit);
            sidecarBytes += hit[0] ? 0 : sidecar.bytesRead();
            if (sidecar.isVerified()) {
                batchIdx = sidecar;
            } else if (failedOpen == null) {
                failedOpen = BATCH_FAILED_OPEN + sidecar.failOpenReason().orElseThrow().label();
            }
        }

        BlockFacts known = cache.facts(ref);
        BlockFacts fromIndex = known == null && indexFacts && indexed != null ? indexed.facts(ref) : null;
        BlockMeta meta = known != null ? known.meta() : indexed != null ? indexed.meta() : null;
        if (batchIdx != null && meta != null) {
            // Its batches known without data.arrow: a block whose every batch is ruled out is not opened at all.
            String[] batchRuledOut = ruledOut(batchCheck, batchIdx, meta.batches().size());
            if (all(batchRuledOut)) {
                return everyBatchRuledOut(name, batchRuledOut, failedOpen, sidecarBytes, tally);
            }
        }
        try (BlockReader reader = fromIndex != null ? BlockReader.openKnown(store, ref, allocator, fromIndex, tally)
                : known == null && indexed != null && indexed.meta() != null
                ? BlockReader.openWithMeta(store, ref, allocator, indexed.meta(), tally)
                : BlockReader.open(store, ref, allocator, known, tally)) {
            if (known == null) {
                reader.facts().ifPresent(facts -> cache.keep(ref, facts));
            }
            long decideBytes = sidecarBytes + reader.bytesRead();
            String[] batchRuledOut = batchIdx != null ? ruledOut(batchCheck, batchIdx, reader.batchCount())
                    : new String[reader.batchCount()];
            if (all(batchRuledOut)) {
                return everyBatchRuledOut(name, batchRuledOut, failedOpen, decideBytes, tally);
            }
            int positions = keep.positions() >= 0 ? keep.positions() : first.rowsPerBlock();
            try (MatchedRows<R> matches = keep.visitor() != null
                    ? new MatchedRows<>(target, keep.budget(), reader, keep.visitor())
                    : new MatchedRows<>(target, keep.budget(), reader, first, positions)) {
                int batchesRead = 0;
                int batchesSkipped = 0;
                long rows = 0;
                String lastSkip = null;
                List<Integer> order = batchOrder(reader, first);
                String[] skip = new String[reader.batchCount()];
                List<Integer> toRead = new ArrayList<>();
                for (int b : order) {
                    skip[b] = batchSkip(reader, b, target, range, mechanisms, batchRuledOut);
                    if (skip[b] == null) {
                        toRead.add(b);
                    }
                }
                boolean whole = target.readsWholeBatches();
                ReadAhead ahead = new ReadAhead(reader, toRead, whole ? null : matches.columns(), first != null);
                for (int b : order) {
                    keep.budget().check();
                    BatchMeta batch = reader.meta().map(m -> m.batches().get(b)).orElse(null);
                    if (batch != null && first != null && matches.complete(first.order().bestRank(batch))) {
                        batchesSkipped++;
                        lastSkip = "batch " + b + ": the limit of " + first.limit() + " was reached with records"
                                + " before this batch's";
                        continue;
                    }
                    if (skip[b] != null) {
                        batchesSkipped++;
                        lastSkip = "batch " + b + ": " + skip[b];
                        continue;
                    }
                    batchesRead++;
                    ahead.before(b);
                    VectorSchemaRoot columns = whole ? reader.readAll(b) : reader.read(b, matches.columns());
                    rows += columns.getRowCount();
                    matches.add(b, columns, whole);
                }
                List<R> records = matches.decode();
                if (matches.mayHaveMissed() && positions != Integer.MAX_VALUE) {
                    // The limit counted rows, and some of them are one record (a span sent twice, spans of one
                    // trace): the block's first rows may not hold its first records. Every match is offered instead.
                    return run(ref, target, range, mechanisms,
                            new Keep<>(first, Integer.MAX_VALUE, null, keep.budget()), indexed, held, indexFacts, tally);
                }
                long bytes = sidecarBytes + reader.bytesRead();
                if (batchesRead == 0 && reader.batchCount() > 0) {
                    return new Outcome<>(new BlockDecision(name, Step.ZONE_MAPS, true,
                            "every batch is ruled out by its zone maps" + (batchIdx != null ? " or BATCH_ATTR_IDX" : "")
                            + " (" + lastSkip + ")", failedOpen, 0, batchesSkipped,
                            0, 0, decideBytes, bytes, tally.requests()), List.of(), null);
                }
                String reason = matches.count() == 0
                        ? (failedOpen != null ? "no match; the sidecar failed open (" + failedOpen + ")" : "no match")
                        : matches.count() + " matching rows" + (matches.decoded() < matches.count()
                                ? ", the first " + matches.decoded() + " decoded" : "");
                if (reader.meta().isEmpty()) {
                    reason += "; no zone maps or checksums: " + reader.metaProblem();
                }
                return new Outcome<>(new BlockDecision(name, Step.ROWS, false, reason, failedOpen, batchesRead,
                        batchesSkipped, rows, first == null && keep.visitor() == null ? records.size() : matches.count(),
                        decideBytes, bytes, tally.requests()), records, null);
            }
        } catch (IOException e) {
            if (fromIndex != null && (keep.visitor() == null || !keep.visitor().any)) {
                // The index's copy of the footer may be what is wrong: the block's own files decide (unless a
                // visit was handed records of it already, which a second read would hand again).
                cache.forgetFacts(ref);
                return run(ref, target, range, mechanisms, keep, indexed, held, false, tally);
            }
            String problem = e instanceof CorruptBlockException ? e.getMessage()
                    : "block " + ref + ": " + (e instanceof CorruptValueException ? e.getMessage() : e.toString());
            return failed(name, failedOpen, sidecarBytes, problem, tally);
        }
    }


    /**
     * Why batch {@code b} of {@code reader}'s block is left unread whatever the rows read before it:
     * its zone maps (time range, then the target's) or BATCH_ATTR_IDX ({@code batchRuledOut}); null
     * when it must be read.
     */
    private static String batchSkip(BlockReader reader, int b, Target<?> target, TimeRange range,
                                    Mechanisms mechanisms, String[] batchRuledOut) {
        BatchMeta batch = reader.meta().map(m -> m.batches().get(b)).orElse(null);
        if (mechanisms.zoneMaps() && batch != null) {
            String skip = !range.overlaps(batch.minTimeUnixNano(), batch.maxTimeUnixNano())
                    ? "its events lie outside the query's range" : target.ruledOutBy(batch);
            if (skip != null) {
                return skip;
            }
        }
        return batchRuledOut[b];
    }

    /** Why BATCH_ATTR_IDX rules out each of {@code batches} batches; null for a batch it cannot rule out. */
    private static String[] ruledOut(BatchAttrIdxCheck check, Sidecar batchIdx, int batches) {
        String[] why = new String[batches];
        for (int b = 0; b < batches; b++) {
            why[b] = check.ruledOut(batchIdx, b);
        }
        return why;
    }

    /** Whether there are batches and every one is ruled out. */
    private static boolean all(String[] ruledOut) {
        return ruledOut.length > 0 && Arrays.stream(ruledOut).allMatch(Objects::nonNull);
    }

    private static <R> Outcome<R> everyBatchRuledOut(String name, String[] why, String failedOpen, long decideBytes,
                                                     ReadTally tally) {
        int last = why.length - 1;
        return new Outcome<>(new BlockDecision(name, Step.BATCH_ATTR_IDX, true, "every batch is ruled out by "
                + "BATCH_ATTR_IDX (batch " + last + ": " + why[last] + ")",
                failedOpen, 0, why.length, 0, 0, decideBytes, decideBytes, tally.requests()), List.of(), null);
    }

    /**
     * The order to read batches in: as stored, or with a limit the batches that may hold the first
     * records first (by their zone maps' times), so that those are known before later batches are opened.
     */
    private static List<Integer> batchOrder(BlockReader reader, FirstRecords<?> first) {
        List<Integer> order = new ArrayList<>();
        for (int b = 0; b < reader.batchCount(); b++) {
            order.add(b);
        }
        if (first != null && reader.meta().isPresent()) {
            List<BatchMeta> batches = reader.meta().get().batches();
            order.sort(Comparator.comparingLong((Integer b) -> first.order().bestRank(batches.get(b))).reversed());
        }
        return order;
    }

    private static <R> Outcome<R> pruned(String name, Step step, String reason, String failedOpen, long bytes,
                                         ReadTally tally) {
        return new Outcome<>(new BlockDecision(name, step, true, reason, failedOpen, 0, 0, 0, 0, bytes, bytes,
                tally.requests()), List.of(), null);
    }

    private static <R> Outcome<R> failed(String name, String failedOpen, long bytes, String problem, ReadTally tally) {
        return new Outcome<>(new BlockDecision(name, Step.ERROR, false, problem, failedOpen, 0, 0, 0, 0, bytes, bytes,
                tally.requests()), List.of(), problem);
    }
}
