package dev.needle.corpus;

import dev.needle.blocks.model.AnyValue;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The attribute keys a corpus's spans and logs carry, their typed values, and values of the same
 * keys that never occur. Semantic-convention names, so that queries read like real ones.
 */
final class Vocabulary {

    static final String[] METHODS = {"GET", "POST", "PUT", "DELETE", "PATCH"};
    /** Draw weights of {@link #METHODS}, in percent. */
    static final int[] METHOD_WEIGHTS = {62, 24, 7, 5, 2};
    static final long[] OK_STATUS = {200, 201, 204, 301, 304, 400, 401, 403, 404, 409, 429};
    static final int[] OK_STATUS_WEIGHTS = {780, 50, 40, 5, 30, 25, 15, 5, 40, 5, 5};
    static final long[] ERROR_STATUS = {500, 502, 503, 504};
    static final long[] PORTS = {80, 443, 3306, 5432, 6379, 8080, 9092, 27017, 50051};
    static final String[] DB_SYSTEMS = {"postgresql", "mysql", "redis", "mongodb"};
    static final long[] DB_PORTS = {5432, 3306, 6379, 27017};
    static final String[] DB_OPERATIONS = {"SELECT", "INSERT", "UPDATE", "DELETE"};
    static final String[] COLLECTIONS = {"orders", "users", "carts", "products", "payments", "sessions", "inventory", "reviews"};
    static final String[] TOPICS = {"orders", "payments", "notifications", "audit"};
    static final String[] EXCEPTIONS = {"java.net.SocketTimeoutException", "java.io.IOException",
        "java.lang.IllegalStateException", "context.DeadlineExceeded", "ConnectionResetError", "TypeError"};
    private static final String[] RESOURCES = {"cart", "checkout", "product", "user", "order", "payment",
        "shipping", "recommendation", "ad", "currency", "search", "review", "inventory", "session", "quote"};
    private static final String[] ROUTE_SHAPES = {"/api/%s", "/api/%s/{id}", "/api/%s/{id}/items", "/v2/%s", "/v2/%s/{id}"};

    private final List<ProbedAttribute> span = new ArrayList<>();
    private final List<ProbedAttribute> log = new ArrayList<>();
    final String[] routes;

    final ProbedAttribute spanMethod;
    final ProbedAttribute spanRoute;
    final ProbedAttribute spanStatus;
    final ProbedAttribute spanPort;
    final ProbedAttribute spanServerAddress;
    final ProbedAttribute spanDbSystem;
    final ProbedAttribute spanDbOperation;
    final ProbedAttribute spanCollection;
    final ProbedAttribute spanTopic;
    final ProbedAttribute spanSampling;
    final ProbedAttribute spanCacheHit;
    final ProbedAttribute spanUser;

    final ProbedAttribute logMethod;
    final ProbedAttribute logRoute;
    final ProbedAttribute logStatus;
    final ProbedAttribute logUser;
    final ProbedAttribute logDuration;
    final ProbedAttribute logCacheHit;
    final ProbedAttribute logCollection;
    final ProbedAttribute logException;
    final ProbedAttribute logAttempt;

