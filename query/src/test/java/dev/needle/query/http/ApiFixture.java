package dev.needle.query.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.BlockRef;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.RootAllocator;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;

/**
 * Real blocks of two tenants in a directory, a real engine over them, and the API behind a
 * {@link LocalConnector}: requests go through Jetty's HTTP parsing without a socket.
 *
 * <p>Tenant A has four span blocks, one per minute from {@link #T0_SECONDS}, each with five
 * three-span traces (frontend root "GET /checkout", cart child, payment grandchild whose
 * {@code http.response.status_code} is the int 500 in each block's first trace, else 200), plus a
 * trace with a 64-bit id ({@link #shortId}), one without its root ({@link #rootless}), one whose
 * child lies in the next block ({@link #crossing}) and one whose id tenant B also has
 * ({@link #shared}). Each span has a correlated log record (severity 17 for the 500s, else 9) in
 * two log blocks. Tenant B has one span block (services b-api, b-db) and one log block (severity 13).
 */
public final class ApiFixture implements AutoCloseable {

    public static final TenantId A = TenantId.of("team-a");
    public static final TenantId B = TenantId.of("team-b");
    public static final long T0_SECONDS = 1_764_446_100L;
    public static final long T0 = T0_SECONDS * 1_000_000_000L;
    public static final long SECOND = 1_000_000_000L;
    public static final long MS = 1_000_000L;
    public static final int SPAN_BLOCKS_A = 4;

    public final RootAllocator allocator = new RootAllocator();
    public final FsBlockStore store;
    public final QueryEngine engine;
    public final PrometheusRegistry registry = new PrometheusRegistry();
    public final QueryMetrics metrics;
    public final Server server = new Server();
    public final LocalConnector connector = new LocalConnector(server);

    public final List<SpanRecord> spansA = new ArrayList<>();
    public final List<SpanRecord> spansB = new ArrayList<>();
    public final List<LogRecord> logsA = new ArrayList<>();
    public final List<LogRecord> logsB = new ArrayList<>();
    public final List<BlockRef> spanBlocksA = new ArrayList<>();
    public final List<BlockRef> logBlocksA = new ArrayList<>();
    /** The first trace of each of A's span blocks: the ones with a 500. */
    public final List<Bytes> failedTraces = new ArrayList<>();
    public final Bytes shortId = Bytes.fromHex("00000000000000001234abcd5678ef90");
    public final Bytes rootless;
    public final Bytes crossing;
    public final Bytes shared;

    private final SplittableRandom random = new SplittableRandom(42);
    private final Scope scope = new Scope("io.test", "1.0", List.of(), 0, "");

