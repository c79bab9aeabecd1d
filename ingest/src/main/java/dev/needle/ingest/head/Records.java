package dev.needle.ingest.head;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import java.io.IOException;
import java.util.List;

/** The accepted records of one request or write-ahead log entry: spans or log records, never both. */
public sealed interface Records {

    /** Which signal the records are. */
    Signal signal();

    /** How many records. */
    int size();

    /** The heap bytes the records hold, estimated (see {@link HeapEstimate}): what the head's bound counts. */
    long heapBytes();

    /** The records as the write-ahead log stores them: an OTLP export request of their signal, serialized. */
    byte[] encode();

    /** Writes the records as one block, with id {@code id}. */
    WrittenBlock writeBlock(BlockWriter writer, TenantId tenant, String id) throws IOException;

    /** The records of a write-ahead log payload written by {@link #encode}. */
    static Records decode(Signal signal, byte[] payload) throws IOException {
        return switch (signal) {
            case SPANS -> Spans.of(OtlpWire.decodeSpans(payload).records());
            case LOGS -> Logs.of(OtlpWire.decodeLogs(payload).records());
        };
    }

    /** Spans, and the heap bytes they hold. */
    record Spans(List<SpanRecord> list, long heapBytes) implements Records {

        /** These spans, their heap bytes estimated. */
        public static Spans of(List<SpanRecord> list) {
            return new Spans(list, HeapEstimate.spans(list));
        }

        @Override
        public Signal signal() {
            return Signal.SPANS;
        }

        @Override
        public int size() {
            return list.size();
        }

        @Override
        public byte[] encode() {
            return OtlpWireWriter.encodeSpans(list);
        }

        @Override
        public WrittenBlock writeBlock(BlockWriter writer, TenantId tenant, String id) throws IOException {
            return writer.writeSpans(tenant, list, id);
        }
    }

    /** Log records, and the heap bytes they hold. */
    record Logs(List<LogRecord> list, long heapBytes) implements Records {

        /** These log records, their heap bytes estimated. */
        public static Logs of(List<LogRecord> list) {
            return new Logs(list, HeapEstimate.logs(list));
        }

        @Override
        public Signal signal() {
            return Signal.LOGS;
        }

        @Override
        public int size() {
            return list.size();
        }

        @Override
        public byte[] encode() {
            return OtlpWireWriter.encodeLogs(list);
        }

        @Override
        public WrittenBlock writeBlock(BlockWriter writer, TenantId tenant, String id) throws IOException {
            return writer.writeLogs(tenant, list, id);
        }
    }
}
