package dev.needle.query.engine;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * How one signal's records are decoded from a batch and counted once: what every {@link Target} of
 * that signal shares.
 *
 * @param decoder binds a full batch for decoding matched rows
 * @param found   an empty set of found records of the signal
 */
record RecordKind<R>(Function<VectorSchemaRoot, Target.RowDecoder<R>> decoder, Supplier<Found<R>> found) {

    static final RecordKind<SpanRecord> SPANS = new RecordKind<>(batch -> new SpanColumns(batch)::read, Found::spans);
    static final RecordKind<LogRecord> LOGS = new RecordKind<>(batch -> new LogColumns(batch)::read, Found::logs);
}
