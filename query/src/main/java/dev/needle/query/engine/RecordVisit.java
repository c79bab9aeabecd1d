package dev.needle.query.engine;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Hands every record that matches a lookup to a visitor as it is read, holding none of them: what a
 * metric query counts. The head's matching records first, then every candidate block in the pool, each
 * batch's matches decoded as the batch is read ({@link MatchedRows}); nothing stops early, as a count needs
 * every record.
 *
 * <p>A visit is two steps, so that a caller may answer some blocks another way: {@link #candidates} plans
 * (the tenant's blocks from the {@link LookupPlanner}, each decided without a read where its name or its
 * filter in the index rules it out) and gives the blocks that must be read; {@link #read} reads the blocks it
 * is given. {@link #spans} and {@link #logs} do both over every candidate.
 *
 * <p>The visitor is called from the engine's reading threads, several at once. Each record is handed once as
 * its {@link RecordKind} tells records apart: a span stored twice (a client's retry) is handed the first
 * time only, for which the visit remembers each span's trace and span id ({@link SpanIdentities}, some 33 to
 * 50 bytes of the query's budget a span); log records have no identity and cost nothing.
 */
final class RecordVisit {

    private final BlockStore store;
    private final LookupPlanner planner;
    private final BlockScan scan;
    private final QueryPools pools;
    private final HeadSource head;

    RecordVisit(BlockStore store, HeadSource head, LookupPlanner planner, BlockScan scan, QueryPools pools) {
        this.store = store;
        this.head = head;
        this.planner = planner;
        this.scan = scan;
        this.pools = pools;
    }

    /**
     * Where a metrics query may take a block's COUNTS in place of its records: the blocks whose file {@code usable}
     * accepts are given to {@code counts}.
     */
    record Counts(Predicate<BlockCounts> usable, Consumer<BlockCounts> counts) {
    }

    /**
     * Hands every span matching {@code expr} that starts in {@code range} to {@code visitor}, each span once; with
     * {@code counts} (else null) and the mechanism on, the blocks whose COUNTS can say are counted instead, and a
     * span such a block holds twice is counted twice, as it is stored.
     */
    VisitResult spans(TenantId tenant, Expr expr, TimeRange range, Mechanisms mechanisms, Counts counts,
                      Consumer<SpanRecord> visitor, QueryBudget budget) throws IOException {
        Candidates<SpanRecord> c = candidates(tenant, Signal.SPANS, SearchTarget.spans(expr, range), range,
                mechanisms, head.spanParts(tenant), RecordSearch.headSpans(expr, range));
        SpanIdentities seen = new SpanIdentities(budget);
        return visitAll(c, counts, s -> {
            if (seen.add(s)) {
                visitor.accept(s);
            }
        }, budget);
    }

    /**
     * Hands every log record matching {@code expr} that passes {@code filter} in {@code range} to {@code visitor};
     * with {@code counts} (else null) and the mechanism on, the blocks whose COUNTS can say are counted instead.
     */
    VisitResult logs(TenantId tenant, Expr expr, RecordFilter<LogRecord> filter, TimeRange range, Mechanisms mechanisms,
                     Counts counts, Consumer<LogRecord> visitor, QueryBudget budget) throws IOException {
        Candidates<LogRecord> c = candidates(tenant, Signal.LOGS, SearchTarget.logs(expr, range, filter), range,
                mechanisms, head.logParts(tenant), RecordSearch.headLogs(expr, filter, range));
        return visitAll(c, counts, visitor, budget);
    }

    private <R> VisitResult visitAll(Candidates<R> c, Counts counts, Consumer<R> visitor, QueryBudget budget) {
        if (counts != null && c.mechanisms().counts()) {
            return counted(c, counts.usable(), counts.counts(), visitor, budget);
        }
        c.headMatches().forEach(visitor);
        return read(c, c.blocks(), visitor, budget);
    }

    /**
     * What a visit reads: the plan, the head's records that match, every block of the plan in the order they are
     * visited (newest end first), the decision on each block ruled out without a read, and the blocks that must
     * be read with their ids in the index's filters.
     */
    record Candidates<R>(Signal signal, Target<R> target, TimeRange range, Mechanisms mechanisms,
                         LookupPlanner.Plan<R> plan, IndexedFilters.Lookup filters, List<R> headMatches,
                         List<BlockRef> all, Map<BlockRef, BlockDecision> decided, List<BlockRef> blocks,
                         Map<BlockRef, Integer> ids, List<String> problems) {
    }

    /**
     * The blocks of the tenant's {@code signal} that may hold a record {@code target} matches in {@code range}
     * (the rest decided by the time range in their names or their filters in the store's index), and the
     * head's records that {@code headMatch} keeps.
     */
    <R> Candidates<R> candidates(TenantId tenant, Signal signal, Target<R> target, TimeRange range,
                                 Mechanisms mechanisms, List<HeadSource.Part<R>> headParts, Predicate<R> headMatch)
            throws IOException {
        List<String> problems = new ArrayList<>();
        LookupPlanner.Plan<R> plan = planner.plan(tenant, signal, mechanisms, headParts, problems);
        List<R> headMatches = plan.headRecords().stream().filter(headMatch).toList();
        BlockCatalog.Known known = plan.known();
        LookupPlanner.Visit visit = LookupPlanner.visit(plan, known.positions().newestEndFirst(),
                Comparator.comparingLong((BlockRef b) -> b.name().endUnixNano()).reversed());
        IndexedFilters.Lookup filters = known.filters().lookup(target.sidecarFile());
        Map<BlockRef, BlockDecision> decided = new HashMap<>();
        List<BlockRef> toRead = new ArrayList<>();
        Map<BlockRef, Integer> ids = new HashMap<>();
        for (int i = 0; i < visit.blocks().size(); i++) {
            BlockRef block = visit.blocks().get(i);
            BlockScan.Outcome<R> unread = scan.decideUnread(block, target, range, mechanisms,
                    filters.block(visit.ids()[i]));
            if (unread != null) {
                decided.put(block, unread.decision());
            } else {
                toRead.add(block);
                ids.put(block, visit.ids()[i]);
            }
        }
        return new Candidates<>(signal, target, range, mechanisms, plan, filters, headMatches,
                List.copyOf(visit.blocks()), decided, List.copyOf(toRead), ids, List.copyOf(problems));
    }

    /**
     * Reads {@code blocks} (some or all of {@code candidates}' blocks to read) in the pool, handing each
     * matching record to {@code visitor} as its batch is read: every matching row, so that a caller that must
     * count each span once tells them apart itself ({@link SpanIdentities}). The plan holds
     * the decisions on the blocks ruled out unread and on those read, in the order of the candidates; a block
     * that could not be read makes the answer partial, unless it is gone from the store (deleted by retention
     * since). A block that fails part way has handed the records of the batches read before.
     *
     * @throws QueryAbortedException when the query passes its memory or its deadline
     */
    <R> VisitResult read(Candidates<R> candidates, List<BlockRef> blocks, Consumer<R> visitor, QueryBudget budget) {
        return read(candidates, blocks, Map.of(), visitor, budget);
    }

    /**
     * Hands {@code counts} each candidate block whose COUNTS file {@code usable} accepts, in place of its records,
     * then every matching record of the head and of the other blocks to {@code visitor}, as {@link #read} does;
     * {@code counts} is called on this thread before any record is handed over. A block so counted is decided by
     * {@link BlockDecision.Step#COUNTS}. A missing or damaged file makes its block read: derived data fails open.
     */
    <R> VisitResult counted(Candidates<R> candidates, Predicate<BlockCounts> usable, Consumer<BlockCounts> counts,
                            Consumer<R> visitor, QueryBudget budget) {
        List<BlockRef> blocks = candidates.blocks();
        List<CountsFile> files = pools.runAll(blocks, b -> CountsFile.read(store, b, usable), budget);
        List<BlockRef> toRead = new ArrayList<>();
        Map<BlockRef, BlockDecision> counted = new HashMap<>();
        for (int i = 0; i < blocks.size(); i++) {
            CountsFile f = files.get(i);
            if (f == null) {
                toRead.add(blocks.get(i));
            } else {
                counts.accept(f.counts());
                counted.put(blocks.get(i), f.decision(blocks.get(i)));
            }
        }
        candidates.headMatches().forEach(visitor);
        return read(candidates, toRead, counted, visitor, budget);
    }

    private <R> VisitResult read(Candidates<R> candidates, List<BlockRef> blocks, Map<BlockRef, BlockDecision> counted,
                                 Consumer<R> visitor, QueryBudget budget) {
        List<BlockScan.Outcome<R>> outcomes = pools.runAll(blocks, b -> scan.visit(b, candidates.target(),
                candidates.range(), candidates.mechanisms(), visitor, budget,
                candidates.plan().known().indexed().get(b.name()),
                candidates.filters().block(candidates.ids().getOrDefault(b, -1))), budget);
        Set<String> problems = new LinkedHashSet<>(candidates.problems());
        Map<BlockRef, BlockDecision> decisions = new HashMap<>(candidates.decided());
        decisions.putAll(counted);
        for (int i = 0; i < outcomes.size(); i++) {
            BlockScan.Outcome<R> o = outcomes.get(i);
            if (o.problem() != null && planner.gone(blocks.get(i))) {
                continue;
            }
            decisions.put(blocks.get(i), o.decision());
            if (o.problem() != null) {
                problems.add(o.problem());
            }
        }
        List<BlockDecision> ordered = candidates.all().stream().map(decisions::get).filter(Objects::nonNull).toList();
        return new VisitResult(List.copyOf(problems), new Explain(candidates.signal().dirName(),
                candidates.mechanisms(), candidates.plan().source(), ordered,
                candidates.plan().headRecords().size(), candidates.headMatches().size()));
    }
}
