package dev.needle.ingest.head;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpProto;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.List;

/** The accepted records of one request or write-ahead log entry: spans or log records, never both. */
public sealed interface Records {

    /** Which signal the records are. */
    Signal signal();

    /** How many records. */
    int size();

    /** The records as the write-ahead log stores them: an OTLP export request of their signal, serialized. */
    byte[] encode();

    /** The records of a write-ahead log payload written by {@link #encode}. */
    static Records decode(Signal signal, byte[] payload) throws IOException {
        return switch (signal) {
            case SPANS -> new Spans(OtlpProto.decodeSpans(OtlpProto.parseSpans(new ByteArrayInputStream(payload))).records());
            case LOGS -> new Logs(OtlpProto.decodeLogs(OtlpProto.parseLogs(new ByteArrayInputStream(payload))).records());
        };
    }

    /** Spans. */
    record Spans(List<SpanRecord> list) implements Records {
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
            return OtlpProto.encodeSpans(list).toByteArray();
        }
    }

    /** Log records. */
    record Logs(List<LogRecord> list) implements Records {
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
            return OtlpProto.encodeLogs(list).toByteArray();
        }
    }
}
