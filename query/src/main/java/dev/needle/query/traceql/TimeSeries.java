package dev.needle.query.traceql;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One series of a metrics query: its labels in order (the {@code by()} fields by their text, and
 * Tempo's {@code p}, {@code __bucket} and {@code __meta_type}), and its points, which exist only
 * where the series has a value.
 */
public record TimeSeries(Map<String, Value> labels, List<TimeSeries.Point> points) {

    public TimeSeries {
        labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
        points = List.copyOf(points);
    }

    /** A value at a time: the end of its step, in Unix nanoseconds. */
    public record Point(long timestampNanos, double value) {
    }
}
