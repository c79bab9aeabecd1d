package dev.needle.ingest.head;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.HeapEstimate;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.blocks.write.WrittenBlock;
import dev.needle.ingest.wal.WalEntry;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/** The accepted records of one request or write-ahead log entry: spans or log records, never both. */
public sealed interface Records {

    /** Which signal the records are. */
    Signal signal();

    /** How many records. */
    int size();

    /** The heap bytes the records and their trace id hashes hold, estimated (see {@link HeapEstimate}): what the head's bound counts. */
    long heapBytes();

    /**
     * Each record's trace id hash ({@link Bytes#hashCode}), in order: what a trace
     * lookup in the head compares first. Taken where the records are decoded, while their ids are in that
     * core's cache, and not on the write-ahead log's thread under the head's lock.
     */
    int[] traceHashes();

    /** Records {@code from} (inclusive) to {@code to} (exclusive) of these, holding {@code heapBytes}. */
    Records slice(int from, int to, long heapBytes);

    /** The records as the write-ahead log stores them: an OTLP export request of their signal, serialized. */
    byte[] encode();

    /** Writes the records as one block, with id {@code id}. */
    WrittenBlock writeBlock(BlockWriter writer, TenantId tenant, String id) throws IOException;

    /** The records of a write-ahead log entry, whose payload {@link #encode} or a receiver wrote. */
    static Records decode(WalEntry entry) throws IOException {
        return switch (entry.signal()) {
            case SPANS -> Spans.of(OtlpWire.decodeSpans(entry.payload(), entry.payloadLength()).records());
            case LOGS -> Logs.of(OtlpWire.decodeLogs(entry.payload(), entry.payloadLength()).records());
        };
    }

    /** Spans, the heap bytes they hold and their trace id hashes. */
    record Spans(List<SpanRecord> list, long heapBytes, int[] traceHashes) implements Records {

        /** These spans, their heap bytes estimated and their trace ids hashed. */
        public static Spans of(List<SpanRecord> list) {
            return new Spans(list, HeapEstimate.spans(list) + HeapEstimate.traceHashes(list.size()),
                    hashes(list, SpanRecord::traceId));
        }

        @Override
        public Spans slice(int from, int to, long heapBytes) {
            return new Spans(list.subList(from, to), heapBytes, Arrays.copyOfRange(traceHashes, from, to));
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

    /** Log records, the heap bytes they hold and their trace id hashes. */
    record Logs(List<LogRecord> list, long heapBytes, int[] traceHashes) implements Records {

        /** These log records, their heap bytes estimated and their trace ids hashed. */
        public static Logs of(List<LogRecord> list) {
            return new Logs(list, HeapEstimate.logs(list) + HeapEstimate.traceHashes(list.size()),
                    hashes(list, LogRecord::traceId));
        }

        @Override
        public Logs slice(int from, int to, long heapBytes) {
            return new Logs(list.subList(from, to), heapBytes, Arrays.copyOfRange(traceHashes, from, to));
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

    private static <R> int[] hashes(List<R> records, Function<R, Bytes> traceId) {
        int[] out = new int[records.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = traceId.apply(records.get(i)).hashCode();
        }
        return out;
    }
}
