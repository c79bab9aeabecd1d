package dev.needle.query.logql.metric;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryBudget;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.LokiSearch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A metric query's entries from the engine: each range aggregation's entries handed over as the blocks are
 * read ({@link LokiSearch#visit}), none held, all of them within one budget for the whole query, in which
 * the evaluation's state is held too ({@link #hold}) — so that {@code sum(rate(A)) / sum(rate(B))} may hold
 * what one query may, not twice that. Close it when the evaluation is done. Not thread-safe: one
 * evaluation asks for its range aggregations' entries one after another.
 */
public final class MetricSource implements MetricEval.Source, AutoCloseable {

    private final LokiSearch search;
    private final QueryBudget budget;
    private final TenantId tenant;
    private final Mechanisms mechanisms;
    private final Set<String> problems = new LinkedHashSet<>();
    private final List<Explain> plans = new ArrayList<>();

    /**
     * Entries of {@code tenant}'s logs found by {@code search} with {@code mechanisms}, within {@code budget},
     * which it closes.
     */
    public MetricSource(LokiSearch search, QueryBudget budget, TenantId tenant, Mechanisms mechanisms) {
        this.search = search;
        this.budget = budget;
        this.tenant = tenant;
        this.mechanisms = mechanisms;
    }

    @Override
    public void entries(LogQl.LogQuery query, long fromNanos, long toNanos, Consumer<LokiEntry> visitor)
            throws IOException {
        LokiSearch.Visited visited = search.visit(tenant, query, new TimeRange(fromNanos, toNanos), mechanisms, budget,
                visitor);
        problems.addAll(visited.problems());
        plans.addAll(visited.plans());
    }

    @Override
    public void entries(LogQl.LogQuery query, long fromNanos, long toNanos, Predicate<BlockCounts> usable,
                        Consumer<BlockCounts> counts, Consumer<LokiEntry> visitor) throws IOException {
        LokiSearch.Visited visited = search.visit(tenant, query, new TimeRange(fromNanos, toNanos), mechanisms, budget,
                usable, counts, visitor);
        problems.addAll(visited.problems());
        plans.addAll(visited.plans());
    }

    @Override
    public void hold(long bytes) {
        budget.reserve(bytes);
    }

    /** Blocks that could not be read by any range aggregation's lookup: the answer may miss entries. */
    public List<String> problems() {
        return List.copyOf(problems);
    }

    /** Every range aggregation's lookup's plan. */
    public List<Explain> plans() {
        return List.copyOf(plans);
    }

    /** Gives back everything the query held. */
    @Override
    public void close() {
        budget.close();
    }
}
