package dev.needle.query.logql;

import dev.needle.blocks.index.BlockCounts;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.Order;
import dev.needle.query.engine.QueryBudget;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.RecordFilter;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TagsResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.engine.VisitResult;
import dev.needle.query.logql.pipeline.LineFilter;
import dev.needle.query.logql.pipeline.Stage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Runs a log query over the engine: the keys in the range ({@link QueryEngine#logTags}, read only when
 * the query has an equality a lookup can decide) make the {@link LogQlPruning}; the engine's lookup by that finds the candidates (by trace id through
 * TRACE_IDX when the query names one), and the query itself judges them as the engine reads them: its
 * line filters on the body column before a record is built, then the whole query on each record
 * ({@link RecordFilter}). The engine keeps only the first {@code limit} that pass, newest or oldest
 * first, so that a query holds at most its answer however many lines its selector covers.
 */
public final class LokiSearch {

    private final QueryEngine engine;

    /** Searches over {@code engine}. */
    public LokiSearch(QueryEngine engine) {
        this.engine = engine;
    }

    /**
     * The entries found, in the order asked, at most the limit.
     *
     * @param entries  the matching entries, newest first when backward, oldest first when forward
     * @param problems blocks that could not be read: the answer may miss entries
     * @param plans    every lookup's plan
     */
    public record Result(List<LokiEntry> entries, List<String> problems, List<Explain> plans) {
    }

    /** The entries of {@code query} in {@code range}, at most {@code limit}, newest first unless {@code forward}. */
    public Result run(TenantId tenant, LogQl.LogQuery query, TimeRange range, int limit, boolean forward,
                      Mechanisms mechanisms) throws IOException {
        if (limit < 1) {
            throw new IllegalArgumentException("limit (" + limit + ") must be at least 1");
        }
        Lookup found = lookup(tenant, query, range, limit, forward ? Order.OLDEST_FIRST : Order.NEWEST_FIRST,
                mechanisms);
        List<LokiEntry> kept = judge(query, found.records());
        Comparator<LokiEntry> byTime = Comparator.comparingLong(LokiEntry::timeUnixNano);
        kept.sort(forward ? byTime : byTime.reversed());
        return new Result(List.copyOf(kept.subList(0, Math.min(limit, kept.size()))), found.problems(),
                found.plans());
    }

    /**
     * What a visit came to, beside the entries it handed over.
     *
     * @param problems blocks that could not be read: the visit may have missed entries
     * @param plans    every lookup's plan
     */
    public record Visited(List<String> problems, List<Explain> plans) {
    }

    /**
     * Hands {@code visitor} every entry of {@code query}'s selector in {@code range} that passes its line filters
     * (those before a stage that changes the line, judged on the body column), as read and before the rest of
     * the pipeline, in any order and from several threads at once; none is held. What a metric counts: by trace
     * id through TRACE_IDX when the query names one, else every block that may hold one. {@code budget} is the
     * whole query's.
     *
     * @throws dev.needle.query.engine.QueryAbortedException when the query passes its memory or its deadline
     */
    public Visited visit(TenantId tenant, LogQl.LogQuery query, TimeRange range, Mechanisms mechanisms,
                         QueryBudget budget, Consumer<LokiEntry> visitor) throws IOException {
        return visit(tenant, query, range, mechanisms, budget, null, null, visitor);
    }

