package dev.needle.query.engine;

import dev.needle.query.traceql.Spanset;
import java.util.List;

/**
 * The traces a TraceQL span query matched, each whole with the spansets the query found in it.
 *
 * @param traces   the matching traces, newest first as the search found them, at most the limit
 * @param problems one message per block that could not be read: the answer is partial when any
 * @param plans    the candidate search's plan, then each candidate trace lookup's
 */
public record TraceQlResult(List<Match> traces, List<String> problems, List<Explain> plans) {

    public TraceQlResult {
        traces = List.copyOf(traces);
        problems = List.copyOf(problems);
        plans = List.copyOf(plans);
    }

    /** A matching trace, whole, and its spansets (never empty). */
    public record Match(TraceSearchResult.Match trace, List<Spanset> spansets) {
        public Match {
            spansets = List.copyOf(spansets);
        }
    }
}
