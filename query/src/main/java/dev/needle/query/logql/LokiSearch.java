package dev.needle.query.logql;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TagsResult;
import dev.needle.query.engine.TimeRange;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs a log query over the engine: the keys in the range ({@link QueryEngine#logTags}, read only when
 * the query has an equality a lookup can decide) make the {@link LogQlPruning}; the engine's lookup by that finds the candidates (by trace id through
 * TRACE_IDX when the query names one), and the query itself judges them.
 *
 * <p>Backward (newest first), the lookup is asked for {@code limit} records, and four times as many
 * again while the query keeps fewer than the limit and more may be found. Forward (oldest first),
 * the range is read in windows from its start, each twice as long as the one before, until the
 * limit is met: the engine finds newest first, and the oldest entries are in the first windows.
 */
public final class LokiSearch {

    /** The first forward window is this fraction of the range. */
    private static final int FIRST_WINDOWS = 64;

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
        Set<String> problems = new LinkedHashSet<>();
        Set<String> keys = Set.of();
        if (LogQlPruning.needsKeys(query)) {
            TagsResult tags = engine.logTags(tenant, range, key -> false);
            problems.addAll(tags.problems());
            keys = tags.tags().keys().keySet();
        }
        LogQlPruning pruning = LogQlPruning.of(query, keys);
        List<Explain> plans = new ArrayList<>();
        if (pruning.nothing()) {
            return new Result(List.of(), List.copyOf(problems), plans);
        }
        List<LokiEntry> found;
        if (pruning.traceId() != null) {
            SearchResult<LogRecord> logs = engine.traceLogs(tenant, pruning.traceId(), range, mechanisms);
            problems.addAll(logs.problems());
            plans.add(logs.plan());
            found = judge(query, logs.records());
        } else if (forward) {
            found = forward(tenant, query, pruning, range, limit, mechanisms, problems, plans);
        } else {
            found = backward(tenant, query, pruning, range, limit, mechanisms, problems, plans);
        }
        Comparator<LokiEntry> byTime = Comparator.comparingLong(LokiEntry::timeUnixNano);
        found.sort(forward ? byTime : byTime.reversed());
        return new Result(List.copyOf(found.subList(0, Math.min(limit, found.size()))), List.copyOf(problems), plans);
    }

    private List<LokiEntry> backward(TenantId tenant, LogQl.LogQuery query, LogQlPruning pruning, TimeRange range,
                                     int limit, Mechanisms mechanisms, Set<String> problems, List<Explain> plans)
            throws IOException {
        int ask = limit;
        while (true) {
            SearchResult<LogRecord> logs = engine.searchLogs(tenant, pruning.expr(), range, ask, mechanisms);
            plans.add(logs.plan());
            List<LokiEntry> kept = judge(query, logs.records());
            if (kept.size() >= limit || logs.records().size() < ask || ask == Integer.MAX_VALUE) {
                problems.addAll(logs.problems());
                return kept;
            }
            ask = (int) Math.min(Integer.MAX_VALUE, ask * 4L);
        }
    }

    private List<LokiEntry> forward(TenantId tenant, LogQl.LogQuery query, LogQlPruning pruning, TimeRange range,
                                    int limit, Mechanisms mechanisms, Set<String> problems, List<Explain> plans)
            throws IOException {
        List<LokiEntry> kept = new ArrayList<>();
        long width = Math.max(1, (range.toUnixNano() - range.fromUnixNano()) / FIRST_WINDOWS);
        long from = range.fromUnixNano();
        while (kept.size() < limit) {
            long to = range.toUnixNano() - from < width ? range.toUnixNano() : from + width - 1;
            SearchResult<LogRecord> logs = engine.searchLogs(tenant, pruning.expr(), new TimeRange(from, to),
                    Integer.MAX_VALUE, mechanisms);
            plans.add(logs.plan());
            problems.addAll(logs.problems());
            kept.addAll(judge(query, logs.records()));
            if (to == range.toUnixNano()) {
                break;
            }
            from = to + 1;
            width = width > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : width * 2;
        }
        return kept;
    }

    private static List<LokiEntry> judge(LogQl.LogQuery query, List<LogRecord> records) {
        List<LokiEntry> kept = new ArrayList<>();
        for (LogRecord r : records) {
            LokiEntry e = LokiEntry.of(r);
            Map<String, String> parsed = query.parsed(e);
            if (parsed != null) {
                kept.add(parsed.isEmpty() ? e : e.withParsed(parsed));
            }
        }
        return kept;
    }
}
