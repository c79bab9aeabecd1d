package dev.needle.bench.fpr;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.needle.sidecar.BloomBits;

/**
 * One point of the false-positive sweep: a family's keys at one bits-per-key, measured in two filters
 * of the same size, one probed with the format's mixing and one without it. Its JSON (in the bench
 * report) adds the theory and, per filter, the count, rate and ratio as {@code mixed} and
 * {@code unmixed}; rates are fractions, not percentages.
 *
 * @param family                the kind of key
 * @param bitsPerKey            b, the bits per key asked for: n = m / b, rounded down
 * @param k                     probes per key, in both filters and in the theory
 * @param bits                  m, the filter's size in bits
 * @param keys                  n, the distinct keys put into each filter
 * @param probes                keys known to be absent, asked of each filter
 * @param mixedFalsePositives   absent keys the mixed filter answered "maybe" for
 * @param unmixedFalsePositives absent keys the unmixed filter answered "maybe" for
 */
@JsonPropertyOrder({"family", "bitsPerKey", "k", "bits", "keys", "probes", "theory", "ratioStandardDeviation", "mixed",
    "unmixed", "optimalK", "theoryAtOptimalK"})
public record FprPoint(FprFamily family, int bitsPerKey, int k, int bits, int keys, long probes,
                       @JsonIgnore long mixedFalsePositives, @JsonIgnore long unmixedFalsePositives) {

    /** One filter's false positives among the probes, their rate and its ratio to the theory. */
    public record Measured(long falsePositives, double rate, double ratio) {
    }

    /** The filter probed with mixing. */
    @JsonProperty("mixed")
    public Measured mixed() {
        return new Measured(mixedFalsePositives, mixedRate(), mixedRatio());
    }

    /** The filter probed without mixing. */
    @JsonProperty("unmixed")
    public Measured unmixed() {
        return new Measured(unmixedFalsePositives, unmixedRate(), unmixedRatio());
    }

    /** The false-positive rate measured with mixing. */
    public double mixedRate() {
        return (double) mixedFalsePositives / probes;
    }

    /** The false-positive rate measured without mixing (h1 = lo, h2 = hi | 1). */
    public double unmixedRate() {
        return (double) unmixedFalsePositives / probes;
    }

    /** (1 - e^(-k·n/m))^k with this point's k, n and m. */
    @JsonProperty("theory")
    public double theory() {
        return BloomBits.theoreticalFalsePositiveRate(keys, bits, k);
    }

    /** Measured with mixing / theory. */
    public double mixedRatio() {
        return mixedRate() / theory();
    }

    /** Measured without mixing / theory. */
    public double unmixedRatio() {
        return unmixedRate() / theory();
    }

    /** The k that minimises the theoretical rate at this bits-per-key, round(m/n · ln 2); the format fixes k instead. */
    @JsonProperty("optimalK")
    public int optimalK() {
        return Math.max(1, (int) Math.round((double) bits / keys * Math.log(2)));
    }

    /** The theoretical rate had the filter used {@link #optimalK()} probes. */
    @JsonProperty("theoryAtOptimalK")
    public double theoryAtOptimalK() {
        return BloomBits.theoreticalFalsePositiveRate(keys, bits, optimalK());
    }

    /**
     * The binomial standard deviation of measured / theory when the filter behaves as theory says:
     * sqrt(p(1 - p) / probes) / p.
     */
    @JsonProperty("ratioStandardDeviation")
    public double ratioStandardDeviation() {
        double p = theory();
        return Math.sqrt(p * (1 - p) / probes) / p;
    }
}
