package dev.needle.query.engine;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.index.TagsOnlyPairs;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.read.BlockReader;
import dev.needle.blocks.store.BlockName;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.sidecar.BitSlicedFilters;
import dev.needle.sidecar.BloomSidecar;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.channels.SeekableByteChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * Plans and runs lookups over a tenant's blocks and the ingest head: for each block, time range
 * from the name, then TRACE_IDX or ATTR_IDX, then batch zone maps, then rows; blocks in parallel.
 * The blocks and their filters come from the store's index where there is one ({@link BlockCatalog}),
 * else from a listing and each block's own sidecars.
 */
public final class QueryEngine implements AutoCloseable {

    /** The sidecar cache of the server and the CLI: both sidecars of some 700 span blocks of 300,000 rows. */
    public static final long DEFAULT_SIDECAR_CACHE_BYTES = 64L << 20;

    /** How often, at most, the engine reads a tenant's index again: shorter than {@link HeadSource#NAMES_PUBLISHED_FOR}. */
    public static final Duration INDEX_POLL = Duration.ofSeconds(1);

    /** How often, at most, the engine lists blocks to find those the index lacks (written by another tool, or by a crashed writer). */
    public static final Duration LIST_EVERY = Duration.ofMinutes(1);

    /** Spans a trace search first asks for per trace wanted: most traces hold a few matching spans. */
    static final int SPANS_PER_TRACE = 10;

