package dev.needle.query.engine;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.util.List;

/**
 * Every span (and, when asked, every log record) of one trace, from the blocks and the head.
 *
 * @param spans    the spans, by start time, without duplicates
 * @param logs     the log records, by event time; empty unless asked for
 * @param problems one message per block that could not be read: the answer is partial when any
 * @param spanPlan the EXPLAIN of the spans lookup
 * @param logPlan  the EXPLAIN of the logs lookup, or null when logs were not asked for
 */
public record TraceResult(List<SpanRecord> spans, List<LogRecord> logs, List<String> problems,
                          Explain spanPlan, Explain logPlan) {

    public TraceResult {
        spans = List.copyOf(spans);
        logs = List.copyOf(logs);
        problems = List.copyOf(problems);
    }

    /** Whether some block could not be read, so that the answer may miss records. */
    public boolean partial() {
        return !problems.isEmpty();
    }
}
