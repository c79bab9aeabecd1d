package dev.needle.ingest.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.CodedInputStream;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.ingest.IngestLimits;
import dev.needle.ingest.IngestPipeline;
import dev.needle.ingest.Ingestor;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.ql.QueryParser;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;

/** An {@link OtlpReceiver} over a real {@link IngestPipeline} in a directory, reached through a LocalConnector. */
final class ReceiverFixture implements AutoCloseable {

    static final String PROTOBUF = "application/x-protobuf";
    static final String JSON = "application/json";
    /** Limits under which nothing is cut during a test: everything acknowledged stays in the head. */
    static final IngestLimits NO_CUTS = new IngestLimits(300_000, 100_000_000, 1L << 40, Duration.ofHours(1),
            1L << 31, 1L << 30, 64L << 20);

    final FsBlockStore store;
    final IngestPipeline pipeline;
    final PrometheusRegistry registry = new PrometheusRegistry();
    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);

    private ReceiverFixture(Path dir, IngestLimits limits, long maxBodyBytes, LongConsumer fsyncNanos,
                            Ingestor ingestor, DecodeBudget budget) throws Exception {
        store = new FsBlockStore(dir.resolve("data"));
        pipeline = IngestPipeline.open(store, dir.resolve("wal"), limits, fsyncNanos);
        server.addConnector(connector);
        server.setHandler(new OtlpReceiver(ingestor != null ? ingestor : pipeline, new ReceiverMetrics(registry),
                maxBodyBytes, budget));
        server.start();
    }

    private ReceiverFixture(Path dir, IngestLimits limits, long maxBodyBytes, LongConsumer fsyncNanos,
                            Ingestor ingestor) throws Exception {
        // Room to decode two bodies of the largest size at once.
        this(dir, limits, maxBodyBytes, fsyncNanos, ingestor,
                new DecodeBudget(2 * DecodeBudget.EXPANSION * Math.max(maxBodyBytes, 1L << 20), 10_000));
    }

    /** The receiver with its default body limit, decoding within {@code budget}. */
    static ReceiverFixture startWith(Path dir, DecodeBudget budget) throws Exception {
        return new ReceiverFixture(dir, NO_CUTS, budget.maxBodyBytes(), n -> { }, null, budget);
    }

    /** The receiver with its default body limit over a pipeline that does not cut. */
    static ReceiverFixture start(Path dir) throws Exception {
        return new ReceiverFixture(dir, NO_CUTS, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, n -> { }, null);
    }

    /** The receiver with {@code maxBodyBytes} over a pipeline with {@code limits}, reporting each fsync's time. */
    static ReceiverFixture start(Path dir, IngestLimits limits, long maxBodyBytes, LongConsumer fsyncNanos)
            throws Exception {
        return new ReceiverFixture(dir, limits, maxBodyBytes, fsyncNanos, null);
    }

    /** The receiver in front of {@code ingestor} instead of the pipeline (which is opened all the same). */
    static ReceiverFixture startWith(Path dir, Ingestor ingestor) throws Exception {
        return new ReceiverFixture(dir, NO_CUTS, OtlpReceiver.DEFAULT_MAX_BODY_BYTES, n -> { }, ingestor);
    }

    /** POSTs {@code body} with a Content-Length; {@code headers} are name, value pairs. */
    HttpTester.Response post(String path, String contentType, byte[] body, String... headers) throws Exception {
        return send(request("POST", path, contentType, body, null, headers));
    }

    /** POSTs {@code body} chunked in pieces of 8 KiB, with no Content-Length, as the OpenTelemetry SDK sends gzip. */
    HttpTester.Response postChunked(String path, String contentType, byte[] body, String... headers) throws Exception {
        List<byte[]> chunks = new ArrayList<>();
        for (int at = 0; at < body.length; at += 8192) {
            chunks.add(Arrays.copyOfRange(body, at, Math.min(body.length, at + 8192)));
        }
        return postChunks(path, contentType, chunks, headers);
    }

    /** POSTs the body made of {@code chunks}, one HTTP chunk each. */
    HttpTester.Response postChunks(String path, String contentType, List<byte[]> chunks, String... headers)
            throws Exception {
        return send(request("POST", path, contentType, null, chunks, headers));
    }

    /** Sends one whole HTTP/1.1 request and parses the reply. */
    HttpTester.Response send(byte[] request) throws Exception {
        ByteBuffer reply = connector.getResponse(ByteBuffer.wrap(request), 30, TimeUnit.SECONDS);
        if (reply == null) {
            throw new AssertionError("no reply within 30 s");
        }
        HttpTester.Response response = HttpTester.parseResponse(reply);
        if (response == null) {
            throw new AssertionError("an unparseable reply: " + StandardCharsets.ISO_8859_1.decode(reply));
        }
        return response;
    }

    /**
     * The bytes of a request: with {@code body} and a Content-Length, or else chunked as
     * {@code chunks}; {@code contentType} null leaves the header out; {@code headers} are name, value pairs.
     */
    static byte[] request(String method, String path, String contentType, byte[] body, List<byte[]> chunks,
                          String... headers) {
        StringBuilder head = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\nHost: test\r\n");
        if (contentType != null) {
            head.append("Content-Type: ").append(contentType).append("\r\n");
        }
        for (int i = 0; i < headers.length; i += 2) {
            head.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        head.append(body != null ? "Content-Length: " + body.length + "\r\n" : "Transfer-Encoding: chunked\r\n");
        head.append("\r\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(head.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (body != null) {
            out.writeBytes(body);
        } else {
            for (byte[] chunk : chunks) {
                out.writeBytes((Integer.toHexString(chunk.length) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.writeBytes(chunk);
                out.writeBytes("\r\n".getBytes(StandardCharsets.ISO_8859_1));
            }
            out.writeBytes("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        return out.toByteArray();
    }

    static byte[] gzip(byte[] bytes) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(bytes);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return out.toByteArray();
    }

    /**
     * A gzip body of {@code prefix} followed by {@code mebibytes} MiB of {@code fill}, built in
     * milliseconds: one deflate block of 1 MiB of {@code fill}, flushed to a byte boundary, is
     * repeated (its back references reach only bytes equal to {@code fill}), after a stored block
     * holding the prefix. 1 GiB of zeros comes to about 1 MB.
     */
    static byte[] bomb(byte[] prefix, byte fill, int mebibytes) {
        byte[] mib = new byte[1 << 20];
        Arrays.fill(mib, fill);
        Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
        deflater.setInput(mib);
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        byte[] buffer = new byte[1 << 16];
        int n;
        do {
            n = deflater.deflate(buffer, 0, buffer.length, Deflater.SYNC_FLUSH);
            block.write(buffer, 0, n);
        } while (n == buffer.length);
        deflater.end();
        CRC32 crc = new CRC32();
        crc.update(prefix);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
        // A stored block: BFINAL 0, BTYPE 00, then LEN and NLEN little-endian.
        out.writeBytes(new byte[] {0, (byte) prefix.length, (byte) (prefix.length >> 8), (byte) ~prefix.length,
                (byte) (~prefix.length >> 8)});
        out.writeBytes(prefix);
        for (int i = 0; i < mebibytes; i++) {
            out.writeBytes(block.toByteArray());
            crc.update(mib);
        }
        // An empty final block with fixed codes, then CRC-32 and the size mod 2^32, little-endian.
        out.writeBytes(new byte[] {3, 0});
        long size = prefix.length + ((long) mebibytes << 20);
        for (long v : new long[] {crc.getValue(), size}) {
            for (int i = 0; i < 4; i++) {
                out.write((int) (v >>> (8 * i)));
            }
        }
        return out.toByteArray();
    }

    /** A {@code google.rpc.Status} from an error reply. */
    record RpcStatus(int code, String message) {
    }

    /** The Status of an error reply, decoded as its Content-Type says. */
    static RpcStatus status(HttpTester.Response response) throws IOException {
        String type = response.get(HttpHeader.CONTENT_TYPE);
        byte[] body = response.getContentBytes();
        int code = 0;
        String message = "";
        if (JSON.equals(type)) {
            try (JsonParser p = new JsonFactory().createParser(body)) {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw new AssertionError("not a JSON object: " + new String(body, StandardCharsets.UTF_8));
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    switch (field) {
                        case "code" -> code = p.getIntValue();
                        case "message" -> message = p.getText();
                        default -> throw new AssertionError("unexpected Status field " + field);
                    }
                }
                if (p.nextToken() != null) {
                    throw new AssertionError("content after the Status object");
                }
            }
        } else if (PROTOBUF.equals(type)) {
            CodedInputStream in = CodedInputStream.newInstance(body);
            for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
                switch (tag) {
                    case 1 << 3 -> code = in.readInt32();
                    case 2 << 3 | 2 -> message = in.readStringRequireUtf8();
                    default -> throw new AssertionError("unexpected Status tag " + tag);
                }
            }
        } else {
            throw new AssertionError("an error reply with Content-Type " + type);
        }
        return new RpcStatus(code, message);
    }

    /** The Prometheus text of the receiver's metrics. */
    String metrics() throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The value of the series of {@code name} with the labels {@code labels} (name, value pairs); 0 when absent. */
    double metric(String name, String... labels) throws IOException {
        for (String line : metrics().split("\n")) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            boolean all = true;
            for (int i = 0; i < labels.length; i += 2) {
                all &= line.contains(labels[i] + "=\"" + labels[i + 1] + "\"");
            }
            if (all) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return 0;
    }

    /** Every span of {@code tenant}, from blocks and head, through the query engine. */
    List<SpanRecord> querySpans(TenantId tenant) throws Exception {
        try (QueryEngine engine = new QueryEngine(store, pipeline.head(), 1 << 20, 2)) {
            return engine.searchSpans(tenant, QueryParser.parse("{ }", Signal.SPANS), TimeRange.ALL, 1_000_000,
                    Mechanisms.ALL).records();
        }
    }

    /** Every log record of {@code tenant}, from blocks and head, through the query engine. */
    List<LogRecord> queryLogs(TenantId tenant) throws Exception {
        try (QueryEngine engine = new QueryEngine(store, pipeline.head(), 1 << 20, 2)) {
            return engine.searchLogs(tenant, QueryParser.parse("{ }", Signal.LOGS), TimeRange.ALL, 1_000_000,
                    Mechanisms.ALL).records();
        }
    }

    @Override
    public void close() throws Exception {
        try {
            server.stop();
        } finally {
            pipeline.close();
        }
    }
}
