package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.BitSlicedFilters;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;

/**
 * Looks up a trace by id: every span of it (and its log records on request) in the blocks TRACE_IDX
 * cannot rule out, and in the head. Where no time range comes first, one probe of the index's filters
 * decides every block the index holds, and only the blocks it leaves are visited.
 */
final class TraceLookup {

    private final HeadSource head;
    private final LookupPlanner planner;
    private final BlockScan scan;

    TraceLookup(HeadSource head, LookupPlanner planner, BlockScan scan) {
        this.head = head;
        this.planner = planner;
        this.scan = scan;
    }

    /** Every span of a trace, and its log records when {@code withLogs}, within {@code budget}. */
    TraceResult trace(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms, boolean withLogs,
                      QueryBudget budget) throws IOException {
        checkId(traceId);
        List<String> problems = new ArrayList<>();
        Lookup<SpanRecord> spans = lookup(tenant, Signal.SPANS, TraceTarget.spans(traceId, range), range, mechanisms,
                head.traceSpanParts(tenant, traceId), s -> range.contains(s.startTimeUnixNano()),
                SpanRecord::startTimeUnixNano, problems, budget);
        Lookup<LogRecord> logs = withLogs ? logs(tenant, traceId, range, mechanisms, problems, budget) : null;
        return new TraceResult(spans.records(), logs == null ? List.of() : logs.records(), problems, spans.plan(),
                logs == null ? null : logs.plan());
    }

    /**
     * Every span of each of {@code traceIds} over all time, by start time, within {@code budget}: one
     * lookup of them all ({@link TracesTarget}), which reads each block and batch that holds any of them once.
     */
    TraceResult traces(TenantId tenant, Collection<Bytes> traceIds, Mechanisms mechanisms, QueryBudget budget)
            throws IOException {
        Set<Bytes> ids = Set.copyOf(traceIds);
        List<String> problems = new ArrayList<>();
        Lookup<SpanRecord> spans = lookup(tenant, Signal.SPANS, new TracesTarget(ids), TimeRange.ALL, mechanisms,
                HeadSource.filter(head.spanParts(tenant), s -> ids.contains(s.traceId())), s -> true,
                SpanRecord::startTimeUnixNano, problems, budget);
        return new TraceResult(spans.records(), List.of(), problems, spans.plan(), null);
    }

    /** The log records of one trace in {@code range}, oldest first: the logs half of {@link #trace}. */
    SearchResult<LogRecord> traceLogs(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms,
                                      QueryBudget budget) throws IOException {
        checkId(traceId);
        List<String> problems = new ArrayList<>();
        Lookup<LogRecord> logs = logs(tenant, traceId, range, mechanisms, problems, budget);
        return new SearchResult<>(logs.records(), problems, logs.plan());
    }

    private Lookup<LogRecord> logs(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms,
                                   List<String> problems, QueryBudget budget) throws IOException {
        return lookup(tenant, Signal.LOGS, TraceTarget.logs(traceId, range), range, mechanisms,
                head.traceLogParts(tenant, traceId), r -> range.contains(r.eventTimeUnixNano()),
                LogRecord::eventTimeUnixNano, problems, budget);
    }

    private static void checkId(Bytes traceId) {
        if (traceId.length() != 16) {
            throw new IllegalArgumentException("a trace id has 16 bytes, got " + traceId.length());
        }
    }

    /** The records one lookup found and the plan that found them. */
    private record Lookup<R>(List<R> records, Explain plan) {
    }

    private <R> Lookup<R> lookup(TenantId tenant, Signal signal, Target<R> target, TimeRange range,
                                 Mechanisms mechanisms, List<HeadSource.Part<R>> head, Predicate<R> headMatch,
                                 ToLongFunction<R> time, List<String> problems, QueryBudget budget) throws IOException {
        LookupPlanner.Plan<R> plan = planner.plan(tenant, signal, mechanisms, head, problems);
        List<R> headRecords = plan.headRecords();
        Found<R> found = target.found();
        long headMatched = 0;
        for (R r : headRecords) {
            if (headMatch.test(r)) {
                found.add(r);
                headMatched++;
            }
        }
        BlockCatalog.Known known = plan.known();
        IndexedFilters.Lookup filters = known.filters().lookup(target.sidecarFile());
        // One probe of the index's filters decides every block it holds where no time range comes first
        // (a trace id over all time): only the blocks it cannot rule out, and those it does not hold, are visited.
        BitSlicedFilters.Candidates candidates = plan.named().isEmpty() && BlockScan.usesSidecar(target, mechanisms)
                && (range.isAll() || !mechanisms.time()) ? target.mayHold(filters) : null;
        int n = known.blocks().size();
        int[] positions = candidates == null ? null : LookupPlanner.survivors(known.positions(), candidates);
        LookupPlanner.Visit visit = positions != null ? LookupPlanner.visit(plan, positions, null)
                : LookupPlanner.visit(plan, IntStream.range(0, n).map(i -> n - 1 - i).toArray(), Comparator.reverseOrder());
        List<BlockRef> blocks = visit.blocks();
        int[] ids = visit.ids();
        List<BlockScan.Outcome<R>> outcomes = planner.decideAndRun(blocks, ids, target, range, mechanisms, null, plan,
                filters, budget);
        List<BlockDecision> visited = new ArrayList<>(outcomes.size());
        List<Integer> goneAt = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            BlockScan.Outcome<R> outcome = outcomes.get(i);
            visited.add(outcome.decision());
            if (outcome.problem() != null && planner.gone(blocks.get(i))) {
                goneAt.add(i);
                continue;
            }
            found.addAll(outcome.records());
            if (outcome.problem() != null) {
                problems.add(outcome.problem());
            }
        }
        List<BlockDecision> decisions = positions == null ? visited
                : ruledOutToo(visited, positions, known, target, range, mechanisms, filters);
        if (!goneAt.isEmpty()) {
            // A block deleted since it was listed (by retention) cannot change the answer, and is left out of the plan.
            decisions = new ArrayList<>(decisions);
            for (int g = goneAt.size() - 1; g >= 0; g--) {
                int i = goneAt.get(g);
                decisions.remove(positions == null ? i : known.blocks().size() - 1 - positions[i]);
            }
        }
        List<R> records = new ArrayList<>(found.records());
        records.sort(Comparator.comparingLong(time));
        return new Lookup<>(records, new Explain(signal.dirName(), mechanisms, plan.source(), decisions,
                headRecords.size(), headMatched));
    }

    /**
     * Every block's decision, newest first: {@code visited}, those of the blocks at {@code positions},
     * and, made only when asked for, those of the blocks the probe ruled out, each as
     * {@link BlockScan#decideUnread} decides it.
     */
    private <R> List<BlockDecision> ruledOutToo(List<BlockDecision> visited, int[] positions, BlockCatalog.Known known,
                                                Target<R> target, TimeRange range, Mechanisms mechanisms,
                                                IndexedFilters.Lookup filters) {
        int n = known.blocks().size();
        IntFunction<BlockDecision> ruledOut = i -> {
            int p = n - 1 - i;
            return scan.decideUnread(known.blocks().get(p), target, range, mechanisms,
                    filters.block(known.positions().filterIds()[p])).decision();
        };
        int[] at = new int[positions.length];
        for (int i = 0; i < positions.length; i++) {
            at[i] = n - 1 - positions[i];
        }
        return new BlockDecisions(n, at, visited.toArray(BlockDecision[]::new), ruledOut, target.sidecarStep());
    }
}
