package dev.needle.query.engine;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.HeapEstimate;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * How one signal's records are decoded from a batch, told apart and weighed: what every
 * {@link Target} of that signal shares.
 *
 * @param decoder   binds a full batch for decoding matched rows
 * @param identity  what makes two records one, or null when every record counts: spans by (trace id,
 *                  span id), so that a span a client sent twice (a retry after a lost reply) counts once,
 *                  as Tempo merges it; log records have no id
 * @param heapBytes the heap one decoded record holds, as a query's budget counts it
 */
record RecordKind<R>(Function<VectorSchemaRoot, Target.RowDecoder<R>> decoder, Function<R, Object> identity,
                     ToLongFunction<R> heapBytes) {

    private record SpanKey(Bytes traceId, Bytes spanId) {
    }

    static final RecordKind<SpanRecord> SPANS = new RecordKind<>(batch -> new SpanColumns(batch)::read,
            s -> new SpanKey(s.traceId(), s.spanId()), HeapEstimate::span);
    static final RecordKind<LogRecord> LOGS = new RecordKind<>(batch -> new LogColumns(batch)::read, null,
            HeapEstimate::log);
}
