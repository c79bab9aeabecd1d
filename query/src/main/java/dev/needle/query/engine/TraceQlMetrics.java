package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
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
 * given to the aggregator by trace — each trace looked up whole when the query needs other spans of it
 * ({@link MetricsAggregator#needsWholeTraces}). Exact: nothing is sampled; a query whose spans pass the
 * query's memory or time limits stops as any query does.
 */
final class TraceQlMetrics {

    private final TraceSearch traceSearch;

    TraceQlMetrics(TraceSearch traceSearch) {
        this.traceSearch = traceSearch;
    }

    MetricsResult series(TenantId tenant, Query.Metrics query, MetricsAggregator aggregator, TimeRange range,
                         Mechanisms mechanisms, QueryBudget budget) throws IOException {
        Map<Bytes, TraceResult> looked = new HashMap<>();
        SearchResult<SpanRecord> found = traceSearch.spans(tenant,
                TraceQlSearch.candidates(TraceQlPruning.required(query)), range, Integer.MAX_VALUE, mechanisms, looked,
                budget);
        Map<Bytes, List<SpanRecord>> byTrace = new LinkedHashMap<>();
        for (SpanRecord s : found.records()) {
            byTrace.computeIfAbsent(s.traceId(), id -> new ArrayList<>()).add(s);
        }
        Set<String> problems = new LinkedHashSet<>(found.problems());
        List<Explain> plans = new ArrayList<>(List.of(found.plan()));
        if (MetricsAggregator.needsWholeTraces(query)) {
            byTrace = traceSearch.whole(tenant, byTrace, mechanisms, looked, budget, problems, plans);
        }
        byTrace.values().forEach(aggregator::add);
        return new MetricsResult(aggregator.series(), List.copyOf(problems), plans);
    }
}
