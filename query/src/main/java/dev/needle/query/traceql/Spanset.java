package dev.needle.query.traceql;

import dev.needle.blocks.model.SpanRecord;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One spanset a span query found in a trace: its spans in the trace's order, and what the pipeline
 * recorded on it, such as {@code count()} → 3 or {@code by(resource.service.name)} → "api".
 */
public record Spanset(List<Spanset.Member> spans, Map<String, Value> attributes) {

    public Spanset {
        spans = List.copyOf(spans);
        attributes = Map.copyOf(attributes);
    }

    /**
     * A span of a spanset, with the values of the fields {@code select(…)} asked for (by their text,
     * such as {@code span.http.url}); a field the span does not have is left out.
     */
    public record Member(SpanRecord span, Map<String, Value> selected) {
        public Member {
            Objects.requireNonNull(span, "span");
            selected = Map.copyOf(selected);
        }
    }
}
