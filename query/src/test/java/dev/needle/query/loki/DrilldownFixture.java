package dev.needle.query.loki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.store.TenantId;
import dev.needle.blocks.store.fs.FsBlockStore;
import dev.needle.blocks.write.BlockWriter;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.QueryLimits;
import dev.needle.query.http.ApiFixture;
import dev.needle.query.http.JsonTree;
import dev.needle.query.http.QueryApi;
import dev.needle.query.metrics.QueryMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.RootAllocator;
import org.eclipse.jetty.http.HttpTester;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;

/**
 * Log records chosen for Loki's index and Drilldown endpoints, in two blocks of tenant {@link #SHOP} (the first
 * minute from {@link #T0}, then the second), behind the query API:
 *
 * <pre>
 * {service_name="checkout", namespace="prod", pod="checkout-1", instance="1", build="1234"}   logfmt, http_method
 *   +10s info  level=info msg="order placed" order_id=1001 duration=15ms           (57 bytes)
 *   +20s info  level=info msg="order placed" order_id=1002 duration=22ms           (57)
 *   +70s error level=error msg="payment declined" order_id=1003 duration=1.5s      (62)
 * {service_name="cart", namespace="prod", pod="cart-1", instance="2", build="5678"}            JSON
 *   +15s info  {"user":{"id":"u1"},"items":3,"ok":true,"size":"10KB"}               (54)
 *   +75s warn  {"user":{"id":"u2"},"items":5,"ok":false,"size":"2MB"}               (54)
 * {service_name="cart", namespace="staging", pod="cart-9", instance="3", build="91011"}        plain
 *   +30s info  connected to db-1 in 12 ms                                           (26)
 *   +40s info  connected to db-2 in 7 ms                                            (25)
 *   +50s debug cache miss for key user:42                                           (26)
 * {__aggregated_metric__="checkout"}, a stream of Loki's own: no service name
 *   +45s       bytes=120 count=2                                                    (17)
 * </pre>
 *
 * Tenant {@link #OTHER} has one record of service {@code elsewhere} in the same minutes.
 */
final class DrilldownFixture implements AutoCloseable {

    static final TenantId SHOP = TenantId.of("shop");
    static final TenantId OTHER = TenantId.of("other");
    static final long T0_SECONDS = ApiFixture.T0_SECONDS;
    static final long T0 = ApiFixture.T0;
    static final long SECOND = ApiFixture.SECOND;
    /** start and end of the two minutes. */
    static final String RANGE = "&start=" + T0 + "&end=" + (T0 + 120 * SECOND);

    private final RootAllocator allocator = new RootAllocator();
    private final QueryEngine engine;
    private final Server server = new Server();
    private final LocalConnector connector = new LocalConnector(server);

    DrilldownFixture(Path dir) throws Exception {
        this(dir, QueryLimits.DEFAULTS);
    }

    /** The records behind an engine that queries within {@code limits}. */
    DrilldownFixture(Path dir, QueryLimits limits) throws Exception {
        FsBlockStore store = new FsBlockStore(dir);
        Resource checkout = resource("checkout", "prod", "checkout-1", "1", "1234");
        Resource cartProd = resource("cart", "prod", "cart-1", "2", "5678");
        Resource cartStaging = resource("cart", "staging", "cart-9", "3", "91011");
        Resource internal = new Resource(List.of(KeyValue.of("__aggregated_metric__", "checkout")), 0, "");
        List<LogRecord> first = List.of(
                log(checkout, 10, 9, "level=info msg=\"order placed\" order_id=1001 duration=15ms", "GET"),
                log(checkout, 20, 9, "level=info msg=\"order placed\" order_id=1002 duration=22ms", "GET"),
                log(cartProd, 15, 9, "{\"user\":{\"id\":\"u1\"},\"items\":3,\"ok\":true,\"size\":\"10KB\"}", null),
                log(cartStaging, 30, 9, "connected to db-1 in 12 ms", null),
                log(cartStaging, 40, 9, "connected to db-2 in 7 ms", null),
                log(cartStaging, 50, 5, "cache miss for key user:42", null),
                log(internal, 45, 0, "bytes=120 count=2", null));
        List<LogRecord> second = List.of(
                log(checkout, 70, 17, "level=error msg=\"payment declined\" order_id=1003 duration=1.5s", "POST"),
                log(cartProd, 75, 13, "{\"user\":{\"id\":\"u2\"},\"items\":5,\"ok\":false,\"size\":\"2MB\"}", null));
        BlockWriter writer = new BlockWriter(store, allocator, 4);
        writer.writeLogs(SHOP, first);
        writer.writeLogs(SHOP, second);
        writer.writeLogs(OTHER, List.of(log(resource("elsewhere", "prod", "e-1", "1", "1"), 30, 9,
                "connected to db-1 in 12 ms", null)));
        engine = new QueryEngine(store, HeadSource.EMPTY, 1 << 20, 2, limits);
        server.addConnector(connector);
        server.setHandler(new QueryApi(engine, new QueryMetrics(new PrometheusRegistry(), engine)));
        server.start();
    }

    private static Resource resource(String service, String namespace, String pod, String instance, String build) {
        return new Resource(List.of(KeyValue.of("service.name", service), KeyValue.of("namespace", namespace),
                KeyValue.of("pod", pod), KeyValue.of("instance", instance), KeyValue.of("build", build)), 0, "");
    }

    private static LogRecord log(Resource resource, int second, int severity, String line, String method) {
        List<KeyValue> attributes = method == null ? List.of() : List.of(KeyValue.of("http.method", method));
        return LogRecord.builder().resource(resource).scope(Scope.EMPTY).timeUnixNano(T0 + second * SECOND)
                .severityNumber(severity).body(AnyValue.of(line)).attributes(attributes).build();
    }

    /** GET {@code /loki/api/v1/<path>?query=<query><params>} as tenant {@code tenant}. */
    HttpTester.Response get(TenantId tenant, String path, String query, String params) throws Exception {
        String uri = "/loki/api/v1/" + path + "?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8) + params;
        return ApiFixture.send(connector, "GET", uri, "X-Scope-OrgID", tenant.value());
    }

    /** The same as tenant {@link #SHOP}. */
    HttpTester.Response get(String path, String query, String params) throws Exception {
        return get(SHOP, path, query, params);
    }

    /** A 200's JSON document. */
    static Object json(HttpTester.Response r) throws Exception {
        assertEquals(200, r.getStatus(), r.getContent());
        assertEquals("application/json", r.get("Content-Type"));
        return JsonTree.parse(r.getContent());
    }

    /** A 400 with {@code message} in plain text, as Loki's errors. */
    static void assertBadRequest(HttpTester.Response r, String message) {
        assertEquals(400, r.getStatus(), r.getContent());
        assertEquals("text/plain; charset=utf-8", r.get("Content-Type"));
        assertTrue(r.getContent().contains(message), r.getContent());
    }

    /** {@code [[t, v], …]} as a list of pairs. */
    static List<List<Object>> pairs(List<Object> values) {
        List<List<Object>> out = new ArrayList<>();
        for (Object v : values) {
            out.add(JsonTree.array(v));
        }
        return out;
    }

    @Override
    public void close() throws Exception {
        server.stop();
        engine.close();
        allocator.close();
    }
}
