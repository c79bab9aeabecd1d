package dev.needle.bench.peer;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Resource;
import dev.needle.blocks.model.Scope;
import dev.needle.blocks.model.SpanRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Hand-built spans and logs for the peer's tests: traces of 5–15 spans with random 16-byte ids, in
 * arrival order, over four services, with a low-cardinality route, an int status, a double ratio, a
 * bool and a high-cardinality user id drawn from even numbers only (so that odd ones are absent
 * values inside the column's min/max).
 */
final class PeerCorpus {

    static final String[] SERVICES = {"cart", "checkout", "frontend", "payment"};
    static final String[] ROUTES = {"/api/cart", "/api/checkout", "/api/product/{id}", "/health"};
    static final double[] RATIOS = {1.0, 0.5, 0.25};
    static final long START = 1_764_446_100_000_000_000L;

    static final List<FlattenedAttribute> SPAN_COLUMNS = List.of(
            FlattenedAttribute.of("resource", "service.name", "string"),
            FlattenedAttribute.of("resource", "k8s.pod.name", "string"),
            FlattenedAttribute.of("span", "http.route", "string"),
            FlattenedAttribute.of("span", "http.response.status_code", "int"),
            FlattenedAttribute.of("span", "sampling.ratio", "double"),
            FlattenedAttribute.of("span", "error", "bool"),
            FlattenedAttribute.of("span", "user.id", "string"));

    static final List<FlattenedAttribute> LOG_COLUMNS = List.of(
            FlattenedAttribute.of("resource", "service.name", "string"),
            FlattenedAttribute.of("log", "user.id", "string"));

    private PeerCorpus() {
    }

    /** A user id as the corpus writes it: only even numbers are drawn. */
    static String user(int n) {
        return String.format("user-%06d", n);
    }

    static List<Resource> resources() {
        List<Resource> resources = new ArrayList<>();
        for (int s = 0; s < SERVICES.length; s++) {
            resources.add(new Resource(List.of(KeyValue.of("service.name", SERVICES[s]),
                    KeyValue.of("k8s.pod.name", SERVICES[s] + "-7f9c-" + s)), 0, ""));
        }
        return resources;
    }

    /** At least {@code n} spans, whole traces, in arrival order. */
    static List<SpanRecord> spans(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Resource> resources = resources();
        Scope scope = new Scope("io.opentelemetry.http", "1.40.0", List.of(), 0, "");
        List<SpanRecord> spans = new ArrayList<>(n + 15);
        long time = START;
        while (spans.size() < n) {
            byte[] traceId = new byte[16];
            random.nextBytes(traceId);
            int size = 5 + random.nextInt(11);
            Bytes root = Bytes.EMPTY;
            for (int i = 0; i < size; i++) {
                byte[] spanId = new byte[8];
                random.nextBytes(spanId);
                time += 1 + random.nextInt(1_000_000);
                int status = random.nextInt(40) == 0 ? 500 : 200;
                List<KeyValue> attributes = new ArrayList<>(List.of(
                        KeyValue.of("http.route", ROUTES[random.nextInt(ROUTES.length)]),
                        KeyValue.of("http.response.status_code", status),
                        new KeyValue("sampling.ratio", AnyValue.of(RATIOS[random.nextInt(RATIOS.length)])),
                        new KeyValue("error", AnyValue.of(status == 500)),
                        KeyValue.of("user.id", user(2 * random.nextInt(50_000)))));
                spans.add(SpanRecord.builder().resource(resources.get(random.nextInt(resources.size()))).scope(scope)
                        .traceId(Bytes.wrap(traceId)).spanId(Bytes.wrap(spanId)).parentSpanId(root).flags(1)
                        .name("GET " + ROUTES[0]).kind(2).startTimeUnixNano(time)
                        .endTimeUnixNano(time + random.nextInt(50_000_000)).attributes(attributes)
                        .statusCode(status == 500 ? 2 : 0).build());
                if (i == 0) {
                    root = Bytes.wrap(spanId);
                }
            }
        }
        return spans;
    }

    /** {@code n} log records in arrival order, half of them correlated with a random trace. */
    static List<LogRecord> logs(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<Resource> resources = resources();
        Scope scope = new Scope("com.example.app", "", List.of(), 0, "");
        List<LogRecord> logs = new ArrayList<>(n);
        long time = START;
        for (int i = 0; i < n; i++) {
            time += 1 + random.nextInt(1_000_000);
            Bytes traceId = Bytes.EMPTY;
            Bytes spanId = Bytes.EMPTY;
            if (random.nextBoolean()) {
                byte[] t = new byte[16];
                random.nextBytes(t);
                byte[] s = new byte[8];
                random.nextBytes(s);
                traceId = Bytes.wrap(t);
                spanId = Bytes.wrap(s);
            }
            // Observed a little out of order, so that sorting by event time has something to do.
            long eventTime = time - random.nextInt(5_000_000);
            logs.add(LogRecord.builder().resource(resources.get(random.nextInt(resources.size()))).scope(scope)
                    .timeUnixNano(eventTime).observedTimeUnixNano(time).severityNumber(9).severityText("INFO")
                    .body(AnyValue.of("request " + i))
                    .attributes(List.of(KeyValue.of("user.id", user(2 * random.nextInt(50_000))))).traceId(traceId)
                    .spanId(spanId).build());
        }
        return logs;
    }

    /** {@code records} in lists of {@code size}, as a generator hands them over. */
    static <R> List<List<R>> chunks(List<R> records, int size) {
        List<List<R>> chunks = new ArrayList<>();
        for (int i = 0; i < records.size(); i += size) {
            chunks.add(records.subList(i, Math.min(records.size(), i + size)));
        }
        return chunks;
    }
}
