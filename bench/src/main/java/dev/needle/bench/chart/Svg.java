package dev.needle.bench.chart;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.VectorGraphicsEncoder.VectorGraphicsFormat;
import org.knowm.xchart.internal.chartpart.Chart;

/** Writes an XChart chart as SVG. */
public final class Svg {

    private Svg() {
    }

    /**
     * Writes {@code chart} to {@code svg}, replacing the file. XChart draws all text as outlines, so
     * the chart's title and its series names are also put in the SVG's {@code <title>} and
     * {@code <desc>}, where screen readers and searches find them.
     */
    public static void write(Chart<?, ?> chart, Path svg) throws IOException {
        ByteArrayOutputStream encoded = new ByteArrayOutputStream();
        VectorGraphicsEncoder.saveVectorGraphic(chart, encoded, VectorGraphicsFormat.SVG);
        String document = encoded.toString(StandardCharsets.UTF_8);
        int root = document.indexOf("<svg");
        int rootEnd = root < 0 ? -1 : document.indexOf('>', root);
        if (rootEnd < 0) {
            throw new IOException("XChart wrote no <svg> element");
        }
        String text = "<title>" + escape(chart.getTitle()) + "</title><desc>"
                + escape(String.join("; ", chart.getSeriesMap().keySet())) + "</desc>";
        Files.writeString(svg, document.substring(0, rootEnd + 1) + text + document.substring(rootEnd + 1),
                StandardCharsets.UTF_8);
    }

    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
