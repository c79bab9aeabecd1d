package dev.needle.bench.fpr;

import java.util.List;
import java.util.Locale;

/** Renders the false-positive sweep as a Markdown table (its JSON is {@link FprPoint}'s own). */
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

    /** Three significant digits, as a percentage: 0.819%, 0.0700%, 100%. */
    private static String percent(double rate) {
        return String.format(Locale.ROOT, "%.3g%%", rate * 100);
    }

    /** Two decimals where the ratio is near 1, whole numbers where mixing was missed by far. */
    private static String ratio(double ratio) {
        return String.format(Locale.ROOT, ratio < 100 ? "%.2f" : "%.0f", ratio);
    }
}
