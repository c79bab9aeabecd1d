package dev.needle.bench.fpr;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.List;
import java.util.Locale;

/** Renders the false-positive sweep as a Markdown table and as JSON. */
public final class FprReport {

    private FprReport() {
    }

    /**
     * A Markdown table, one row per family and bits per key: the theory at the sweep's k, the rate
     * measured with and without mixing and each one's ratio to the theory, and the optimal k with
     * its theory. Rates are percentages.
     */
    public static String markdown(List<FprPoint> points) {
        StringBuilder out = new StringBuilder();
        int k = points.isEmpty() ? 0 : points.get(0).k();
        out.append("| family | bits/key | keys | theory (k = ").append(k)
                .append(") | mixed | mixed / theory | unmixed | unmixed / theory | optimal k | theory (optimal k) |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (FprPoint p : points) {
            out.append(String.format(Locale.ROOT, "| %s | %d | %,d | %s | %s | %s | %s | %s | %d | %s |%n",
                    p.family().label(), p.bitsPerKey(), p.keys(), percent(p.theory()),
                    percent(p.mixedRate()), ratio(p.mixedRatio()),
                    percent(p.unmixedRate()), ratio(p.unmixedRatio()),
                    p.optimalK(), percent(p.theoryAtOptimalK())));
        }
        return out.toString();
    }

    /**
     * Writes the points as one JSON array at the generator's position, so that a caller can put it
     * under any field of its own document. Rates are fractions, not percentages.
     */
    public static void writeJson(JsonGenerator json, List<FprPoint> points) throws IOException {
        json.writeStartArray();
        for (FprPoint p : points) {
            json.writeStartObject();
            json.writeStringField("family", p.family().label());
            json.writeNumberField("bitsPerKey", p.bitsPerKey());
            json.writeNumberField("k", p.k());
            json.writeNumberField("bits", p.bits());
            json.writeNumberField("keys", p.keys());
            json.writeNumberField("probes", p.probes());
            json.writeNumberField("theory", p.theory());
            json.writeNumberField("ratioStandardDeviation", p.ratioStandardDeviation());
            writeMeasured(json, "mixed", p.mixedFalsePositives(), p.mixedRate(), p.mixedRatio());
            writeMeasured(json, "unmixed", p.unmixedFalsePositives(), p.unmixedRate(), p.unmixedRatio());
            json.writeNumberField("optimalK", p.optimalK());
            json.writeNumberField("theoryAtOptimalK", p.theoryAtOptimalK());
            json.writeEndObject();
        }
        json.writeEndArray();
    }

    private static void writeMeasured(JsonGenerator json, String name, long falsePositives, double rate, double ratio)
            throws IOException {
        json.writeObjectFieldStart(name);
        json.writeNumberField("falsePositives", falsePositives);
        json.writeNumberField("rate", rate);
        json.writeNumberField("ratio", ratio);
        json.writeEndObject();
    }

    /** Three significant digits, as a percentage: 0.819%, 0.0700%, 100%. */
    private static String percent(double rate) {
        return String.format(Locale.ROOT, "%.3g%%", rate * 100);
    }

    /** Two decimals where the ratio is near 1, whole numbers where mixing was missed by far. */
    private static String ratio(double ratio) {
        return String.format(Locale.ROOT, ratio < 100 ? "%.2f" : "%.0f", ratio);
    }
}