    Vocabulary(CorpusSpec spec, Fleet fleet) {
        routes = IntStream.range(0, spec.routes()).mapToObj(Vocabulary::route).toArray(String[]::new);
        List<AnyValue> absentRoutes = List.of(AnyValue.of(route(spec.routes() + 7)), AnyValue.of("/api/cart/{id}/coupons"));
        List<AnyValue> absentStatus = ints(202, 418, 451);
        List<AnyValue> users = List.of(user(spec.seed(), spec.users()), user(spec.seed(), spec.users() + 1),
                user(spec.seed(), spec.users() + 2), user(spec.seed(), spec.users() + 3));
        List<AnyValue> services = new ArrayList<>();
        for (Fleet.Service s : fleet.services) {
            services.add(AnyValue.of(s.name()));
        }

        spanMethod = add(span, ProbedAttribute.of("span", "http.request.method", strings(METHODS), strings("HEAD", "OPTIONS")));
        spanRoute = add(span, ProbedAttribute.of("span", "http.route", strings(routes), absentRoutes));
        spanStatus = add(span, ProbedAttribute.of("span", "http.response.status_code", ints(concat(OK_STATUS, ERROR_STATUS)), absentStatus));
        spanPort = add(span, ProbedAttribute.of("span", "server.port", ints(PORTS), ints(8081, 9200)));
        spanServerAddress = add(span, ProbedAttribute.of("span", "server.address", services, strings("checkout-legacy")));
        spanDbSystem = add(span, ProbedAttribute.of("span", "db.system", strings(DB_SYSTEMS), strings("cassandra", "oracle")));
        spanDbOperation = add(span, ProbedAttribute.of("span", "db.operation.name", strings(DB_OPERATIONS), strings("MERGE")));
        spanCollection = add(span, ProbedAttribute.of("span", "db.collection.name", strings(COLLECTIONS), strings("invoices")));
        spanTopic = add(span, ProbedAttribute.of("span", "messaging.destination.name", strings(TOPICS), strings("refunds")));
        spanSampling = add(span, ProbedAttribute.of("span", "sampling.ratio", doubles(Fleet.SAMPLING_RATIOS), doubles(0.3, 0.75)));
        spanCacheHit = add(span, ProbedAttribute.of("span", "cache.hit", List.of(AnyValue.of(true), AnyValue.of(false)), List.of()));
        spanUser = add(span, ProbedAttribute.rendered("span", "user.id", spec.users(), i -> user(spec.seed(), i), users));

        logMethod = add(log, ProbedAttribute.of("log", "http.request.method", strings(METHODS), strings("HEAD", "OPTIONS")));
        logRoute = add(log, ProbedAttribute.of("log", "http.route", strings(routes), absentRoutes));
        logStatus = add(log, ProbedAttribute.of("log", "http.response.status_code", ints(concat(OK_STATUS, ERROR_STATUS)), absentStatus));
        logUser = add(log, ProbedAttribute.rendered("log", "user.id", spec.users(), i -> user(spec.seed(), i), users));
        logDuration = add(log, ProbedAttribute.rendered("log", "duration_ms", 40_000, i -> AnyValue.of(i * 0.25), doubles(12.3, 100.1)));
        logCacheHit = add(log, ProbedAttribute.of("log", "cache.hit", List.of(AnyValue.of(false)), List.of(AnyValue.of(true))));
        logCollection = add(log, ProbedAttribute.of("log", "db.collection.name", strings(COLLECTIONS), strings("invoices")));
        logException = add(log, ProbedAttribute.of("log", "exception.type", strings(EXCEPTIONS), strings("java.lang.OutOfMemoryError")));
        logAttempt = add(log, ProbedAttribute.of("log", "retry.attempt", ints(1, 2, 3), ints(4)));
    }

    /** The span attributes, in slot order. */
    List<ProbedAttribute> span() {
        return span;
    }

    /** The log attributes, in slot order. */
    List<ProbedAttribute> log() {
        return log;
    }

    /** The index of {@code port} in {@link #PORTS}. */
    static int portIndex(long port) {
        for (int i = 0; i < PORTS.length; i++) {
            if (PORTS[i] == port) {
                return i;
            }
        }
        throw new IllegalArgumentException("not a corpus port: " + port);
    }

    /** User number {@code i}: a 16-hex-digit id, so that unused numbers are spread among used ones. */
    static AnyValue user(long seed, int i) {
        String hex = Long.toHexString(Seeds.mix(Seeds.of(seed, Seeds.PROBES, 0) ^ i));
        return AnyValue.of("u-" + "0".repeat(16 - hex.length()) + hex);
    }

    private static String route(int i) {
        String shape = ROUTE_SHAPES[i % ROUTE_SHAPES.length];
        int r = i / ROUTE_SHAPES.length;
        String resource = RESOURCES[r % RESOURCES.length] + (r >= RESOURCES.length ? "s" + (r / RESOURCES.length) : "");
        return String.format(shape, resource);
    }

    private ProbedAttribute add(List<ProbedAttribute> list, ProbedAttribute attribute) {
        list.add(attribute.atSlot(list.size()));
        return list.get(list.size() - 1);
    }

    private static List<AnyValue> strings(String... values) {
        Set<String> seen = new HashSet<>();
        List<AnyValue> out = new ArrayList<>();
        for (String v : values) {
            if (!seen.add(v)) {
                throw new IllegalArgumentException("duplicate value " + v);
            }
            out.add(AnyValue.of(v));
        }
        return out;
    }

    private static List<AnyValue> ints(long... values) {
        List<AnyValue> out = new ArrayList<>();
        for (long v : values) {
            out.add(AnyValue.of(v));
        }
        return out;
    }

    private static List<AnyValue> doubles(double... values) {
        List<AnyValue> out = new ArrayList<>();
        for (double v : values) {
            out.add(AnyValue.of(v));
        }
        return out;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