    private final BlockStore store;
    private final HeadSource head;
    private final QueryLimits limits;
    /** What the records of every running query hold together (see {@link QueryBudget}). */
    private final AtomicLong held = new AtomicLong();
    private final SidecarCache cache;
    private final BlockCatalog catalog;
    private final BufferAllocator allocator = new RootAllocator();
    private final BlockScan scan;
    private final ExecutorService pool;
    /**
     * Runs a trace search's whole-trace lookups at once. Each waits for its block reads in
     * {@link #pool}, so they run here, never in that pool, whose threads would then wait on each other.
     */
    private final ExecutorService lookups;
    /** The blocks of a search's first wave. */
    private final int threads;
    /** How many blocks are read at once: the size of {@link #pool}, and of a search's widest waves. */
    private final int readers;

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
        this.store = store;
        this.head = head;
        this.limits = limits;
        this.cache = new SidecarCache(sidecarCacheBytes);
        this.catalog = new BlockCatalog(store, indexPoll.toNanos(), listEvery.toNanos());
        this.scan = new BlockScan(store, allocator, cache);
        this.threads = threads;
        this.readers = store.blocksReadAtOnce(threads);
        this.pool = daemonPool(readers, "needle-query");
        this.lookups = daemonPool(readers, "needle-trace-lookup");
    }

    private static ExecutorService daemonPool(int threads, String name) {
        return Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** The decoded-sidecar cache, for metrics. */
    public SidecarCache sidecarCache() {
        return cache;
    }

    /** Heap the records of the queries running now hold, as their budgets count it. */
    public long queryBytes() {
        return held.get();
    }

    /** A budget for one query, to be closed when the query is done. */
    private QueryBudget budget() {
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
        List<BlockRef> blocks = new ArrayList<>();
        Set<BlockRef> indexed = new HashSet<>();
        for (TenantId tenant : store.tenants()) {
            for (Signal signal : Signal.values()) {
                BlockCatalog.Known known = catalog.blocks(tenant, signal, true);
                blocks.addAll(known.blocks());
                known.blocks().stream().filter(b -> known.indexed().containsKey(b.name())).forEach(indexed::add);
            }
        }
        cache.reserve(catalog.bytes());
        blocks.sort(Comparator.comparingLong((BlockRef b) -> b.name().endUnixNano()).reversed());
        int held = 2 * indexed.size();
        for (List<String> files : List.of(List.of(BloomSidecar.TRACE_IDX, BloomSidecar.ATTR_IDX),
                List.of(BloomSidecar.BATCH_ATTR_IDX))) {
            for (BlockRef ref : blocks) {
                if (files.size() == 2 && indexed.contains(ref)) {
                    continue;
                }
                for (String file : files) {
                    if (!cache.preload(ref, file, () -> BlockReader.readSidecar(store, ref, file))) {
                        return held;
                    }
                    held++;
                }
            }
        }
        return held;
    }

    /**
     * Looks up one trace of the newest span block, answer dropped, so that the first query a user
     * sends finds the read path's classes loaded instead of paying for that. The trace is the
     * smallest id of the block's first batch, which its meta.json names: finding it reads nothing.
     */
    public void warmUp() throws IOException {
        for (TenantId tenant : store.tenants()) {
            List<BlockRef> blocks = store.list(tenant, Signal.SPANS);
            if (blocks.isEmpty()) {
                continue;
            }
            Bytes traceId;
            try (BlockReader reader = BlockReader.open(store, blocks.get(blocks.size() - 1), allocator)) {
                traceId = reader.meta().filter(m -> !m.batches().isEmpty())
                        .map(m -> m.batches().get(0).minTraceId()).orElse(null);
            }
            if (traceId != null) {
                trace(tenant, traceId, TimeRange.ALL, Mechanisms.ALL, true);
                return;
            }
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
            return trace(tenant, traceId, range, mechanisms, withLogs, budget);
        }
    }

    private TraceResult trace(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms, boolean withLogs,
                              QueryBudget budget) throws IOException {
        if (traceId.length() != 16) {
            throw new IllegalArgumentException("a trace id has 16 bytes, got " + traceId.length());
        }
        List<String> problems = new ArrayList<>();
        Lookup<SpanRecord> spans = lookup(tenant, Signal.SPANS, TraceTarget.spans(traceId, range), range, mechanisms,
                head.traceSpanParts(tenant, traceId), s -> range.contains(s.startTimeUnixNano()),
                SpanRecord::startTimeUnixNano, problems, budget);
        Lookup<LogRecord> logs = withLogs
                ? lookup(tenant, Signal.LOGS, TraceTarget.logs(traceId, range), range, mechanisms,
                        head.traceLogParts(tenant, traceId), r -> range.contains(r.eventTimeUnixNano()),
                        LogRecord::eventTimeUnixNano, problems, budget)
                : null;
        return new TraceResult(spans.records(), logs == null ? List.of() : logs.records(), problems, spans.plan(),
                logs == null ? null : logs.plan());
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
            return searchSpans(tenant, expr, range, limit, mechanisms, new HashMap<>(), budget);
        }
    }

    /** {@link #searchSpans}, keeping in {@code looked} each trace it looks up whole, so that no trace is looked up twice. */
    private SearchResult<SpanRecord> searchSpans(TenantId tenant, Expr expr, TimeRange range, int limit,
                                                 Mechanisms mechanisms, Map<Bytes, TraceResult> looked,
                                                 QueryBudget budget) throws IOException {
        if (!namesTrace(expr)) {
            return spanSearch(tenant, expr, range, limit, mechanisms, budget);
        }
        int candidates = limit;
        while (true) {
            SearchResult<SpanRecord> found = spanSearch(tenant, expr, range, candidates, mechanisms, budget);
            Set<String> problems = new LinkedHashSet<>(found.problems());
            Map<Bytes, WholeTrace> traces = new HashMap<>();
            List<SpanRecord> kept = new ArrayList<>();
            for (SpanRecord s : found.records()) {
                if (kept.size() == limit) {
                    break;
                }
                WholeTrace trace = traces.get(s.traceId());
                if (trace == null) {
                    TraceResult whole = lookUpWhole(tenant, s.traceId(), mechanisms, looked, budget);
                    problems.addAll(whole.problems());
                    trace = new WholeTrace(withFound(whole, List.of(s)));
                    traces.put(s.traceId(), trace);
                }
                if (Values.matches(expr, Values.of(s, trace))) {
                    kept.add(s);
                }
            }
            if (kept.size() == limit || found.records().size() < candidates || candidates == Integer.MAX_VALUE) {
                return new SearchResult<>(kept, List.copyOf(problems), found.plan());
            }
            candidates = (int) Math.min(Integer.MAX_VALUE, candidates * 4L);
        }
    }

    private SearchResult<SpanRecord> spanSearch(TenantId tenant, Expr expr, TimeRange range, int limit,
                                                Mechanisms mechanisms, QueryBudget budget) throws IOException {
        return spanSearch(tenant, expr, range, limit, FirstRecords.Distinct.records(RecordKind.SPANS), mechanisms,
                budget);
    }

    /** The first {@code limit} spans matching {@code expr}, newest first, each distinct as {@code distinct} says. */
    private SearchResult<SpanRecord> spanSearch(TenantId tenant, Expr expr, TimeRange range, int limit,
                                                FirstRecords.Distinct<SpanRecord> distinct, Mechanisms mechanisms,
                                                QueryBudget budget) throws IOException {
        return search(tenant, Signal.SPANS, SearchTarget.spans(expr, range), range, limit, Order.NEWEST_FIRST,
                distinct, mechanisms, head.spanParts(tenant),
                s -> Values.matches(expr, Values.of(s)) && range.contains(s.startTimeUnixNano()),
                SpanRecord::startTimeUnixNano, budget);
    }

    /** Whether {@code e} has a condition on the whole trace, which only the trace's lookup decides. */
    private static boolean namesTrace(Expr e) {
        if (e instanceof Expr.Condition c) {
            return c.attribute().scope() == Attribute.Scope.TRACE;
        }
        List<Expr> terms = e instanceof Expr.And and ? and.terms() : e instanceof Expr.Or or ? or.terms() : List.of();
        return terms.stream().anyMatch(QueryEngine::namesTrace);
    }

    /** The trace looked up by id over all time, or what {@code looked} holds of it from an earlier lookup. */
    private TraceResult lookUpWhole(TenantId tenant, Bytes traceId, Mechanisms mechanisms, Map<Bytes, TraceResult> looked,
                                    QueryBudget budget) throws IOException {
        TraceResult whole = looked.get(traceId);
        if (whole == null) {
            whole = trace(tenant, traceId, TimeRange.ALL, mechanisms, false, budget);
            looked.put(traceId, whole);
        }
        return whole;
    }

    /**
     * Looks up, at once in {@link #lookups}, each of {@code traceIds} by id over all time that
     * {@code looked} does not hold yet, and adds it there.
     */
    private void lookUpAll(TenantId tenant, Collection<Bytes> traceIds, Mechanisms mechanisms,
                           Map<Bytes, TraceResult> looked, QueryBudget budget) throws IOException {
        List<Bytes> missing = traceIds.stream().filter(id -> !looked.containsKey(id)).distinct().toList();
        List<Future<TraceResult>> futures = new ArrayList<>(missing.size());
        try {
            for (Bytes id : missing) {
                futures.add(lookups.submit(() -> {
                    try {
                        budget.check();
                        return trace(tenant, id, TimeRange.ALL, mechanisms, false, budget);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }));
            }
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the query engine is closed", e);
        }
        try {
            List<TraceResult> found = awaitAll(futures);
            for (int i = 0; i < missing.size(); i++) {
                looked.put(missing.get(i), found.get(i));
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /**
     * Every span of a looked-up trace by start time, with {@code found}, the spans a search already
     * has (a block the lookup could not read still answered the search).
     */
    private static List<SpanRecord> withFound(TraceResult whole, List<SpanRecord> found) {
        Found<SpanRecord> all = new Found<>(RecordKind.SPANS);
        all.addAll(whole.spans());
        all.addAll(found);
        List<SpanRecord> sorted = new ArrayList<>(all.records());
        sorted.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano));
        return sorted;
    }

    /**
     * The traces holding spans that match {@code expr} in {@code range}, as Tempo's search answers
     * them: the {@code limit} traces whose newest matching span is newest, each with every one of its
     * spans and those that match.
     *
     * <p>The span search keeps the newest matching span of each trace, {@code limit} traces, reading up to
     * {@link #SPANS_PER_TRACE} spans of a block per trace wanted before it reads every match of the block.
     * A condition on the whole trace is judged on each candidate span with its trace, so there the span
     * search is asked for {@link #SPANS_PER_TRACE} spans per trace wanted, and when those fall into fewer
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
            return searchTraces(tenant, expr, range, limit, mechanisms, budget);
        }
    }

    private TraceSearchResult searchTraces(TenantId tenant, Expr expr, TimeRange range, int limit,
                                           Mechanisms mechanisms, QueryBudget budget) throws IOException {
        Map<Bytes, TraceResult> looked = new HashMap<>();
        SearchResult<SpanRecord> spans;
        if (namesTrace(expr)) {
            int spanLimit = (int) Math.min(Integer.MAX_VALUE, (long) limit * SPANS_PER_TRACE);
            spans = searchSpans(tenant, expr, range, spanLimit, mechanisms, looked, budget);
            while (distinctTraces(spans.records()) < limit && spans.records().size() == spanLimit
                    && spanLimit < Integer.MAX_VALUE) {
                spanLimit = (int) Math.min(Integer.MAX_VALUE, spanLimit * 4L);
                spans = searchSpans(tenant, expr, range, spanLimit, mechanisms, looked, budget);
            }
        } else {
            spans = spanSearch(tenant, expr, range, limit, new FirstRecords.Distinct<>(SpanRecord::traceId,
                    SPANS_PER_TRACE), mechanisms, budget);
        }
        Map<Bytes, List<SpanRecord>> byTrace = new LinkedHashMap<>();
        for (SpanRecord s : spans.records()) {
            if (byTrace.size() < limit || byTrace.containsKey(s.traceId())) {
                byTrace.computeIfAbsent(s.traceId(), id -> new ArrayList<>()).add(s);
            }
        }
        Set<String> problems = new LinkedHashSet<>(spans.problems());
        List<Explain> plans = new ArrayList<>();
        plans.add(spans.plan());
        List<TraceSearchResult.Match> traces = new ArrayList<>(byTrace.size());
        lookUpAll(tenant, byTrace.keySet(), mechanisms, looked, budget);
        for (Map.Entry<Bytes, List<SpanRecord>> e : byTrace.entrySet()) {
            TraceResult whole = looked.get(e.getKey());
            problems.addAll(whole.problems());
            plans.add(whole.spanPlan());
            List<SpanRecord> sorted = withFound(whole, e.getValue());
            WholeTrace trace = new WholeTrace(sorted);
            List<SpanRecord> matched = sorted.stream()
                    .filter(s -> Values.matches(expr, Values.of(s, trace)) && range.contains(s.startTimeUnixNano()))
                    .toList();
            traces.add(new TraceSearchResult.Match(e.getKey(), sorted, matched));
        }
        return new TraceSearchResult(traces, List.copyOf(problems), plans);
    }

    private static long distinctTraces(List<SpanRecord> spans) {
        return spans.stream().map(SpanRecord::traceId).distinct().count();
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
        return tags(tenant, Signal.SPANS, range, complete, tagsOnly, head.spanParts(tenant),
                filter -> SearchTarget.spans(new Expr.MatchAll(), TimeRange.ALL, filter), TagsOnlyPairs::allOf,
                SpanRecord::startTimeUnixNano);
    }

    /**
     * The attribute keys and values of the tenant's log records in {@code range}, as {@link #spanTags}
     * gives them for spans: each overlapping block's TAGS file (a scan of the block where it is missing,
     * damaged or cut short for a key {@code complete} accepts), then the head's unpublished records.
     */
    public TagsResult logTags(TenantId tenant, TimeRange range, Predicate<String> complete) throws IOException {
        return tags(tenant, Signal.LOGS, range, complete, false, head.logParts(tenant),
                filter -> SearchTarget.logs(new Expr.MatchAll(), TimeRange.ALL, filter), tags -> new IndexedPairs(tags)::log,
                LogRecord::eventTimeUnixNano);
    }

    /** {@code pairs} gives what feeds a builder every TAGS pair of the records passed to it. */
    private <R> TagsResult tags(TenantId tenant, Signal signal, TimeRange range, Predicate<String> complete,
                                boolean tagsOnly, List<HeadSource.Part<R>> headParts,
                                Function<RecordFilter<R>, SearchTarget<R>> everything,
                                Function<BlockTags.Builder, Consumer<R>> pairs, ToLongFunction<R> time)
            throws IOException {
        try (QueryBudget budget = budget()) {
            return tags(tenant, signal, range, complete, tagsOnly, headParts, everything, pairs, time, budget);
        }
    }

    private <R> TagsResult tags(TenantId tenant, Signal signal, TimeRange range, Predicate<String> complete,
                                boolean tagsOnly, List<HeadSource.Part<R>> headParts,
                                Function<RecordFilter<R>, SearchTarget<R>> everything,
                                Function<BlockTags.Builder, Consumer<R>> pairs, ToLongFunction<R> time,
                                QueryBudget budget) throws IOException {
        List<String> problems = new ArrayList<>();
        Plan<R> plan = plan(tenant, signal, Mechanisms.ALL, headParts, problems);
        List<BlockRef> blocks = new ArrayList<>(plan.known().blocks());
        blocks.addAll(plan.named());
        List<R> head = plan.headRecords();
        blocks.removeIf(b -> !range.overlaps(b.name().startUnixNano(), b.name().endUnixNano()));
        List<BlockTags> files = runAll(blocks, ref -> tagsFile(ref, complete, tagsOnly), budget);
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
        for (BlockScan.Outcome<R> outcome : runAll(toScan, ref -> scan.run(ref, adding, TimeRange.ALL, Mechanisms.ALL,
                null, budget, null, null), budget)) {
            if (outcome.problem() != null) {
                problems.add(outcome.problem());
            }
        }
        head.stream().filter(r -> range.contains(time.applyAsLong(r))).forEach(add);
        return new TagsResult(tags.build(), blocks.size(), toScan.size(), problems);
    }

    /**
     * The log records of one trace in {@code range}, oldest first: the logs half of {@link #trace},
     * with TRACE_IDX picking the blocks, for a log query that names its trace.
     */
    public SearchResult<LogRecord> traceLogs(TenantId tenant, Bytes traceId, TimeRange range, Mechanisms mechanisms)
            throws IOException {
        if (traceId.length() != 16) {
            throw new IllegalArgumentException("a trace id has 16 bytes, got " + traceId.length());
        }
        List<String> problems = new ArrayList<>();
        try (QueryBudget budget = budget()) {
            Lookup<LogRecord> logs = lookup(tenant, Signal.LOGS, TraceTarget.logs(traceId, range), range, mechanisms,
                    head.traceLogParts(tenant, traceId), r -> range.contains(r.eventTimeUnixNano()),
                    LogRecord::eventTimeUnixNano, problems, budget);
            return new SearchResult<>(logs.records(), problems, logs.plan());
        }
    }

    /**
     * A block's TAGS, or null when the block must be scanned instead: no file, a damaged one, a key
     * cut short, or a version 1 file when {@code tagsOnly} asks for the keys it does not hold.
     */
    private BlockTags tagsFile(BlockRef ref, Predicate<String> complete, boolean tagsOnly) {
        try (SeekableByteChannel channel = store.open(ref, BlockTags.FILE)) {
            if (channel.size() > BlockTags.HEADER_BYTES + (long) BlockTags.MAX_BODY_BYTES) {
                return null;
            }
            byte[] bytes = Channels.newInputStream(channel).readAllBytes();
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
        // The head's records pass the same tests as the blocks' rows: the body's text, then the record.
        Predicate<LogRecord> passes = r -> (filter.bodyText() == null || !(r.body() instanceof AnyValue.Str body)
                || filter.bodyText().test(body.value())) && (filter.record() == null || filter.record().test(r));
        try (QueryBudget budget = budget()) {
            return search(tenant, Signal.LOGS, SearchTarget.logs(expr, range, filter), range, limit, order,
                    FirstRecords.Distinct.records(RecordKind.LOGS), mechanisms,
                    head.logParts(tenant), r -> Values.matches(expr, Values.of(r)) && range.contains(r.eventTimeUnixNano())
                            && passes.test(r), LogRecord::eventTimeUnixNano, budget);
        }
    }

    private <R> SearchResult<R> search(TenantId tenant, Signal signal, Target<R> target, TimeRange range, int limit,
                                       Order order, FirstRecords.Distinct<R> distinct, Mechanisms mechanisms,
                                       List<HeadSource.Part<R>> head, Predicate<R> headMatch, ToLongFunction<R> time,
                                       QueryBudget budget) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit (" + limit + ") must be at least 1");
        }
        List<String> problems = new ArrayList<>();
        Plan<R> plan = plan(tenant, signal, mechanisms, head, problems);
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
        int wave = Math.max(1, threads);
        BlockCatalog.Known known = plan.known();
        Comparator<BlockRef> blockOrder = Comparator.comparingLong((BlockRef b) -> order.bestRank(b.name())).reversed();
        Visit visit = visit(plan, order == Order.NEWEST_FIRST ? known.positions().newestEndFirst()
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
            List<BlockScan.Outcome<R>> outcomes = decideAndRun(batch, Arrays.copyOfRange(ids, next, next + batch.size()),
                    target, range, mechanisms, first, plan, filters, budget);
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i).problem() != null && gone(batch.get(i))) {
                    continue;
                }
                decisions.add(outcomes.get(i).decision());
                if (outcomes.get(i).problem() != null) {
                    unreadable.put(batch.get(i), outcomes.get(i).problem());
                }
            }
            next += batch.size();
            wave = Math.min(readers, 2 * wave);
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

    /** The records one lookup found and the plan that found them. */
    record Lookup<R>(List<R> records, Explain plan) {
    }

    private <R> Lookup<R> lookup(TenantId tenant, Signal signal, Target<R> target, TimeRange range,
                                 Mechanisms mechanisms, List<HeadSource.Part<R>> head, Predicate<R> headMatch,
                                 ToLongFunction<R> time, List<String> problems, QueryBudget budget) throws IOException {
        Plan<R> plan = plan(tenant, signal, mechanisms, head, problems);
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
        int[] positions = candidates == null ? null : survivors(known.positions(), candidates);
        Visit visit = positions != null ? visit(plan, positions, null)
                : visit(plan, IntStream.range(0, n).map(i -> n - 1 - i).toArray(), Comparator.reverseOrder());
        List<BlockRef> blocks = visit.blocks();
        int[] ids = visit.ids();
        List<BlockScan.Outcome<R>> outcomes = decideAndRun(blocks, ids, target, range, mechanisms, null, plan, filters,
                budget);
        List<BlockDecision> visited = new ArrayList<>(outcomes.size());
        List<Integer> goneAt = new ArrayList<>();
        for (int i = 0; i < outcomes.size(); i++) {
            BlockScan.Outcome<R> outcome = outcomes.get(i);
            visited.add(outcome.decision());
            if (outcome.problem() != null && gone(blocks.get(i))) {
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

    /** Blocks in the order a lookup visits them, with each one's id in the index's filters (-1 when they do not hold it). */
    private record Visit(List<BlockRef> blocks, int[] ids) {
    }

    /**
     * The catalog's blocks at {@code positions}, in that order, when the ingest head named no block
     * the catalog lacks; else every block of the plan, those too, sorted by {@code order}.
     */
    private static Visit visit(Plan<?> plan, int[] positions, Comparator<BlockRef> order) {
        BlockCatalog.Known known = plan.known();
        if (plan.named().isEmpty()) {
            List<BlockRef> blocks = new ArrayList<>(positions.length);
            int[] ids = new int[positions.length];
            for (int i = 0; i < positions.length; i++) {
                blocks.add(known.blocks().get(positions[i]));
                ids[i] = known.positions().filterIds()[positions[i]];
            }
            return new Visit(blocks, ids);
        }
        List<BlockRef> blocks = new ArrayList<>(known.blocks());
        blocks.addAll(plan.named());
        blocks.sort(order);
        return new Visit(blocks, blocks.stream().mapToInt(b -> known.filters().id(b.name())).toArray());
    }

    /**
     * The positions, newest first, of the blocks one probe left: those whose filter may hold the key
     * ({@code candidates}, failed-open ones among them) and those the filters do not hold.
     */
    private static int[] survivors(BlockCatalog.Positions positions, BitSlicedFilters.Candidates candidates) {
        int[] unheld = positions.unheld();
        int[] found = Arrays.copyOf(unheld, unheld.length + Math.min(candidates.count(), positions.byId().length));
        int n = unheld.length;
        for (int id = candidates.next(0); id >= 0 && id < positions.byId().length; id = candidates.next(id + 1)) {
            int p = positions.byId()[id];
            if (p >= 0) {
                found[n++] = p;
            }
        }
        int[] sorted = Arrays.copyOf(found, n);
        Arrays.sort(sorted);
        for (int i = 0; i < n / 2; i++) {
            int t = sorted[i];
            sorted[i] = sorted[n - 1 - i];
            sorted[n - 1 - i] = t;
        }
        return sorted;
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

    /**
     * Each block's outcome, in order: decided on this thread where that needs no read (the time range
     * in the block's name, its filter in the index: a probe of the bit-sliced filters of every block
     * at once), read in the pool otherwise. {@code ids} are the blocks' ids in the index's filters.
     */
    private <R> List<BlockScan.Outcome<R>> decideAndRun(List<BlockRef> blocks, int[] ids, Target<R> target,
                                                        TimeRange range, Mechanisms mechanisms, FirstRecords<R> first,
                                                        Plan<R> plan, IndexedFilters.Lookup filters,
                                                        QueryBudget budget) {
        List<BlockScan.Outcome<R>> outcomes = new ArrayList<>(blocks.size());
        List<Integer> toRead = new ArrayList<>();
        for (int i = 0; i < blocks.size(); i++) {
            BlockScan.Outcome<R> decided = scan.decideUnread(blocks.get(i), target, range, mechanisms,
                    filters.block(ids[i]));
            outcomes.add(decided);
            if (decided == null) {
                toRead.add(i);
            }
        }
        List<BlockScan.Outcome<R>> read = runAll(toRead, i -> scan.run(blocks.get(i), target, range, mechanisms, first,
                budget, plan.known().indexed().get(blocks.get(i).name()), filters.block(ids[i])), budget);
        for (int i = 0, next = 0; i < outcomes.size(); i++) {
            if (outcomes.get(i) == null) {
                outcomes.set(i, read.get(next++));
            }
        }
        return outcomes;
    }

    /**
     * The blocks a lookup reads, what the index holds of them (meta.json and filters), the head's
     * records that none of them holds, and where the blocks were learnt (for EXPLAIN).
     */
    private record Plan<R>(BlockCatalog.Known known, List<BlockRef> named, List<R> headRecords, String source) {
    }

    /**
     * The blocks from the catalog, and the head's records that are not in one of them. The head's
     * snapshot was taken before the blocks were learnt (see {@link HeadSource}): a part whose block is
     * known is read from the block, and every other part from the head, each record once; a block the
     * head names as published but the catalog does not know yet (its index was read before the block
     * was in it) is read too. A part that names a problem (an ingest node that did not answer) adds it
     * to {@code problems}, once, as does a block the catalog left out on doubt ({@code LiveBlocks}).
     */
    private <R> Plan<R> plan(TenantId tenant, Signal signal, Mechanisms mechanisms, List<HeadSource.Part<R>> head,
                             List<String> problems) throws IOException {
        BlockCatalog.Known known = catalog.blocks(tenant, signal, mechanisms.index());
        cache.reserve(catalog.bytes());
        // Blocks left out on doubt (what a compaction replaced cannot be known for certain) make the answer partial.
        known.problems().stream().filter(p -> !problems.contains(p)).forEach(problems::add);
        // A replaced block's records are read from the block that replaces it, so neither the head's
        // part of it nor the block itself is read again: known.ids() holds both.
        Set<String> namedIds = new HashSet<>();
        List<BlockRef> named = new ArrayList<>();
        for (HeadSource.Part<R> part : head) {
            if (part.problem() != null && !problems.contains(part.problem())) {
                problems.add(part.problem());
            }
            Optional<BlockName> published = part.published() == null ? Optional.empty() : BlockName.parse(part.published());
            if (published.isPresent() && !known.ids().contains(published.get().id())
                    && namedIds.add(published.get().id())) {
                named.add(new BlockRef(tenant, signal, published.get()));
            }
        }
        List<R> records = new ArrayList<>();
        for (HeadSource.Part<R> part : head) {
            if (part.blockId() == null || !known.ids().contains(part.blockId()) && !namedIds.contains(part.blockId())) {
                records.addAll(part.records());
            }
        }
        String source = known.source() + (named.isEmpty() ? "" : "; " + named.size()
                + " more the ingest head named as just published");
        return new Plan<>(known, named, records, source);
    }

    /**
     * Whether a block that could not be read is no longer in the store: deleted (by retention) since
     * the engine learnt of it, so that it cannot change the answer.
     */
    private boolean gone(BlockRef block) {
        try {
            return !store.list(block.tenant(), block.signal()).contains(block);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Runs {@code work} on each block in the pool, each task first checking that the query may go on. */
    private <X, T> List<T> runAll(List<X> blocks, Function<X, T> work, QueryBudget budget) {
        List<Future<T>> futures = new ArrayList<>(blocks.size());
        try {
            for (X block : blocks) {
                futures.add(pool.submit(() -> {
                    budget.check();
                    return work.apply(block);
                }));
            }
        } catch (RejectedExecutionException e) {
            throw new IllegalStateException("the query engine is closed", e);
        }
        return awaitAll(futures);
    }

    /**
     * The results of every future, in order, once all are done: a query whose task failed (or that
     * passed a limit, which makes its other tasks stop at their next check) answers only when none of
     * its tasks still reads, so that nothing of it is left running. Rethrows the first failure as it
     * was thrown, but for a checked exception, which is wrapped.
     */
    private static <T> List<T> awaitAll(List<Future<T>> futures) {
        List<T> results = new ArrayList<>(futures.size());
        Throwable failure = null;
        for (Future<T> f : futures) {
            try {
                results.add(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                futures.forEach(g -> g.cancel(true));
                throw new IllegalStateException("interrupted while reading blocks", e);
            } catch (ExecutionException e) {
                failure = failure == null ? e.getCause() : failure;
                results.add(null);
            }
        }
        if (failure instanceof RuntimeException r) {
            throw r;
        }
        if (failure instanceof Error e) {
            throw e;
        }
        if (failure != null) {
            throw new IllegalStateException(failure);
        }
        return results;
    }

    /** Waits (up to a minute each) for the trace lookups and block reads in flight, then frees the engine's memory; later queries fail. */
    @Override
    public void close() {
        // The trace lookups first: those in flight still hand block reads to the pool.
        finish(lookups);
        finish(pool);
        allocator.close();
    }

    private static void finish(ExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(1, TimeUnit.MINUTES)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
    }
}
