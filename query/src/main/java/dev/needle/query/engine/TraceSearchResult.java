package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.SpanRecord;
import java.util.List;

/**
 * The traces a search found, each whole: what Tempo's search answers.
 *
 * @param traces   the traces, those with the newest matching spans first, at most the limit
 * @param problems one message per block that could not be read, by the search or by a trace's
 *                 lookup: the answer is partial when any
 * @param plans    the search's plan (of its last round, the one that answered), then each trace
 *                 lookup's, in the order of {@code traces}
 */
public record TraceSearchResult(List<Match> traces, List<String> problems, List<Explain> plans) {

    public TraceSearchResult {
        traces = List.copyOf(traces);
        problems = List.copyOf(problems);
        plans = List.copyOf(plans);
    }

    /** Whether some block could not be read, so that the answer may miss records. */
    public boolean partial() {
        return !problems.isEmpty();
    }

    /**
     * One trace that holds matching spans.
     *
     * @param traceId the trace
     * @param spans   every span of the trace, whatever the search's time range, by start time
     * @param matched the spans that match the query in the search's time range, by start time; never empty
     */
    public record Match(Bytes traceId, List<SpanRecord> spans, List<SpanRecord> matched) {

        public Match {
            spans = List.copyOf(spans);
            matched = List.copyOf(matched);
            if (matched.isEmpty()) {
                throw new IllegalArgumentException("trace " + traceId.hex() + " is found by no matching span");
            }
        }

        /** The root span: a span without a parent, the earliest if a client sent several; null when the trace has none. */
        public SpanRecord root() {
            return new WholeTrace(spans).root();
        }

        /** The earliest start of any span of the trace. */
        public long startUnixNano() {
            return new WholeTrace(spans).startUnixNano();
        }

        /** From the earliest start to the latest end of any span of the trace. */
        public long durationNano() {
            return new WholeTrace(spans).durationNano();
        }
    }
}
