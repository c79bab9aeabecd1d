package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.QueryBudget;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Loki's index statistics of a selector over a range ({@code pkg/storage/stores/index/stats}):
 *
 * <pre>
 * /loki/api/v1/index/stats   query, start, end, since:   {"streams":N,"chunks":N,"entries":N,"bytes":N}
 * </pre>
 *
 * <p>Counted on the entries a metric query reads ({@link LokiSearch#visit}), so exact where Loki's index
 * estimates: {@code streams} the distinct label sets, {@code entries} the entries, {@code bytes} their lines'
 * bytes. needle has no chunks; {@code chunks} is what stands in for them, the blocks that held a matching
 * entry, and one more when the head (records not yet in a block) did.
 */
final class LokiStats {

    /** What a distinct stream's labels hold, counted in the query's budget. */
    private static final long STREAM_BYTES = 512;

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    LokiStats(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** {@code /loki/api/v1/index/stats}. */
    ApiReply answer(TenantId tenant, Params params, long now) throws ApiException, IOException {
        LogQl.LogQuery selector = LokiLabels.selector(params.string("query"));
        TimeRange range = LokiParams.range(params, now, LokiParams.QUERY_SINCE);
        long started = System.nanoTime();
        Set<Map<String, String>> streams = new HashSet<>();
        long[] counted = new long[2];
        LokiSearch.Visited found;
        try (QueryBudget budget = engine.budget()) {
            found = new LokiSearch(engine).visit(tenant, selector, range, params.mechanisms(), budget, e -> {
                synchronized (streams) {
                    if (streams.add(e.labels())) {
                        budget.reserve(STREAM_BYTES);
                    }
                    counted[0]++;
                    counted[1] += e.line().getBytes(StandardCharsets.UTF_8).length;
                }
            });
        }
        metrics.record(QueryMetrics.Kind.LOGS, System.nanoTime() - started, found.plans());
        long chunks = 0;
        for (Explain plan : found.plans()) {
            Explain.Totals t = plan.totals();
            chunks += t.opened() - t.openedForNothing() + (t.headMatched() > 0 ? 1 : 0);
        }
        long streamCount = streams.size();
        long entries = counted[0];
        long chunkCount = chunks;
        long byteCount = counted[1];
        ApiReply reply = JsonReplies.object(200, g -> {
            g.writeNumberField("streams", streamCount);
            g.writeNumberField("chunks", chunkCount);
            g.writeNumberField("entries", entries);
            g.writeNumberField("bytes", byteCount);
        });
        return LokiReplies.withHeaders(reply, found.problems(), found.plans());
    }
}