    /**
     * {@link #visit(TenantId, LogQl.LogQuery, TimeRange, Mechanisms, QueryBudget, Consumer)}, but each block whose
     * COUNTS file {@code usable} accepts (when not null) is given to {@code counts} instead of its entries, before
     * any entry is handed over.
     */
    public Visited visit(TenantId tenant, LogQl.LogQuery query, TimeRange range, Mechanisms mechanisms,
                         QueryBudget budget, Predicate<BlockCounts> usable, Consumer<BlockCounts> counts,
                         Consumer<LokiEntry> visitor) throws IOException {
        Set<String> problems = new LinkedHashSet<>();
        LogQlPruning pruning = pruning(tenant, query, range, problems);
        if (pruning.nothing()) {
            return new Visited(List.copyOf(problems), List.of());
        }
        if (pruning.traceId() != null) {
            SearchResult<LogRecord> logs = engine.traceLogs(tenant, pruning.traceId(), range, mechanisms, budget);
            problems.addAll(logs.problems());
            logs.records().forEach(r -> visitor.accept(LokiEntry.of(r)));
            return new Visited(List.copyOf(problems), List.of(logs.plan()));
        }
        RecordFilter<LogRecord> filter = new RecordFilter<>(lineFilter(query), null);
        Consumer<LogRecord> entries = r -> visitor.accept(LokiEntry.of(r));
        VisitResult visited = usable == null
                ? engine.visitLogs(tenant, pruning.expr(), filter, range, mechanisms, budget, entries)
                : engine.visitLogs(tenant, pruning.expr(), filter, range, mechanisms, budget, usable, counts, entries);
        problems.addAll(visited.problems());
        return new Visited(List.copyOf(problems), List.of(visited.plan()));
    }

    /** The records a lookup found, the blocks it could not read and its plans. */
    private record Lookup(List<LogRecord> records, List<String> problems, List<Explain> plans) {
    }

    /**
     * The engine's lookup: the keys in the range (read only when the query has an equality a lookup can
     * decide) make the pruning, then the records by trace id or by the pruning's expression.
     */
    private Lookup lookup(TenantId tenant, LogQl.LogQuery query, TimeRange range, int limit, Order order,
                          Mechanisms mechanisms) throws IOException {
        Set<String> problems = new LinkedHashSet<>();
        LogQlPruning pruning = pruning(tenant, query, range, problems);
        if (pruning.nothing()) {
            return new Lookup(List.of(), List.copyOf(problems), List.of());
        }
        SearchResult<LogRecord> logs = pruning.traceId() != null
                ? engine.traceLogs(tenant, pruning.traceId(), range, mechanisms)
                : engine.searchLogs(tenant, pruning.expr(), filter(query), range, limit, order, mechanisms);
        problems.addAll(logs.problems());
        return new Lookup(logs.records(), List.copyOf(problems), List.of(logs.plan()));
    }

    /**
     * What a lookup of {@code query} in {@code range} may decide: the keys in the range (read only when the query
     * has an equality a lookup can decide, the tags' problems added to {@code problems}) make the pruning.
     */
    private LogQlPruning pruning(TenantId tenant, LogQl.LogQuery query, TimeRange range, Set<String> problems)
            throws IOException {
        Set<String> keys = Set.of();
        if (LogQlPruning.needsKeys(query)) {
            TagsResult tags = engine.logTags(tenant, range, key -> false);
            problems.addAll(tags.problems());
            keys = tags.tags().keys().keySet();
        }
        return LogQlPruning.of(query, keys);
    }

    /**
     * The query as the engine judges it while reading: the line filters before the first stage that may
     * change the line on a string body's text (those test the body as rendered), then the whole query
     * on the record.
     */
    static RecordFilter<LogRecord> filter(LogQl.LogQuery query) {
        return new RecordFilter<>(lineFilter(query), r -> query.matches(LokiEntry.of(r)));
    }

    /** The line filters before the first stage that may change the line, as a test of a string body's text; null when none. */
    private static Predicate<String> lineFilter(LogQl.LogQuery query) {
        List<LineFilter> lines = new ArrayList<>();
        for (Stage s : query.pipeline()) {
            if (s.changesLine()) {
                break;
            }
            if (s instanceof LineFilter f) {
                lines.add(f);
            }
        }
        return lines.isEmpty() ? null : line -> {
            for (LineFilter f : lines) {
                if (!f.test(line)) {
                    return false;
                }
            }
            return true;
        };
    }

    private static List<LokiEntry> judge(LogQl.LogQuery query, List<LogRecord> records) {
        List<LokiEntry> kept = new ArrayList<>();
        for (LogRecord r : records) {
            LokiEntry e = query.apply(LokiEntry.of(r));
            if (e != null) {
                kept.add(e);
            }
        }
        return kept;
    }
}
