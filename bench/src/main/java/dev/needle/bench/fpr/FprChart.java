package dev.needle.bench.fpr;

import dev.needle.bench.chart.Svg;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Draws the false-positive sweep with XChart: rate against bits per key on a log scale, per family mixed and unmixed, with the theory. */
public final class FprChart {

    /** One colour per family, shared by its mixed (solid) and unmixed (dashed) lines. */
    private static final Map<FprFamily, Color> COLORS = Map.of(
            FprFamily.RANDOM, new Color(0x1f77b4),
            FprFamily.XRAY, new Color(0xff7f0e),
            FprFamily.SHORT64, new Color(0x2ca02c),
            FprFamily.COUNTER, new Color(0xd62728),
            FprFamily.ATTRIBUTE, new Color(0x9467bd));
    /**
     * One marker per family. Lines that coincide (every mixed line on the theory, X-Ray and SHORT64
     * unmixed on each other) stay told apart by their markers: SHORT64's diamond, drawn after it, sits
     * inside X-Ray's square.
     */
    private static final Map<FprFamily, Marker> MARKERS = Map.of(
            FprFamily.RANDOM, SeriesMarkers.CIRCLE,
            FprFamily.XRAY, SeriesMarkers.SQUARE,
            FprFamily.SHORT64, SeriesMarkers.DIAMOND,
            FprFamily.COUNTER, SeriesMarkers.TRIANGLE_UP,
            FprFamily.ATTRIBUTE, SeriesMarkers.TRIANGLE_DOWN);
    private static final Color THEORY_COLOR = new Color(0xb0b0b0);
    private static final BasicStroke THEORY_LINE = new BasicStroke(6f, BasicStroke.CAP_ROUND, BasicStroke.JOIN_ROUND);

    private FprChart() {
    }

    /** The legend name of a family's series: {@code "<label> mixed"} or {@code "<label> unmixed"}. */
    public static String seriesName(FprFamily family, boolean mixed) {
        return family.label() + (mixed ? " mixed" : " unmixed");
    }

    /** The legend name of the theory line. */
    public static String theoryName(int k) {
        return "theory (1 - e^(-kn/m))^k, k = " + k;
    }

    /** The chart of a sweep's points (of one m and k, as {@link FprSweep} makes them). */
    public static XYChart chart(List<FprPoint> points) {
        if (points.isEmpty()) {
            throw new IllegalArgumentException("no points to draw");
        }
        FprPoint first = points.get(0);
        XYChart chart = new XYChartBuilder().width(1000).height(640)
                .title("Bloom filter false-positive rate: k = " + first.k() + ", m = 2^"
                        + Integer.numberOfTrailingZeros(first.bits()) + " bits, "
                        + String.format(Locale.ROOT, "%,d", first.probes()) + " absent keys per point")
                .xAxisTitle("bits per key (m / n)")
                .yAxisTitle("false-positive rate (log scale)")
                .build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setXAxisDecimalPattern("0");
        chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
        chart.getStyler().setChartBackgroundColor(Color.WHITE);

        // The theory first, wide and pale, so that the mixed lines drawn over it stay visible where
        // they agree with it, which is everywhere they should.
        Map<Integer, Double> theory = new TreeMap<>();
        points.forEach(p -> theory.putIfAbsent(p.bitsPerKey(), p.theory()));
        XYSeries theoryLine = chart.addSeries(theoryName(first.k()),
                theory.keySet().stream().mapToDouble(Integer::doubleValue).toArray(),
                theory.values().stream().mapToDouble(Double::doubleValue).toArray());
        theoryLine.setLineColor(THEORY_COLOR);
        theoryLine.setLineStyle(THEORY_LINE);
        theoryLine.setMarker(SeriesMarkers.NONE);

        for (FprFamily family : FprFamily.values()) {
            List<FprPoint> ofFamily = points.stream().filter(p -> p.family() == family).toList();
            if (ofFamily.isEmpty()) {
                continue;
            }
            addFamily(chart, family, true, ofFamily, FprPoint::mixedRate);
            addFamily(chart, family, false, ofFamily, FprPoint::unmixedRate);
        }
        return chart;
    }

    private static void addFamily(XYChart chart, FprFamily family, boolean mixed, List<FprPoint> points,
                                  ToDoubleFunction<FprPoint> rate) {
        // A rate of 0 (no false positive among few probes) has no place on a log axis; XChart
        // rejects it, so such points are left out of the line.
        List<FprPoint> drawable = points.stream().filter(p -> rate.applyAsDouble(p) > 0).toList();
        if (drawable.isEmpty()) {
            return;
        }
        XYSeries series = chart.addSeries(seriesName(family, mixed),
                drawable.stream().mapToDouble(FprPoint::bitsPerKey).toArray(),
                drawable.stream().mapToDouble(rate).toArray());
        Color color = COLORS.get(family);
        series.setLineColor(color);
        series.setMarkerColor(color);
        series.setLineStyle(mixed ? SeriesLines.SOLID : SeriesLines.DASH_DASH);
        series.setMarker(MARKERS.get(family));
    }

    /** Writes the chart of {@code points} to {@code svg} as SVG, replacing the file. */
    public static void writeSvg(List<FprPoint> points, Path svg) throws IOException {
        Svg.write(chart(points), svg);
    }
}
