package dev.needle.query.traceql;

import java.util.Map;
import java.util.Objects;

/** A parsed TraceQL query: a span query or a metrics query, with its {@code with(…)} hints. */
public sealed interface Query {

    /** The {@code with(name=value, …)} hints by name, such as {@code sample} → 0.1; empty without any. Accepted, and left to the caller. */
    Map<String, Value> hints();

    /** A query for spansets, such as {@code { status = error } >> { name = "db" } | select(span.http.url)}. */
    record Spans(SpansetExpr expr, Map<String, Value> hints) implements Query {
        public Spans {
            Objects.requireNonNull(expr, "expr");
            hints = Map.copyOf(hints);
        }

        @Override
        public String toString() {
            return expr + Query.hintsText(hints);
        }
    }

    /** A query for time series, such as {@code { } | rate() by (resource.service.name)}. */
    record Metrics(MetricsExpr expr, Map<String, Value> hints) implements Query {
        public Metrics {
            Objects.requireNonNull(expr, "expr");
            hints = Map.copyOf(hints);
        }

        @Override
        public String toString() {
            return expr + Query.hintsText(hints);
        }
    }

    private static String hintsText(Map<String, Value> hints) {
        if (hints.isEmpty()) {
            return "";
        }
        return " with(" + String.join(", ", hints.entrySet().stream().sorted(Map.Entry.comparingByKey())
                .map(e -> e.getKey() + "=" + e.getValue()).toList()) + ")";
    }
}
