package dev.needle.query.engine;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;

/**
 * Searches for the first records that match, spans or log records, up to a limit, newest or oldest
 * first: the head's records, then the blocks in waves, best first, until the limit is met by records
 * that come before everything the next block can hold.
 */
final class RecordSearch {

    private final HeadSource head;
    private final LookupPlanner planner;
    private final BlockScan scan;
    private final QueryPools pools;

    RecordSearch(HeadSource head, LookupPlanner planner, BlockScan scan, QueryPools pools) {
        this.head = head;
        this.planner = planner;
        this.scan = scan;
        this.pools = pools;
    }

    /** The first {@code limit} spans matching {@code expr}, newest first, each distinct as {@code distinct} says. */
    SearchResult<SpanRecord> spans(TenantId tenant, Expr expr, TimeRange range, int limit,
                                   FirstRecords.Distinct<SpanRecord> distinct, Mechanisms mechanisms,
                                   QueryBudget budget) throws IOException {
        return search(tenant, Signal.SPANS, SearchTarget.spans(expr, range), range, limit, Order.NEWEST_FIRST,
                distinct, mechanisms, head.spanParts(tenant), headSpans(expr, range), SpanRecord::startTimeUnixNano,
                budget);
    }

    /** Which of the head's spans match {@code expr} in {@code range}: what a block's scan finds of its rows. */
    static Predicate<SpanRecord> headSpans(Expr expr, TimeRange range) {
        return s -> Values.matches(expr, Values.of(s)) && range.contains(s.startTimeUnixNano());
    }

    /** The first {@code limit} spans matching {@code expr}, newest first, each span once. */
    SearchResult<SpanRecord> spans(TenantId tenant, Expr expr, TimeRange range, int limit, Mechanisms mechanisms,
                                   QueryBudget budget) throws IOException {
        return spans(tenant, expr, range, limit, FirstRecords.Distinct.records(RecordKind.SPANS), mechanisms, budget);
    }

    /**
     * Log records matching {@code expr} that pass {@code filter} in {@code range}, the first {@code limit}
     * in {@code order}, in that order; the filter is judged as the blocks are read.
     */
    SearchResult<LogRecord> logs(TenantId tenant, Expr expr, RecordFilter<LogRecord> filter, TimeRange range, int limit,
                                 Order order, Mechanisms mechanisms, QueryBudget budget) throws IOException {
        return search(tenant, Signal.LOGS, SearchTarget.logs(expr, range, filter), range, limit, order,
                FirstRecords.Distinct.records(RecordKind.LOGS), mechanisms, head.logParts(tenant),
                headLogs(expr, filter, range), LogRecord::eventTimeUnixNano, budget);
    }

    /**
     * Which of the head's log records match {@code expr} in {@code range} and pass {@code filter}: the same tests
     * as the blocks' rows, the body's text, then the record.
     */
    static Predicate<LogRecord> headLogs(Expr expr, RecordFilter<LogRecord> filter, TimeRange range) {
        Predicate<LogRecord> passes = r -> (filter.bodyText() == null || !(r.body() instanceof AnyValue.Str body)
                || filter.bodyText().test(body.value())) && (filter.record() == null || filter.record().test(r));
        return r -> Values.matches(expr, Values.of(r)) && range.contains(r.eventTimeUnixNano()) && passes.test(r);
    }

    private <R> SearchResult<R> search(TenantId tenant, Signal signal, Target<R> target, TimeRange range, int limit,
                                       Order order, FirstRecords.Distinct<R> distinct, Mechanisms mechanisms,
                                       List<HeadSource.Part<R>> head, Predicate<R> headMatch, ToLongFunction<R> time,
                                       QueryBudget budget) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit (" + limit + ") must be at least 1");
        }
        List<String> problems = new ArrayList<>();
        LookupPlanner.Plan<R> plan = planner.plan(tenant, signal, mechanisms, head, problems);
        List<R> headRecords = plan.headRecords();
        FirstRecords<R> first = new FirstRecords<>(limit, order, target.kind(), distinct, time, budget);
        long headMatched = 0;
        for (R r : headRecords) {
            if (headMatch.test(r)) {
                first.offer(r);
                headMatched++;
            }
        }
        // The blocks that may hold the first records first (the newest by their end, or the oldest by
        // their start), a wave of blocks at a time: once the limit is met by records that come before
        // everything a block can hold, that block and all after it are left unread. The first
        // wave holds as many blocks to read as the engine has threads (and those decided without a
        // read besides), as a limit is often met there; each next one twice as many, up to as many as
        // the pool reads at once (on an object store more than the cores: each read mostly waits for
        // its GETs), so that a search the limit does not stop early takes few waves. Every block offers
        // what it finds to the search's first records, which keep the first limit of them.
        int wave = pools.firstWave();
        BlockCatalog.Known known = plan.known();
        Comparator<BlockRef> blockOrder = Comparator.comparingLong((BlockRef b) -> order.bestRank(b.name())).reversed();
        LookupPlanner.Visit visit = LookupPlanner.visit(plan, order == Order.NEWEST_FIRST
                ? known.positions().newestEndFirst()
                : IntStream.range(0, known.blocks().size()).boxed().sorted(Comparator.comparing(known.blocks()::get,
                        blockOrder)).mapToInt(Integer::intValue).toArray(), blockOrder);
        List<BlockRef> blocks = visit.blocks();
        int[] ids = visit.ids();
        List<BlockDecision> decisions = new ArrayList<>();
        Map<BlockRef, String> unreadable = new LinkedHashMap<>();
        IndexedFilters.Lookup filters = known.filters().lookup(target.sidecarFile());
        for (int next = 0; next < blocks.size(); ) {
            long floor = first.floor();
            if (order.bestRank(blocks.get(next).name()) <= floor) {
                for (BlockRef skipped : blocks.subList(next, blocks.size())) {
                    decisions.add(new BlockDecision(skipped.name().toString(), BlockDecision.Step.LIMIT, true,
                            "the limit of " + limit + " was reached with records " + (order == Order.NEWEST_FIRST
                                    ? "newer" : "older") + " than this block's", null, 0, 0, 0, 0, 0, 0, 0));
                }
                break;
            }
            int end = next;
            for (int toRead = 0; end < blocks.size() && toRead < wave
                    && order.bestRank(blocks.get(end).name()) >= floor; end++) {
                if (scan.decideUnread(blocks.get(end), target, range, mechanisms, filters.block(ids[end])) == null) {
                    toRead++;
                }
            }
            List<BlockRef> batch = blocks.subList(next, end);
            List<BlockScan.Outcome<R>> outcomes = planner.decideAndRun(batch,
                    Arrays.copyOfRange(ids, next, next + batch.size()), target, range, mechanisms, first, plan, filters,
                    budget);
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i).problem() != null && planner.gone(batch.get(i))) {
                    continue;
                }
                decisions.add(outcomes.get(i).decision());
                if (outcomes.get(i).problem() != null) {
                    unreadable.put(batch.get(i), outcomes.get(i).problem());
                }
            }
            next += batch.size();
            wave = Math.min(pools.readers(), 2 * wave);
        }
        // An unreadable block after the limit's first records could not have changed the answer.
        long floor = first.floor();
        unreadable.forEach((ref, problem) -> {
            if (order.bestRank(ref.name()) >= floor) {
                problems.add(problem);
            }
        });
        return new SearchResult<>(first.records(), problems,
                new Explain(signal.dirName(), mechanisms, plan.source(), decisions, headRecords.size(), headMatched));
    }
}
