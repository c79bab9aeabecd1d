package dev.needle.bench.fpr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.sidecar.BloomSidecar;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.knowm.xchart.XYChart;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** The chart: XChart's SVG is well-formed, names every series, and leaves out what a log axis cannot show. */
final class FprChartTest {

    /** A small sweep: the chart's shape does not depend on how precise the rates are. */
    private static final List<FprPoint> POINTS = new FprSweep(1 << 14, 20_000, 7).run();

    @Test
    void writeSvg_sweep_wellFormedSvgNamingEverySeries(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("fpr.svg");
        FprChart.writeSvg(POINTS, svg);

        Document document = parse(svg);
        Element root = document.getDocumentElement();
        assertEquals("svg", root.getTagName());
        String title = document.getElementsByTagName("title").item(0).getTextContent();
        String desc = document.getElementsByTagName("desc").item(0).getTextContent();
        assertTrue(title.contains("k = " + BloomSidecar.K), title);
        assertTrue(desc.contains(FprChart.theoryName(BloomSidecar.K)), desc);
        for (FprFamily family : FprFamily.values()) {
            assertTrue(desc.contains(FprChart.seriesName(family, true)), desc);
            assertTrue(desc.contains(FprChart.seriesName(family, false)), desc);
        }
        // XChart draws the text as outlines; the lines themselves are paths in the families' colours.
        assertTrue(document.getElementsByTagName("path").getLength() > 100);
        String text = Files.readString(svg);
        for (String color : List.of("31,119,180", "255,127,14", "44,160,44", "214,39,40", "148,103,189")) {
            assertTrue(text.contains("stroke:rgb(" + color + ")"), color);
        }
    }

    @Test
    void chart_sweep_theoryAndTwoSeriesPerFamily() {
        XYChart chart = FprChart.chart(POINTS);
        assertEquals(1 + 2 * FprFamily.values().length, chart.getSeriesMap().size());
        assertTrue(chart.getStyler().isYAxisLogarithmic());
        assertEquals(FprSweep.MAX_BITS_PER_KEY - FprSweep.MIN_BITS_PER_KEY + 1,
                chart.getSeriesMap().get(FprChart.theoryName(BloomSidecar.K)).getXData().length);
    }

    @Test
    void chart_noFalsePositives_pointLeftOutOfLogAxis() {
        List<FprPoint> points = new ArrayList<>(POINTS.stream().filter(p -> p.family() == FprFamily.RANDOM).toList());
        FprPoint first = points.get(0);
        points.set(0, new FprPoint(first.family(), first.bitsPerKey(), first.k(), first.bits(), first.keys(),
                first.probes(), 0, first.unmixedFalsePositives()));

        XYChart chart = FprChart.chart(points);

        double[] mixedX = chart.getSeriesMap().get(FprChart.seriesName(FprFamily.RANDOM, true)).getXData();
        assertEquals(points.size() - 1, mixedX.length);
        assertEquals(FprSweep.MIN_BITS_PER_KEY + 1, mixedX[0]);
        assertFalse(chart.getSeriesMap().containsKey(FprChart.seriesName(FprFamily.XRAY, true)));
    }

    @Test
    void chart_noPoints_throws() {
        assertThrows(IllegalArgumentException.class, () -> FprChart.chart(List.of()));
    }

    private static Document parse(Path svg) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        // The SVG 1.1 DOCTYPE names the W3C's DTD; well-formedness needs no network.
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        return factory.newDocumentBuilder().parse(svg.toFile());
    }
}
