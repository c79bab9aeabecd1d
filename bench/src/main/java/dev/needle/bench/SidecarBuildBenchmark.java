package dev.needle.bench;

import dev.needle.sidecar.AttrIdxBuilder;
import dev.needle.sidecar.AttributeEncoding;
import dev.needle.sidecar.AttributeHash;
import dev.needle.sidecar.KeyMix;
import dev.needle.sidecar.Sidecar;
import dev.needle.sidecar.TraceIdxBuilder;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The cost of writing a block's sidecars: a whole TRACE_IDX from a block's 300,000 span trace
 * ids, and a whole ATTR_IDX from 300,000 attribute pairs, each including deduplication, sizing,
 * filling and encoding the file. Goal: at least 20M keys/s.
 *
 * <p>Run: {@code java -jar bench/target/benchmarks.jar SidecarBuild -f 1 -wi 3 -i 5}
 * (or {@code ./needle bench jmh SidecarBuild -f 1 -wi 3 -i 5}). One operation is one key (a row
 * fed to the builder, {@link OperationsPerInvocation}), so the default throughput mode prints
 * keys/s directly; with {@code -bm avgt -tu ns} it prints ns per key, and keys/s = 10^9 / that.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
// Not final: JMH generates subclasses of benchmark and @State classes.
public class SidecarBuildBenchmark {

    /** Rows fed to a builder per invocation: a large block. */
    static final int ROWS = 300_000;
    private static final long SEED = 0x7472_6163_6549_4458L;

    /** A block's trace id column and the check that a built TRACE_IDX holds every id in it. */
    @State(Scope.Thread)
    public static class TraceIds {

        /**
         * {@code distinct}: 300,000 different random ids in random order. {@code sortedSpans}: spans
         * sorted by trace id, each trace with 1..15 spans (8 on average) in adjacent rows.
         */
        @Param({"distinct", "sortedSpans"})
        public String shape;

        /** 16 bytes per row, back to back, as a FixedSizeBinary(16) column holds them. */
        private byte[] column;
        private int distinctIds;
        private byte[] lastFile;
        private int lastDistinct;

        /** Generates the column. */
        @Setup(Level.Trial)
        public void generate() {
            SplittableRandom random = new SplittableRandom(SEED);
            column = new byte[ROWS * TraceIdxBuilder.TRACE_ID_BYTES];
            switch (shape) {
                case "distinct" -> {
                    random.nextBytes(column);
                    distinctIds = ROWS;
                }
                case "sortedSpans" -> distinctIds = sortedSpans(random, column);
                default -> throw new IllegalArgumentException("unknown shape: " + shape);
            }
        }

        /** Fills {@code column} with sorted traces of 1..15 spans; returns the number of traces. */
        private static int sortedSpans(SplittableRandom random, byte[] column) {
            byte[][] traces = new byte[ROWS][];
            int[] spans = new int[ROWS];
            int traceCount = 0;
            for (int rows = 0; rows < ROWS; traceCount++) {
                traces[traceCount] = new byte[TraceIdxBuilder.TRACE_ID_BYTES];
                random.nextBytes(traces[traceCount]);
                spans[traceCount] = Math.min(random.nextInt(1, 16), ROWS - rows);
                rows += spans[traceCount];
            }
            // The span counts were drawn independently of the ids, so sorting only the ids keeps them random.
            Arrays.sort(traces, 0, traceCount, Arrays::compareUnsigned);
            int at = 0;
            for (int t = 0; t < traceCount; t++) {
                for (int s = 0; s < spans[t]; s++, at += TraceIdxBuilder.TRACE_ID_BYTES) {
                    System.arraycopy(traces[t], 0, column, at, TraceIdxBuilder.TRACE_ID_BYTES);
                }
            }
            return traceCount;
        }

        /** Fails unless the last TRACE_IDX built counted, sized and holds every distinct id. */
        @TearDown(Level.Iteration)
        public void checkLastFile() {
            Verify.that(lastDistinct == distinctIds, "builder counted %d distinct ids, the column holds %d",
                    lastDistinct, distinctIds);
            Sidecar sidecar = Verify.verifiedSidecar(lastFile, Verify.bitsetBytesFor(distinctIds));
            for (int at = 0; at < column.length; at += TraceIdxBuilder.TRACE_ID_BYTES) {
                Verify.that(sidecar.mayContainTraceId(KeyMix.traceIdLo(column, at), KeyMix.traceIdHi(column, at)),
                        "trace id of row %d answered absent", at / TraceIdxBuilder.TRACE_ID_BYTES);
            }
        }
    }

    /**
     * The attributes of 50,000 spans, six per span in row order: service.name (8 values), its
     * k8s.pod.name (24), http.route (40), http.request.method (4), http.response.status_code (an int,
     * 12 values) and http.server.request.duration (a fractional double, mostly distinct).
     */
    @State(Scope.Thread)
    public static class AttributePairs {

