package dev.needle.bench.scenario;

import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendPosition;

/** Draws warm median latency per scenario, one line per mechanism setting, on a log scale. */
public final class LatencyChart {

    private LatencyChart() {
    }

    /** The chart of {@code measurements}, titled with the corpus's name. */
    public static CategoryChart chart(String corpus, List<Measurement> measurements, List<Setting> settings) {
        List<String> scenarios = measurements.stream().map(m -> m.scenario().name()).distinct().toList();
        CategoryChart chart = new CategoryChartBuilder().width(1400).height(700)
                .title("needle warm lookup latency by mechanism, " + corpus + " corpus (median, ms, log scale)")
                .yAxisTitle("warm p50 (ms)").build();
        chart.getStyler().setYAxisLogarithmic(true);
        // XChart draws bars up from zero, which a log axis cannot hold: markers on lines instead.
        chart.getStyler().setDefaultSeriesRenderStyle(CategorySeriesRenderStyle.Line);
        chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
        chart.getStyler().setXAxisLabelRotation(60);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Setting setting : settings) {
            List<Double> values = new ArrayList<>();
            for (String scenario : scenarios) {
                values.add(measurements.stream()
                        .filter(m -> m.setting() == setting && m.scenario().name().equals(scenario))
                        .mapToDouble(m -> Math.max(0.001, m.warmP50Millis())).findFirst().orElse(0.001));
            }
            chart.addSeries(setting.label(), scenarios, values);
        }
        return chart;
    }
}
