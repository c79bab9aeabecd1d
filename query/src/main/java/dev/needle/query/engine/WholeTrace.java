package dev.needle.query.engine;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.ql.TraceField;
import java.util.List;

/**
 * Every span of one trace, and what Tempo derives from them: the root span, the start and the
 * duration of the whole trace, the values of {@code trace:rootService}, {@code trace:rootName} and
 * {@code trace:duration}.
 *
 * @param spans every span of the trace found, in any order; not empty
 */
record WholeTrace(List<SpanRecord> spans) {

    WholeTrace {
        spans = List.copyOf(spans);
        if (spans.isEmpty()) {
            throw new IllegalArgumentException("a trace has at least one span");
        }
    }

    /**
     * The root span: a span without a parent, the earliest if a client sent several; null when
     * the trace has none (it has not arrived, or the trace started in another system).
     */
    SpanRecord root() {
        SpanRecord root = null;
        for (SpanRecord s : spans) {
            if (s.parentSpanId().isEmpty() && (root == null || s.startTimeUnixNano() < root.startTimeUnixNano())) {
                root = s;
            }
        }
        return root;
    }

    /** The earliest start of any span of the trace. */
    long startUnixNano() {
        return spans.stream().mapToLong(SpanRecord::startTimeUnixNano).min().orElseThrow();
    }

    /** From the earliest start to the latest end of any span of the trace. */
    long durationNano() {
        return spans.stream().mapToLong(SpanRecord::endTimeUnixNano).max().orElseThrow() - startUnixNano();
    }

    /**
     * The value of a {@code trace:} field ({@link TraceField}); null
     * when the trace has no root span (or the root no {@code service.name}), which no condition
     * accepts, as Tempo's nil.
     */
    AnyValue value(String field) {
        if (field.equals(TraceField.DURATION.word())) {
            return new AnyValue.Int(durationNano());
        }
        SpanRecord root = root();
        if (root == null) {
            return null;
        }
        if (field.equals(TraceField.ROOT_NAME.word())) {
            return new AnyValue.Str(root.name());
        }
        for (KeyValue kv : root.resource().attributes()) {
            if (kv.key().equals("service.name")) {
                return kv.value();
            }
        }
        return null;
    }
}
