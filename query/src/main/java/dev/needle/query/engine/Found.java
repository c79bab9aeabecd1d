package dev.needle.query.engine;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * The records one lookup has found, each once: spans by (trace id, span id), so that a span a
 * client sent twice (a retry after a lost reply) counts once, as Tempo merges it; log records
 * have no id, so each one counts.
 */
final class Found<R> {

    private record SpanKey(Bytes traceId, Bytes spanId) {
    }

    /** What makes two records one; null when every record counts. */
    private final Function<R, Object> key;
    private final Set<Object> seen = new HashSet<>();
    private final List<R> records = new ArrayList<>();

    private Found(Function<R, Object> key) {
        this.key = key;
    }

    static Found<SpanRecord> spans() {
        return new Found<>(s -> new SpanKey(s.traceId(), s.spanId()));
    }

    static Found<LogRecord> logs() {
        return new Found<>(null);
    }

    void add(R record) {
        if (key == null || seen.add(key.apply(record))) {
            records.add(record);
        }
    }

    void addAll(List<R> more) {
        more.forEach(this::add);
    }

    /** The records in the order they were found. */
    List<R> records() {
        return records;
    }
}
