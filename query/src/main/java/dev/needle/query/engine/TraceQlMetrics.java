package dev.needle.query.engine;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.MetricsAggregator;
import dev.needle.query.traceql.Query;
import dev.needle.query.traceql.TraceQlPruning;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A TraceQL metrics query: every span in the range that matches a condition each counted span's trace
 * certainly holds ({@link TraceQlPruning#required}) is found, pruned by the sidecars as any search is, and
 * given to the aggregator. Exact: nothing is sampled.
 *
 * <p>When each span is judged and measured alone ({@link MetricsAggregator#needsWholeTraces} false), the spans
 * are handed to the aggregator one by one as the blocks are read ({@link RecordVisit}), each once, and none is
 * held: the query holds its series, series × steps ({@link MetricsAggregator#heldBytes}), and the identity of
 * each span counted ({@link SpanIdentities}). Otherwise every span found is held, grouped by
 * trace and each trace looked up whole. Both count in the query's budget, so that a query past it stops with
 * its memory limit as any query does.
 */
final class TraceQlMetrics {

    private final TraceSearch traceSearch;
    private final RecordVisit visit;

    TraceQlMetrics(TraceSearch traceSearch, RecordVisit visit) {
        this.traceSearch = traceSearch;
        this.visit = visit;
    }

    MetricsResult series(TenantId tenant, Query.Metrics query, MetricsAggregator aggregator, TimeRange range,
                         Mechanisms mechanisms, QueryBudget budget) throws IOException {
        Expr candidates = TraceQlSearch.candidates(TraceQlPruning.required(query));
        Counted counted = new Counted(aggregator, budget);
        if (!MetricsAggregator.needsWholeTraces(query) && !TraceSearch.namesTrace(candidates)) {
            // Spans judged alone: a block's COUNTS can stand for its spans when the query looks only at what they hold.
            RecordVisit.Counts counts = aggregator.countable(BlockCounts.WIDTH_NANOS)
                    ? new RecordVisit.Counts(aggregator::countable, counted::add) : null;
            VisitResult found = visit.spans(tenant, candidates, range, mechanisms, counts, s -> counted.add(List.of(s)),
                    budget);
            return new MetricsResult(aggregator.series(), found.problems(), List.of(found.plan()));
        }
        Map<Bytes, TraceResult> looked = new HashMap<>();
        SearchResult<SpanRecord> found = traceSearch.spans(tenant, candidates, range, Integer.MAX_VALUE, mechanisms,
                looked, budget);
        Map<Bytes, List<SpanRecord>> byTrace = new LinkedHashMap<>();
        for (SpanRecord s : found.records()) {
            byTrace.computeIfAbsent(s.traceId(), id -> new ArrayList<>()).add(s);
        }
        Set<String> problems = new LinkedHashSet<>(found.problems());
        List<Explain> plans = new ArrayList<>(List.of(found.plan()));
        if (MetricsAggregator.needsWholeTraces(query)) {
            byTrace = traceSearch.whole(tenant, byTrace, mechanisms, looked, budget, problems, plans);
        }
        byTrace.values().forEach(counted::add);
        return new MetricsResult(aggregator.series(), List.copyOf(problems), plans);
    }

    /** The aggregator, fed from the reading threads one at a time, the growth of its series reserved in the budget. */
    private static final class Counted {
        private final MetricsAggregator aggregator;
        private final QueryBudget budget;
        private long reserved;

        Counted(MetricsAggregator aggregator, QueryBudget budget) {
            this.aggregator = aggregator;
            this.budget = budget;
        }

        synchronized void add(List<SpanRecord> trace) {
            aggregator.add(trace);
            reserve();
        }

        synchronized void add(BlockCounts counts) {
            aggregator.add(counts);
            reserve();
        }

        private void reserve() {
            long held = aggregator.heldBytes();
            if (held > reserved) {
                budget.reserve(held - reserved);
                reserved = held;
            }
        }
    }
}