    public ApiFixture(Path dir) throws Exception {
        store = new FsBlockStore(dir);
        rootless = randomId();
        crossing = randomId();
        shared = randomId();
        BlockWriter writer = new BlockWriter(store, allocator, 4);
        List<SpanRecord> pendingLogsFor = new ArrayList<>();
        for (int b = 0; b < SPAN_BLOCKS_A; b++) {
            long minute = T0 + b * 60 * SECOND;
            List<SpanRecord> block = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Bytes id = randomId();
                if (i == 0) {
                    failedTraces.add(id);
                }
                block.addAll(trace(id, "frontend", "GET /checkout", minute + i * 10 * SECOND, 100 * MS, i == 0 ? 500 : 200));
            }
            switch (b) {
                case 0 -> {
                    block.addAll(trace(shortId, "frontend", "GET /short", minute + 55 * SECOND, 80 * MS, 200));
                    block.addAll(trace(shared, "frontend", "GET /shared", minute + 57 * SECOND, 60 * MS, 200));
                }
                case 1 -> {
                    List<SpanRecord> t = trace(rootless, "frontend", "GET /lost", minute + 55 * SECOND, 90 * MS, 200);
                    block.addAll(t.subList(1, t.size()));
                }
                case 2 -> block.add(span(crossing, "frontend", "GET /long", Bytes.EMPTY, minute + 55 * SECOND,
                        70 * SECOND, 200));
                default -> block.add(span(crossing, "cart", "add-to-cart", Bytes.fromHex("00000000000000aa"),
                        minute + 5 * SECOND, 10 * MS, 200));
            }
            spansA.addAll(block);
            spanBlocksA.add(writer.writeSpans(A, block).ref());
            pendingLogsFor.addAll(block);
            if (b % 2 == 1) {
                List<LogRecord> logs = pendingLogsFor.stream().map(s -> log(s, hasStatus500(s) ? 17 : 9)).toList();
                logsA.addAll(logs);
                logBlocksA.add(writer.writeLogs(A, logs).ref());
                pendingLogsFor.clear();
            }
        }
        spansB.addAll(trace(shared, "b-api", "GET /b-shared", T0 + 57 * SECOND, 60 * MS, 200));
        spansB.addAll(trace(randomId(), "b-api", "GET /b", T0 + 10 * SECOND, 40 * MS, 200));
        spansB.addAll(trace(randomId(), "b-db", "SELECT", T0 + 20 * SECOND, 20 * MS, 500));
        writer.writeSpans(B, spansB);
        logsB.addAll(spansB.stream().map(s -> log(s, 13)).toList());
        writer.writeLogs(B, logsB);

        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2);
        metrics = new QueryMetrics(registry, engine);
        server.addConnector(connector);
        server.setHandler(new QueryApi(engine, metrics));
        server.start();
    }

    /** GET {@code uri} (sent as written) with header name/value pairs. */
    public HttpTester.Response get(String uri, String... headers) throws Exception {
        return request("GET", uri, headers);
    }

    /** A request with any method; the request line and headers are written as given, so that odd URIs reach Jetty. */
    public HttpTester.Response request(String method, String uri, String... headers) throws Exception {
        return send(connector, method, uri, headers);
    }

    /** Sends a request through {@code connector} and parses the response (a HEAD response has no body). */
    public static HttpTester.Response send(LocalConnector connector, String method, String uri, String... headers)
            throws Exception {
        StringBuilder request = new StringBuilder(method).append(' ').append(uri).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\nConnection: close\r\n");
        for (int i = 0; i < headers.length; i += 2) {
            request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        }
        request.append("\r\n");
        ByteBuffer response = connector.getResponse(ByteBuffer.wrap(request.toString().getBytes(StandardCharsets.ISO_8859_1)));
        return method.equals("HEAD") ? HttpTester.parseHeadResponse(response) : HttpTester.parseResponse(response);
    }

    /** Cuts the end off a block's data.arrow, so that it cannot be read. */
    public void truncateData(BlockRef block) throws IOException {
        Path data = store.blockDir(block).resolve("data.arrow");
        byte[] bytes = Files.readAllBytes(data);
        Files.write(data, Arrays.copyOf(bytes, bytes.length - 100));
    }

    /** A's spans of one trace. */
    public List<SpanRecord> spansOf(Bytes traceId) {
        return spansA.stream().filter(s -> s.traceId().equals(traceId)).toList();
    }

    /** The message of an error reply: plain text, as Tempo's are. */
    public static String error(HttpTester.Response r) {
        assertEquals("text/plain; charset=utf-8", r.get("Content-Type"));
        return r.getContent();
    }

    /** {@code s} encoded for a query string. */
    public static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    public static boolean hasStatus500(SpanRecord s) {
        return s.attributes().contains(KeyValue.of("http.response.status_code", 500));
    }

    @Override
    public void close() throws Exception {
        server.stop();
        engine.close();
        allocator.close();
    }

    private List<SpanRecord> trace(Bytes id, String service, String name, long start, long duration, int status) {
        SpanRecord root = span(id, service, name, Bytes.EMPTY, start, duration, 200);
        SpanRecord child = span(id, service.equals("frontend") ? "cart" : service, "add-to-cart", root.spanId(),
                start + 10 * MS, duration / 2, 200);
        SpanRecord grandchild = span(id, service.equals("frontend") ? "payment" : service, "charge", child.spanId(),
                start + 20 * MS, duration / 4, status);
        return List.of(root, child, grandchild);
    }

    private SpanRecord span(Bytes traceId, String service, String name, Bytes parent, long start, long duration,
                            int status) {
        byte[] spanId = new byte[8];
        random.nextBytes(spanId);
        spanId[0] |= 1;
        Resource resource = new Resource(List.of(KeyValue.of("service.name", service)), 0, "");
        List<KeyValue> attributes = List.of(KeyValue.of("http.response.status_code", status),
                KeyValue.of("user.id", "u" + random.nextInt(100)), new KeyValue("cache.hit", AnyValue.of(true)));
        return SpanRecord.builder().resource(resource).scope(scope).traceId(traceId).spanId(Bytes.wrap(spanId))
                .parentSpanId(parent).flags(1).name(name).kind(2).startTimeUnixNano(start)
                .endTimeUnixNano(start + duration).attributes(attributes).statusCode(status == 500 ? 2 : 0).build();
    }

    private LogRecord log(SpanRecord s, int severity) {
        return LogRecord.builder().resource(s.resource()).scope(scope).timeUnixNano(s.startTimeUnixNano() + 1)
                .observedTimeUnixNano(s.startTimeUnixNano() + 2).severityNumber(severity)
                .body(AnyValue.of("handled " + s.name())).attributes(List.of(KeyValue.of("log.source", "app")))
                .flags(1).traceId(s.traceId()).spanId(s.spanId()).build();
    }

    private Bytes randomId() {
        ByteBuffer b = ByteBuffer.allocate(16).putLong(random.nextLong() | Long.MIN_VALUE).putLong(random.nextLong());
        return Bytes.wrap(b.array());
    }
}
