package dev.needle.bench;

import dev.needle.sidecar.AttributeHash;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of turning one attribute pair into its 128-bit key: {@link AttributeHash}'s canonical
 * encoding plus MurmurHash3_x64_128, paid once per pair when an ATTR_IDX is built and once per
 * condition when a query probes one. Realistic keys and values: a string route and pod name, an
 * int status code, a fractional double duration.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar AttributeHash -f 1 -wi 3 -i 5}
 * (or {@code ./needle bench jmh AttributeHash -f 1 -wi 3 -i 5}). Reported in ns per hash.
 * A whole ATTR_IDX build, hashing included, is {@code SidecarBuildBenchmark.attrIdx}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class AttributeHashBenchmark {

    /* Values cycle through 1,024 pre-generated entries so that the JIT cannot treat the input as a
     * constant and fold or hoist the hashing. */
    private static final int VALUES = 1 << 10;
    private static final int VALUE_MASK = VALUES - 1;
    private static final long SEED = 0x6174_7472_6861_7368L;

    private static final String[] ROUTES = {
        "/", "/api/v1/users/{id}", "/api/v1/orders/{orderId}/items", "/api/v2/cart", "/health",
        "/api/v1/products/search", "/api/v1/payments/{paymentId}/refund", "/static/{path}",
    };
    private static final String[] DEPLOYMENTS = {"checkout", "cart", "payment", "recommendation-service"};
    private static final long[] STATUS_CODES = {200, 201, 204, 304, 400, 401, 404, 500, 503};
    /** The alphabet Kubernetes draws pod name suffixes from. */
    private static final String ALPHANUMERIC = "bcdfghjklmnpqrstvwxz2456789";

    private final String[] routes = new String[VALUES];
    private final String[] podNames = new String[VALUES];
    private final long[] statusCodes = new long[VALUES];
    private final double[] durations = new double[VALUES];
    private int next;

    /** Checks the hashes against the golden vectors of docs/FORMAT.md, then generates the inputs. */
    @Setup(Level.Trial)
    public void generate() {
        checkGolden(AttributeHash.ofString("k8s.pod.name", "api-7f9"), 0x5aaefca82dfcd432L, 0x270e88a32a5cc9cdL);
        checkGolden(AttributeHash.ofLong("http.response.status_code", 200), 0xc26161acfbc2828aL, 0x27d08f0de1b2dda1L);
        // An integral double is encoded as the int, so it must hash like it.
        checkGolden(AttributeHash.ofDouble("http.response.status_code", 200.0), 0xc26161acfbc2828aL, 0x27d08f0de1b2dda1L);
        checkGolden(AttributeHash.ofDouble("sampling.ratio", 0.25), 0x26c436d353fc2361L, 0x3167b8c4520d0a77L);

        SplittableRandom random = new SplittableRandom(SEED);
        for (int i = 0; i < VALUES; i++) {
            routes[i] = ROUTES[random.nextInt(ROUTES.length)];
            podNames[i] = DEPLOYMENTS[random.nextInt(DEPLOYMENTS.length)] + "-" + randomAlphanumeric(random, 10)
                    + "-" + randomAlphanumeric(random, 5);
            statusCodes[i] = STATUS_CODES[random.nextInt(STATUS_CODES.length)];
            // Seconds, as OpenTelemetry records durations; the half microsecond keeps them fractional ('d').
            durations[i] = (random.nextInt(2_000_000) + 0.5) / 1e6;
        }
    }

    private static void checkGolden(AttributeHash actual, long lo, long hi) {
        Verify.that(actual.lo() == lo && actual.hi() == hi, "hash is (%016x, %016x), docs/FORMAT.md says (%016x, %016x)",
                actual.lo(), actual.hi(), lo, hi);
    }

    private static String randomAlphanumeric(SplittableRandom random, int length) {
        StringBuilder out = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            out.append(ALPHANUMERIC.charAt(random.nextInt(ALPHANUMERIC.length())));
        }
        return out.toString();
    }

    /** A short string value: http.route. */
    @Benchmark
    public AttributeHash ofStringRoute() {
        return AttributeHash.ofString("http.route", routes[next++ & VALUE_MASK]);
    }

    /** A longer string value: k8s.pod.name, about 25 bytes. */
    @Benchmark
    public AttributeHash ofStringPodName() {
        return AttributeHash.ofString("k8s.pod.name", podNames[next++ & VALUE_MASK]);
    }

    /** An int value: http.response.status_code. */
    @Benchmark
    public AttributeHash ofLongStatusCode() {
        return AttributeHash.ofLong("http.response.status_code", statusCodes[next++ & VALUE_MASK]);
    }

    /** A fractional double value: http.server.request.duration in seconds. */
    @Benchmark
    public AttributeHash ofDoubleDuration() {
        return AttributeHash.ofDouble("http.server.request.duration", durations[next++ & VALUE_MASK]);
    }
}
