package dev.needle.query.cli;

import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.engine.TraceSearchResult;
import dev.needle.query.tempo.SearchEndpoint;

/**
 * One trace of a search's answer, in Grafana Tempo's shape: Tempo's {@code /api/search} answers
 * matching traces, named by their root span, rather than the matching spans themselves.
 *
 * @param traceId           the trace id in hex
 * @param rootServiceName   the service of the trace's root span, as the server names it
 * @param rootTraceName     the name of the trace's root span
 * @param startTimeUnixNano when the trace started
 * @param durationMs        how long it lasted, in milliseconds
 */
record TraceSummary(String traceId, String rootServiceName, String rootTraceName, long startTimeUnixNano,
                    long durationMs) {

    /** A trace a search found in a data directory, summed up as the server's search sums it up. */
    static TraceSummary of(TraceSearchResult.Match trace) {
        SpanRecord root = trace.root();
        return new TraceSummary(trace.traceId().hex(), SearchEndpoint.rootServiceName(trace),
                root == null ? "" : root.name(), trace.startUnixNano(), SearchEndpoint.durationMs(trace));
    }
}
