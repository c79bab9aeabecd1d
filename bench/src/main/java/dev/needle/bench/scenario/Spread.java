package dev.needle.bench.scenario;

import java.util.Arrays;
import java.util.Collection;

/**
 * How latencies spread over a set of probes: each probe contributes one value (its warm median),
 * and the set is summed up by minimum, mean, median, 99th percentile (nearest rank) and maximum.
 *
 * @param count  how many values
 * @param min    the smallest, in milliseconds (NaN, as every other figure, when there are none)
 * @param mean   their mean
 * @param median their median
 * @param p99    the smallest value at least 99% of them do not exceed
 * @param max    the largest
 */
public record Spread(int count, double min, double mean, double median, double p99, double max) {

    /** The spread of {@code millis}. */
    public static Spread of(Collection<Double> millis) {
        double[] v = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        if (v.length == 0) {
            return new Spread(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        int n = v.length;
        double median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        double p99 = v[Math.max(0, (int) Math.ceil(0.99 * n) - 1)];
        return new Spread(n, v[0], Arrays.stream(v).average().orElseThrow(), median, p99, v[n - 1]);
    }
}
