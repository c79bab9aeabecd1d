package dev.needle.bench;

import dev.needle.bench.server.JavaLaunch;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpDecodeException;
import dev.needle.blocks.otlp.OtlpWire;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.blocks.otlp.ProtobufJavaDecode;
import dev.needle.corpus.Corpus;
import dev.needle.corpus.CorpusSpec;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * Decoding one OTLP/HTTP protobuf request of {@value #RECORDS} spans or log records of the corpus
 * {@code ./needle gen} sends (its default batch), into needle's records with their rejections.
 * {@code wire}: {@link OtlpWire}, the receiver's decoder, from the wire bytes straight into records.
 * {@code protobufJava}: protobuf-java's parser, then the conversion of its messages to records
 * ({@link ProtobufJavaDecode}), as the receiver decoded before. Throughput is records per second on
 * one thread; {@code -prof gc} gives the allocation per record ({@code gc.alloc.rate.norm}).
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar OtlpDecode -f 1 -wi 3 -i 5 -prof gc}
 * (or {@code ./needle bench jmh OtlpDecode -f 1 -wi 3 -i 5 -prof gc}).
 *
 * <p>The setup checks that both decoders give the same records; every invocation checks that all
 * {@value #RECORDS} were kept.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {JavaLaunch.ADD_OPENS, "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@OperationsPerInvocation(OtlpDecodeBenchmark.RECORDS)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class OtlpDecodeBenchmark {

    static final int RECORDS = 1_000;

    /** {@code spans}: an ExportTraceServiceRequest. {@code logs}: an ExportLogsServiceRequest. */
    @Param({"spans", "logs"})
    public String signal;

    /** {@code wire}: OtlpWire. {@code protobufJava}: protobuf-java's parser and the conversion. */
    @Param({"wire", "protobufJava"})
    public String decoder;

    private byte[] body;
    private Decoder decode;

    /** One way of decoding a request body. */
    private interface Decoder {
        Decoded<?> decode(byte[] body) throws OtlpDecodeException;
    }

    @Setup
    public void setUp() throws OtlpDecodeException {
        Corpus corpus = new Corpus(CorpusSpec.defaults(10L * RECORDS, 10L * RECORDS));
        boolean spans = signal.equals("spans");
        Verify.that(spans || signal.equals("logs"), "signal %s is not spans or logs", signal);
        Verify.that(decoder.equals("wire") || decoder.equals("protobufJava"), "decoder %s is not wire or protobufJava", decoder);
        List<?> records = spans ? corpus.spans(0).records() : corpus.logs(0).records();
        Verify.that(records.size() >= RECORDS, "the corpus's first chunk holds %d records, not %d", records.size(), RECORDS);
        body = spans ? OtlpWireWriter.encodeSpans(corpus.spans(0).records().subList(0, RECORDS))
                : OtlpWireWriter.encodeLogs(corpus.logs(0).records().subList(0, RECORDS));
        Decoder wire = spans ? OtlpWire::decodeSpans : OtlpWire::decodeLogs;
        Decoder reference = spans ? ProtobufJavaDecode::spans : ProtobufJavaDecode::logs;
        Verify.that(wire.decode(body).equals(reference.decode(body)), "OtlpWire and protobuf-java decode differently");
        decode = decoder.equals("wire") ? wire : reference;
    }

    @Benchmark
    public Decoded<?> decode() throws OtlpDecodeException {
        Decoded<?> decoded = decode.decode(body);
        Verify.that(decoded.records().size() == RECORDS, "kept %d of %d records", decoded.records().size(), RECORDS);
        return decoded;
    }
}