        private static final String[] SERVICES = {
            "checkout", "cart", "payment", "shipping", "frontend", "catalog", "auth", "recommendation",
        };
        private static final String[] PODS = {"x2kqz", "b8w4m", "q9tlp"};
        private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE"};
        private static final long[] STATUS_CODES = {200, 201, 204, 301, 304, 400, 401, 403, 404, 500, 502, 503};
        private static final String[] RESOURCES = {"users", "orders", "carts", "products", "payments"};
        private static final String[] ACTIONS = {"", "/{id}", "/{id}/items", "/{id}/status", "/search", "/{id}/history",
            "/batch", "/{id}/refund"};

        private final byte[] types = new byte[ROWS];
        private final String[] keys = new String[ROWS];
        private final String[] strings = new String[ROWS];
        private final long[] longs = new long[ROWS];
        private final double[] doubles = new double[ROWS];
        private int distinctPairs;
        byte[] lastFile;
        private int lastDistinct;

        /** Generates the rows and counts their distinct pairs with plain Java equality. */
        @Setup(Level.Trial)
        public void generate() {
            SplittableRandom random = new SplittableRandom(SEED);
            Set<Pair> distinct = new HashSet<>();
            for (int row = 0; row < ROWS; ) {
                int service = random.nextInt(SERVICES.length);
                String route = "/api/v1/" + RESOURCES[random.nextInt(RESOURCES.length)]
                        + ACTIONS[random.nextInt(ACTIONS.length)];
                row = string(row, "service.name", SERVICES[service], distinct);
                row = string(row, "k8s.pod.name", SERVICES[service] + "-7d9f8b6c5-" + PODS[random.nextInt(PODS.length)],
                        distinct);
                row = string(row, "http.route", route, distinct);
                row = string(row, "http.request.method", METHODS[random.nextInt(METHODS.length)], distinct);
                types[row] = AttributeEncoding.TYPE_INT;
                keys[row] = "http.response.status_code";
                longs[row] = STATUS_CODES[random.nextInt(STATUS_CODES.length)];
                distinct.add(new Pair(keys[row], longs[row]));
                row++;
                // An odd multiple of 2^-20 seconds: never integral, so it stays a double ('d').
                types[row] = AttributeEncoding.TYPE_DOUBLE;
                keys[row] = "http.server.request.duration";
                doubles[row] = (2 * random.nextInt(1 << 19) + 1) / (double) (1 << 20);
                distinct.add(new Pair(keys[row], doubles[row]));
                row++;
            }
            distinctPairs = distinct.size();
        }

        private int string(int row, String key, String value, Set<Pair> distinct) {
            types[row] = AttributeEncoding.TYPE_STRING;
            keys[row] = key;
            strings[row] = value;
            distinct.add(new Pair(key, value));
            return row + 1;
        }

        /** Feeds row {@code row} to {@code builder}. */
        private void addTo(AttrIdxBuilder builder, int row) {
            switch (types[row]) {
                case AttributeEncoding.TYPE_STRING -> builder.addString(keys[row], strings[row]);
                case AttributeEncoding.TYPE_INT -> builder.addLong(keys[row], longs[row]);
                default -> builder.addDouble(keys[row], doubles[row]);
            }
        }

        private AttributeHash hash(int row) {
            return switch (types[row]) {
                case AttributeEncoding.TYPE_STRING -> AttributeHash.ofString(keys[row], strings[row]);
                case AttributeEncoding.TYPE_INT -> AttributeHash.ofLong(keys[row], longs[row]);
                default -> AttributeHash.ofDouble(keys[row], doubles[row]);
            };
        }

        /** Fails unless the last ATTR_IDX built counted, sized, flagged and holds every pair. */
        @TearDown(Level.Iteration)
        public void checkLastFile() {
            Verify.that(lastDistinct == distinctPairs, "builder counted %d distinct pairs, the rows hold %d",
                    lastDistinct, distinctPairs);
            Sidecar sidecar = Verify.verifiedSidecar(lastFile, Verify.bitsetBytesFor(distinctPairs));
            Verify.that(sidecar.mayHoldDoubles(), "HAS_DOUBLE is clear although every span has a double");
            for (int row = 0; row < ROWS; row++) {
                Verify.that(sidecar.mayContain(hash(row)), "pair of row %d answered absent", row);
            }
        }

        /** A pair as Java sees it: the value's class tells its type, so "200" and 200L differ. */
        private record Pair(String key, Object value) {
        }
    }

    /** Builds a TRACE_IDX from the whole column; returns the file. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public byte[] traceIdx(TraceIds ids) {
        TraceIdxBuilder builder = new TraceIdxBuilder();
        byte[] column = ids.column;
        for (int at = 0; at < column.length; at += TraceIdxBuilder.TRACE_ID_BYTES) {
            builder.add(column, at);
        }
        ids.lastDistinct = builder.distinctKeys();
        ids.lastFile = builder.build().orElseThrow();
        return ids.lastFile;
    }

    /** Builds an ATTR_IDX from all rows, hashing every pair; returns the file. */
    @Benchmark
    @OperationsPerInvocation(ROWS)
    public byte[] attrIdx(AttributePairs pairs) {
        AttrIdxBuilder builder = new AttrIdxBuilder();
        for (int row = 0; row < ROWS; row++) {
            pairs.addTo(builder, row);
        }
        pairs.lastDistinct = builder.distinctKeys();
        pairs.lastFile = builder.build().orElseThrow();
        return pairs.lastFile;
    }
}
