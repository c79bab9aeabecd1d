package dev.needle.query.engine;

import dev.needle.query.traceql.TimeSeries;
import java.util.List;

/**
 * The series a TraceQL metrics query computed.
 *
 * @param series   the series, by their labels' text
 * @param problems one message per block that could not be read: the answer is partial when any
 * @param plans    the span search's plan, then each trace lookup's when the query needed traces whole
 */
public record MetricsResult(List<TimeSeries> series, List<String> problems, List<Explain> plans) {

    public MetricsResult {
        series = List.copyOf(series);
        problems = List.copyOf(problems);
        plans = List.copyOf(plans);
    }
}
