package dev.needle.bench;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Seeded spans shaped like a service mesh's: traces of about ten spans over a few services, each
 * with a shared resource and scope and six typed attributes, one of them high-cardinality.
 */
final class BenchSpans {

    static final int SPANS_PER_TRACE = 10;
    private static final String[] SERVICES = {"checkout", "cart", "payment", "frontend", "ad", "email", "shipping", "quote"};
    private static final String[] ROUTES = {"/api/cart", "/api/checkout", "/api/product/{id}", "/health", "/api/quote"};
    private static final String[] METHODS = {"GET", "POST", "PUT"};

    private BenchSpans() {
    }

    /** {@code n} spans, in traces of {@value #SPANS_PER_TRACE}, in arrival (not trace-id) order. */
    static List<SpanRecord> generate(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Resource> resources = new ArrayList<>();
        for (int s = 0; s < SERVICES.length; s++) {
            resources.add(new Resource(List.of(
                    KeyValue.of("service.name", SERVICES[s]),
                    KeyValue.of("service.version", "1." + s + ".0"),
                    KeyValue.of("k8s.pod.name", SERVICES[s] + "-7f9c" + s),
                    KeyValue.of("k8s.namespace.name", "prod"),
                    KeyValue.of("cloud.region", "eu-west-1")), 0, ""));
        }
        Scope scope = new Scope("io.opentelemetry.http", "1.40.0", List.of(), 0, "");
        List<SpanRecord> spans = new ArrayList<>(n);
        long time = 1_764_446_100_000_000_000L;
        byte[] traceId = new byte[16];
        for (int i = 0; i < n; i++) {
            if (i % SPANS_PER_TRACE == 0) {
                traceId = new byte[16];
                random.nextBytes(traceId);
            }
            byte[] spanId = new byte[8];
            random.nextBytes(spanId);
            time += random.nextInt(2_000_000);
            long duration = (long) (1_000_000 * Math.exp(random.nextGaussian() * 1.5));
            int status = random.nextInt(50) == 0 ? 500 : 200;
            spans.add(SpanRecord.builder().resource(resources.get(random.nextInt(resources.size()))).scope(scope)
                    .traceId(Bytes.wrap(traceId)).spanId(Bytes.wrap(spanId))
                    .parentSpanId(i % SPANS_PER_TRACE == 0 ? Bytes.EMPTY : Bytes.wrap(spanId)).flags(1)
                    .name(METHODS[random.nextInt(METHODS.length)] + " " + ROUTES[random.nextInt(ROUTES.length)])
                    .kind(2).startTimeUnixNano(time).endTimeUnixNano(time + duration)
                    .attributes(List.of(KeyValue.of("http.request.method", METHODS[random.nextInt(METHODS.length)]),
                            KeyValue.of("http.response.status_code", status),
                            KeyValue.of("http.route", ROUTES[random.nextInt(ROUTES.length)]),
                            KeyValue.of("server.port", 8080),
                            new KeyValue("sampling.ratio", AnyValue.of(0.25)),
                            KeyValue.of("user.id", "user-" + random.nextInt(100_000))))
                    .statusCode(status == 500 ? 2 : 0).build());
        }
        return spans;
    }
}
