package dev.needle.bench;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockStore;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.engine.TraceResult;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Trace-by-id lookups as the server runs them ({@link QueryEngine#trace} over a store), one trace
 * at a time in turn, each answer checked against the spans the store was written from: what the
 * trace fetch benchmarks time.
 */
final class TraceFetch implements AutoCloseable {

    /** How many traces are fetched in turn: a power of two. */
    static final int TRACES_PROBED = 256;
    /** Holds the TRACE_IDX of a 300,000-span block, so that it is read once, as on a serving process. */
    private static final long SIDECAR_CACHE_BYTES = 1 << 20;

    private final QueryEngine engine;
    private final Bytes[] traceIds = new Bytes[TRACES_PROBED];
    private final List<List<SpanRecord>> expected = new ArrayList<>(TRACES_PROBED);
    private int next;
    private long fetches;
    private long bytes;

    /**
     * An engine over {@code store}, whose blocks were written from {@code spans}; the traces fetched
     * are those of spans spread evenly over {@code spans}.
     */
    TraceFetch(BlockStore store, List<SpanRecord> spans) {
        Map<Bytes, List<SpanRecord>> byTrace = new HashMap<>();
        for (int i = 0; i < TRACES_PROBED; i++) {
            traceIds[i] = spans.get(i * (spans.size() / TRACES_PROBED)).traceId();
            byTrace.put(traceIds[i], new ArrayList<>());
        }
        for (SpanRecord s : spans) {
            List<SpanRecord> trace = byTrace.get(s.traceId());
            if (trace != null) {
                trace.add(s);
            }
        }
        for (Bytes id : traceIds) {
            List<SpanRecord> trace = new ArrayList<>(byTrace.get(id));
            // The engine's order: by start time, ties in the order they were written.
            trace.sort(Comparator.comparingLong(SpanRecord::startTimeUnixNano));
            expected.add(trace);
        }
        engine = new QueryEngine(store, HeadSource.EMPTY, SIDECAR_CACHE_BYTES, 1);
    }

    /** Fetches the next trace and fails unless the answer is complete and exactly that trace's spans. */
    TraceResult next() throws IOException {
        int i = next++ & (TRACES_PROBED - 1);
        TraceResult result = engine.trace(TenantId.DEFAULT, traceIds[i], TimeRange.ALL, Mechanisms.ALL, false);
        Verify.that(!result.partial(), "trace %s: %s", traceIds[i], result.problems());
        Verify.that(result.spans().equals(expected.get(i)), "trace %s: %d spans, not the %d written", traceIds[i],
                result.spans().size(), expected.get(i).size());
        bytes += result.spanPlan().totals().bytesRead();
        fetches++;
        return result;
    }

    /** The bytes read per fetch (sidecar, meta.json, footer, batches) since the last call; 0 when none. */
    double bytesPerFetch() {
        double perFetch = fetches == 0 ? 0 : (double) bytes / fetches;
        bytes = 0;
        fetches = 0;
        return perFetch;
    }

    /** Stops the engine. */
    @Override
    public void close() {
        engine.close();
    }
}
