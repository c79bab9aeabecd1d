package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.blocks.otlp.ProtobufJavaEncode;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoding {@value #RECORDS} spans or log records of the corpus {@code ./needle gen} sends (its
 * default batch) as one OTLP protobuf request, as the write-ahead log, the trace API and the sender
 * do. {@code wire}: {@link OtlpWireWriter}, straight from the records into an exact byte array.
 * {@code protobufJava}: protobuf-java's messages built from the records and then serialized
 * ({@link ProtobufJavaEncode}), as needle encoded before. Throughput is records per second on one
 * thread; {@code -prof gc} gives the allocation per record ({@code gc.alloc.rate.norm}).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar OtlpEncode -f 1 -wi 2 -i 5 -prof gc}
 * (or {@code ./needle bench jmh OtlpEncode -f 1 -wi 2 -i 5 -prof gc}).
 *
 * <p>The setup checks that both encoders give the same bytes; every invocation checks the length.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@OperationsPerInvocation(OtlpEncodeBenchmark.RECORDS)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class OtlpEncodeBenchmark {

    static final int RECORDS = 1_000;

    /** {@code spans}: an ExportTraceServiceRequest. {@code logs}: an ExportLogsServiceRequest. */
    @Param({"spans", "logs"})
    public String signal;

    /** {@code wire}: OtlpWireWriter. {@code protobufJava}: protobuf-java's messages, serialized. */
    @Param({"wire", "protobufJava"})
    public String encoder;

    private Function<List<?>, byte[]> encode;
    private List<?> records;
    private int length;

    @Setup
    @SuppressWarnings("unchecked")
    public void setUp() {
        Corpus corpus = new Corpus(CorpusSpec.defaults(10L * RECORDS, 10L * RECORDS));
        boolean spans = signal.equals("spans");
        Verify.that(spans || signal.equals("logs"), "signal %s is not spans or logs", signal);
        Verify.that(encoder.equals("wire") || encoder.equals("protobufJava"), "encoder %s is not wire or protobufJava", encoder);
        records = spans ? corpus.spans(0).records() : corpus.logs(0).records();
        Verify.that(records.size() >= RECORDS, "the corpus's first chunk holds %d records, not %d", records.size(), RECORDS);
        records = records.subList(0, RECORDS);
        Function<List<?>, byte[]> wire = spans ? r -> OtlpWireWriter.encodeSpans((List<SpanRecord>) r)
                : r -> OtlpWireWriter.encodeLogs((List<LogRecord>) r);
        Function<List<?>, byte[]> reference = spans ? r -> ProtobufJavaEncode.spans((List<SpanRecord>) r).toByteArray()
                : r -> ProtobufJavaEncode.logs((List<LogRecord>) r).toByteArray();
        byte[] expected = reference.apply(records);
        Verify.that(Arrays.equals(wire.apply(records), expected), "OtlpWireWriter and protobuf-java encode differently");
        length = expected.length;
        encode = encoder.equals("wire") ? wire : reference;
    }

    @Benchmark
    public byte[] encode() {
        byte[] body = encode.apply(records);
        Verify.that(body.length == length, "encoded %d bytes, not %d", body.length, length);
        return body;
    }
}
