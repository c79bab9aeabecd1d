package dev.needle.query.engine;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.index.TagsOnlyPairs;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.MetricsAggregator;
import dev.needle.query.traceql.Query;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Plans and runs lookups over a tenant's blocks and the ingest head: for each block, time range
 * from the name, then TRACE_IDX or ATTR_IDX, then batch zone maps, then rows; blocks in parallel.
 * The blocks and their filters come from the store's index where there is one ({@link BlockCatalog}),
 * else from a listing and each block's own sidecars.
 *
 * <p>The engine is what the server, the CLI and the benchmarks call; it gives each query its
 * {@link QueryBudget} and hands it to the part that does the job: {@link TraceLookup}, {@link RecordSearch},
 * {@link RecordVisit}, {@link TraceSearch}, {@link TagsScan}, {@link WarmUp}, all planning through
 * {@link LookupPlanner} and reading in {@link QueryPools}. A query made of several lookups (a LogQL metric
 * query) takes one budget ({@link #budget}) and gives it to each.
 */
public final class QueryEngine implements AutoCloseable {

    /** The sidecar cache of the server and the CLI: both sidecars of some 700 span blocks of 300,000 rows. */
    public static final long DEFAULT_SIDECAR_CACHE_BYTES = 64L << 20;

    /** How often, at most, the engine reads a tenant's index again: shorter than {@link HeadSource#NAMES_PUBLISHED_FOR}. */
    public static final Duration INDEX_POLL = Duration.ofSeconds(1);

    /** How often, at most, the engine lists blocks to find those the index lacks (written by another tool, or by a crashed writer). */
    public static final Duration LIST_EVERY = Duration.ofMinutes(1);

    private final QueryLimits limits;
    /** What the records of every running query hold together (see {@link QueryBudget}). */
    private final AtomicLong held = new AtomicLong();
    private final SidecarCache cache;
    private final BlockCatalog catalog;
    private final BufferAllocator allocator = new RootAllocator();
    private final QueryPools pools;
    private final TraceLookup traces;
    private final RecordSearch search;
    private final RecordVisit visit;
    private final TraceSearch traceSearch;
    private final TraceQlSearch traceQlSearch;
    private final TraceQlMetrics traceQlMetrics;
    private final TagsScan tags;
    private final WarmUp warmUp;

    /**
     * An engine over {@code store} and {@code head}, caching up to {@code sidecarCacheBytes} of
     * decoded sidecars and reading up to {@code threads} blocks at once, more on an object store
     * ({@link BlockStore#blocksReadAtOnce}); a search reads the newest blocks {@code threads} at a time,
     * then twice as many in each wave up to that many.
     */
    public QueryEngine(BlockStore store, HeadSource head, long sidecarCacheBytes, int threads) {
        this(store, head, sidecarCacheBytes, threads, QueryLimits.DEFAULTS);
    }

    /** An engine as {@link #QueryEngine(BlockStore, HeadSource, long, int)} whose queries run within {@code limits}. */
    public QueryEngine(BlockStore store, HeadSource head, long sidecarCacheBytes, int threads, QueryLimits limits) {
        this(store, head, sidecarCacheBytes, threads, limits, INDEX_POLL, LIST_EVERY);
    }

    /**
     * An engine as {@link #QueryEngine(BlockStore, HeadSource, long, int, QueryLimits)}, reading each index
     * again at most every {@code indexPoll} and listing blocks at most every {@code listEvery}.
     */
    public QueryEngine(BlockStore store, HeadSource head, long sidecarCacheBytes, int threads, QueryLimits limits,
                       Duration indexPoll, Duration listEvery) {
        this.limits = limits;
        this.cache = new SidecarCache(sidecarCacheBytes);
        this.catalog = new BlockCatalog(store, indexPoll.toNanos(), listEvery.toNanos());
        BlockScan scan = new BlockScan(store, allocator, cache);
        this.pools = new QueryPools(store, threads);
        LookupPlanner planner = new LookupPlanner(store, catalog, cache, scan, pools);
        this.traces = new TraceLookup(head, planner, scan);
        this.search = new RecordSearch(head, planner, scan, pools);
        this.visit = new RecordVisit(store, head, planner, scan, pools);
        this.traceSearch = new TraceSearch(search, traces, pools);
        this.traceQlSearch = new TraceQlSearch(search, traces);
        this.traceQlMetrics = new TraceQlMetrics(traceSearch, visit);
        this.tags = new TagsScan(store, head, planner, scan, pools);
        this.warmUp = new WarmUp(store, catalog, cache, allocator);
    }

    /** The decoded-sidecar cache, for metrics. */
    public SidecarCache sidecarCache() {
        return cache;
    }

    /** Heap the records of the queries running now hold, as their budgets count it. */
    public long queryBytes() {
        return held.get();
    }

    /**
     * A budget for one query, to be closed when the query is done: one for a query made of several lookups
     * (each given it), in which what the query keeps between records is reserved too.
     */
    public QueryBudget budget() {
        return new QueryBudget(limits, held);
    }

    /** Bytes of filters held from the stores' indexes, beside {@link #sidecarCache}. */
    public long indexBytes() {
        return catalog.bytes();
    }

    /**
     * Reads each tenant's index, and the sidecars of the blocks no index holds into the cache, newest
     * blocks first, until it is full: a server calls this as it starts, so that its first queries do
     * not read them one by one. TRACE_IDX and ATTR_IDX come first (from an index, or from the blocks
     * it lacks), then BATCH_ATTR_IDX: every lookup asks the former, only a search that ATTR_IDX could
     * not rule a block out for asks the latter. Returns how many sidecars are then held from this pass.
     */
    public int preloadSidecars() throws IOException {
        return warmUp.preloadSidecars();
    }

    /**
     * Looks up one trace of the newest span block, answer dropped, so that the first query a user
     * sends finds the read path's classes loaded instead of paying for that. The trace is the
     * smallest id of the block's first batch, which its meta.json names: finding it reads nothing.
     */
    public void warmUp() throws IOException {
        Optional<WarmUp.TraceOf> trace = warmUp.trace();
        if (trace.isPresent()) {
            trace(trace.get().tenant(), trace.get().traceId(), TimeRange.ALL, Mechanisms.ALL, true);
        }
    }

    /**
     * Every span of a trace, and its log records when {@code withLogs}.
     *
     * @throws QueryAbortedException when the lookup passes its memory or its deadline ({@link QueryLimits})
     */
    public TraceResult trace(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms, boolean withLogs)
            throws IOException {
        try (QueryBudget budget = budget()) {
            return traces.trace(tenant, traceId, range, mechanisms, withLogs, budget);
        }
    }

    /**
     * Spans matching {@code expr} in {@code range}, newest first, at most {@code limit}.
     *
     * <p>A condition on the whole trace ({@code trace:rootService}, {@code trace:duration}, …) holds
     * for every span to the blocks and the rows, which know one span at a time; the spans found are
     * then judged with their trace, looked up by id over all time (TRACE_IDX picks its blocks). When
     * that keeps fewer than {@code limit} and more spans may match, the search is asked again for
     * four times as many. The plan is the span search's.
     */
    public SearchResult<SpanRecord> searchSpans(TenantId tenant, Expr expr, TimeRange range, int limit,
                                                Mechanisms mechanisms) throws IOException {
        try (QueryBudget budget = budget()) {
            return traceSearch.spans(tenant, expr, range, limit, mechanisms, new HashMap<>(), budget);
        }
    }

    /**
     * The traces holding spans that match {@code expr} in {@code range}, as Tempo's search answers
     * them: the {@code limit} traces whose newest matching span is newest, each with every one of its
     * spans and those that match.
     *
     * <p>The span search keeps the newest matching span of each trace, {@code limit} traces, reading up to
     * {@link TraceSearch#SPANS_PER_TRACE} spans of a block per trace wanted before it reads every match of the block.
     * A condition on the whole trace is judged on each candidate span with its trace, so there the span
     * search is asked for {@link TraceSearch#SPANS_PER_TRACE} spans per trace wanted, and when those fall into fewer
     * traces and more spans may match, for four times as many. Each trace is then looked up by id over all time (TRACE_IDX
     * picks its blocks), so that its root, start and duration are the whole trace's, not the
     * matching spans'. Those lookups run at once, as many as the engine reads blocks at once: on an
     * object store each waits for its GETs.
     */
    public TraceSearchResult searchTraces(TenantId tenant, Expr expr, TimeRange range, int limit,
                                          Mechanisms mechanisms) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit (" + limit + ") must be at least 1");
        }
        try (QueryBudget budget = budget()) {
            return traceSearch.traces(tenant, expr, range, limit, mechanisms, budget);
        }
    }

    /**
     * The traces that match a TraceQL span query of the whole language, as Tempo's search answers them: each
     * whole, with the spansets the query found in it, at most {@code limit}, newest first (see
     * {@link TraceQlSearch} for how candidates are found and judged).
     */
    public TraceQlResult searchTraces(TenantId tenant, Query.Spans query, TimeRange range, int limit,
                                      Mechanisms mechanisms) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit (" + limit + ") must be at least 1");
        }
        try (QueryBudget budget = budget()) {
            return traceQlSearch.traces(tenant, query, range, limit, mechanisms, budget);
        }
    }

    /**
     * A TraceQL metrics query over the spans that start in {@code range}, counted into {@code aggregator} (made
     * for the same query and range) and its series returned; see {@link TraceQlMetrics}.
     */
    public MetricsResult metrics(TenantId tenant, Query.Metrics query, MetricsAggregator aggregator, TimeRange range,
                                 Mechanisms mechanisms) throws IOException {
        try (QueryBudget budget = budget()) {
            return traceQlMetrics.series(tenant, query, aggregator, range, mechanisms, budget);
        }
    }

    /**
     * The attribute keys and values of the tenant's spans in {@code range}: each block's TAGS file,
     * or a scan of the block when that file is missing or damaged, or cut short (TRUNCATED) for a key
     * {@code complete} accepts, whose values are asked for; then the head's unpublished spans. A block
     * counts when its time range (from its name) overlaps {@code range}, and gives all its keys.
     * {@code tagsOnly} says that {@link TagsOnlyPairs}' keys are asked for (listed, or some of
     * {@code complete}'s): a version 1 file, which does not hold them, is then scanned too.
     */
    public TagsResult spanTags(TenantId tenant, TimeRange range, Predicate<String> complete, boolean tagsOnly)
            throws IOException {
        try (QueryBudget budget = budget()) {
            return tags.spans(tenant, range, complete, tagsOnly, budget);
        }
    }

    /**
     * The attribute keys and values of the tenant's log records in {@code range}, as {@link #spanTags}
     * gives them for spans: each overlapping block's TAGS file (a scan of the block where it is missing,
     * damaged or cut short for a key {@code complete} accepts), then the head's unpublished records.
     */
    public TagsResult logTags(TenantId tenant, TimeRange range, Predicate<String> complete) throws IOException {
        try (QueryBudget budget = budget()) {
            return tags.logs(tenant, range, complete, budget);
        }
    }

    /**
     * The log records of one trace in {@code range}, oldest first: the logs half of {@link #trace},
     * with TRACE_IDX picking the blocks, for a log query that names its trace.
     */
    public SearchResult<LogRecord> traceLogs(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms)
            throws IOException {
        try (QueryBudget budget = budget()) {
            return traces.traceLogs(tenant, traceId, range, mechanisms, budget);
        }
    }

    /**
     * The log records of one trace in {@code range}, oldest first, as {@link #traceLogs(TenantId, Bytes, TimeRange,
     * Mechanisms)}, held in {@code budget}: one lookup of a query made of several.
     */
    public SearchResult<LogRecord> traceLogs(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms,
                                             QueryBudget budget) throws IOException {
        return traces.traceLogs(tenant, traceId, range, mechanisms, budget);
    }

    /**
     * Hands every log record matching {@code expr} that passes {@code filter} in {@code range} to {@code visitor}
     * as it is read, holding none (see {@link RecordVisit}): the head's, then every block that may hold one. The
     * visitor is called from the engine's reading threads, several at once; {@code budget} is the query's
     * (what the visitor keeps is reserved there by the visitor).
     *
     * @throws QueryAbortedException when the query passes its memory or its deadline ({@link QueryLimits})
     */
    public VisitResult visitLogs(TenantId tenant, Expr expr, RecordFilter<LogRecord> filter, TimeRange range,
                                 Mechanisms mechanisms, QueryBudget budget, Consumer<LogRecord> visitor)
            throws IOException {
        return visit.logs(tenant, expr, filter, range, mechanisms, null, visitor, budget);
    }

    /**
     * {@link #visitLogs}, but each block whose COUNTS file {@code usable} accepts is given to {@code counts} instead
     * of its records, on this thread and before any record is handed over (unless the query turned the COUNTS
     * mechanism off); a block without a usable file is read.
     */
    public VisitResult visitLogs(TenantId tenant, Expr expr, RecordFilter<LogRecord> filter, TimeRange range,
                                 Mechanisms mechanisms, QueryBudget budget, Predicate<BlockCounts> usable,
                                 Consumer<BlockCounts> counts, Consumer<LogRecord> visitor) throws IOException {
        return visit.logs(tenant, expr, filter, range, mechanisms, new RecordVisit.Counts(usable, counts), visitor,
                budget);
    }

    /** Log records matching {@code expr} in {@code range}, newest first, at most {@code limit}. */
    public SearchResult<LogRecord> searchLogs(TenantId tenant, Expr expr, TimeRange range, int limit,
                                              Mechanisms mechanisms) throws IOException {
        return searchLogs(tenant, expr, RecordFilter.none(), range, limit, Order.NEWEST_FIRST, mechanisms);
    }

    /**
     * Log records matching {@code expr} that pass {@code filter} in {@code range}, the first {@code limit}
     * in {@code order}, in that order. The filter is judged as the blocks are read, so that the query
     * holds at most its answer however many records the Expr leaves.
     *
     * @throws QueryAbortedException when the search passes its memory or its deadline ({@link QueryLimits})
     */
    public SearchResult<LogRecord> searchLogs(TenantId tenant, Expr expr, RecordFilter<LogRecord> filter,
                                              TimeRange range, int limit, Order order, Mechanisms mechanisms)
            throws IOException {
        try (QueryBudget budget = budget()) {
            return search.logs(tenant, expr, filter, range, limit, order, mechanisms, budget);
        }
    }

    /** Waits (up to a minute each) for the trace lookups and block reads in flight, then frees the engine's memory; later queries fail. */
    @Override
    public void close() {
        pools.close();
        allocator.close();
    }
}
