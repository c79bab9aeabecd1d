package dev.needle.blocks;

import dev.needle.blocks.arrow.LogColumns;
import dev.needle.blocks.arrow.RecordColumns;
import dev.needle.blocks.arrow.SpanColumns;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.HeapEstimate;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpDecodeException;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.otlp.OtlpWireWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.ToLongFunction;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * One signal's records as the code that handles both signals alike sees them: their Arrow columns, their
 * OTLP decoders and encoders, the fields every record has, their heap. {@link #SPANS} and {@link #LOGS}
 * are the only two; code that is the same for both takes one of them instead of being written twice.
 *
 * @param <R> the record: {@link SpanRecord} or {@link LogRecord}
 */
public final class SignalKind<R> {

    /** Spans: a block's time is their start, and every span has a trace id. */
    public static final SignalKind<SpanRecord> SPANS = new SignalKind<>(Signal.SPANS, SpanRecord[]::new,
            SpanColumns.SCHEMA, SpanColumns::new, SpanRecord::resource, SpanRecord::scope, SpanRecord::traceId,
            SpanRecord::startTimeUnixNano, HeapEstimate::spans,
            OtlpWire::decodeSpans, OtlpWire::decodeSpans, OtlpJson::decodeSpans,
            OtlpWireWriter::encodeSpans, OtlpJson::encodeSpans);

    /** Log records: a block's time is their event time, and the trace id is empty when uncorrelated. */
    public static final SignalKind<LogRecord> LOGS = new SignalKind<>(Signal.LOGS, LogRecord[]::new,
            LogColumns.SCHEMA, LogColumns::new, LogRecord::resource, LogRecord::scope, LogRecord::traceId,
            LogRecord::eventTimeUnixNano, HeapEstimate::logs,
            OtlpWire::decodeLogs, OtlpWire::decodeLogs, OtlpJson::decodeLogs,
            OtlpWireWriter::encodeLogs, OtlpJson::encodeLogs);

    private final Signal signal;
    private final IntFunction<R[]> newArray;
    private final Schema schema;
    private final Function<VectorSchemaRoot, RecordColumns<R>> columns;
    private final Function<R, Resource> resource;
    private final Function<R, Scope> scope;
    private final Function<R, Bytes> traceId;
    private final ToLongFunction<R> time;
    private final ToLongFunction<List<R>> heapBytes;
    private final WireDecoder<R> wire;
    private final CountedWireDecoder<R> countedWire;
    private final JsonDecoder<R> json;
    private final Function<List<R>, byte[]> wireEncoder;
    private final JsonEncoder<R> jsonEncoder;

    private interface WireDecoder<R> {
        Decoded<R> decode(byte[] body, int length) throws OtlpDecodeException;
    }

    private interface CountedWireDecoder<R> {
        Decoded<R> decode(byte[] body, int length, long maxRecords) throws IOException;
    }

    private interface JsonDecoder<R> {
        Decoded<R> decode(InputStream body, long maxRecords) throws IOException;
    }

    private interface JsonEncoder<R> {
        void encode(List<R> records, OutputStream out) throws IOException;
    }

    private SignalKind(Signal signal, IntFunction<R[]> newArray, Schema schema,
                       Function<VectorSchemaRoot, RecordColumns<R>> columns, Function<R, Resource> resource,
                       Function<R, Scope> scope, Function<R, Bytes> traceId, ToLongFunction<R> time,
                       ToLongFunction<List<R>> heapBytes, WireDecoder<R> wire,
                       CountedWireDecoder<R> countedWire, JsonDecoder<R> json, Function<List<R>, byte[]> wireEncoder,
                       JsonEncoder<R> jsonEncoder) {
        this.signal = signal;
        this.newArray = newArray;
        this.schema = schema;
        this.columns = columns;
        this.resource = resource;
        this.scope = scope;
        this.traceId = traceId;
        this.time = time;
        this.heapBytes = heapBytes;
        this.wire = wire;
        this.countedWire = countedWire;
        this.json = json;
        this.wireEncoder = wireEncoder;
        this.jsonEncoder = jsonEncoder;
    }

    /** The kind of {@code signal}'s records. */
    public static SignalKind<?> of(Signal signal) {
        return switch (signal) {
            case SPANS -> SPANS;
            case LOGS -> LOGS;
        };
    }

    /** The signal these records are, which names their directory. */
    public Signal signal() {
        return signal;
    }

    /** The records in an array of their own type, in the list's order. */
    public R[] toArray(List<R> records) {
        return records.toArray(newArray.apply(0));
    }

    /** The Arrow schema of a block of these records. */
    public Schema schema() {
        return schema;
    }

    /** The columns of a batch of {@link #schema} in {@code root}, bound for writing or reading rows. */
    public RecordColumns<R> columns(VectorSchemaRoot root) {
        return columns.apply(root);
    }

    public Resource resource(R record) {
        return resource.apply(record);
    }

    public Scope scope(R record) {
        return scope.apply(record);
    }

    /** The record's trace id; empty for a log record not correlated with a trace. */
    public Bytes traceId(R record) {
        return traceId.apply(record);
    }

    /** The time a block's name and zone maps hold of the record: a span's start, a log record's event time. */
    public long time(R record) {
        return time.applyAsLong(record);
    }

    /** The heap bytes of these records, their list included ({@link HeapEstimate}). */
    public long heapBytes(List<R> records) {
        return heapBytes.applyAsLong(records);
    }

    /** The valid records of the first {@code length} bytes of an OTLP protobuf export request ({@link OtlpWire}). */
    public Decoded<R> decodeWire(byte[] body, int length) throws OtlpDecodeException {
        return wire.decode(body, length);
    }

    /** Like {@link #decodeWire(byte[], int)}, refusing a request of more than {@code maxRecords} records before decoding it. */
    public Decoded<R> decodeWire(byte[] body, int length, long maxRecords) throws IOException {
        return countedWire.decode(body, length, maxRecords);
    }

    /** The valid records of an OTLP JSON export request, refused past {@code maxRecords} records ({@link OtlpJson}). */
    public Decoded<R> decodeJson(InputStream body, long maxRecords) throws IOException {
        return json.decode(body, maxRecords);
    }

    /** The records as one OTLP protobuf export request ({@link OtlpWireWriter}). */
    public byte[] encodeWire(List<R> records) {
        return wireEncoder.apply(records);
    }

    /** Writes the records as one OTLP JSON export request ({@link OtlpJson}). */
    public void encodeJson(List<R> records, OutputStream out) throws IOException {
        jsonEncoder.encode(records, out);
    }
}
