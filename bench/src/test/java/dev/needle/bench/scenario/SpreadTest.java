package dev.needle.bench.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadTest {

    @Test
    void of_oddCount_meanMedianAndNearestRankP99() {
        Spread s = Spread.of(List.of(5.0, 1.0, 3.0));
        assertEquals(new Spread(3, 1.0, 3.0, 3.0, 5.0, 5.0), s);
    }

    @Test
    void of_evenCount_medianIsTheMiddlePairsMean() {
        assertEquals(2.5, Spread.of(List.of(4.0, 1.0, 2.0, 3.0)).median());
    }

    @Test
    void of_hundredValues_p99IsTheNinetyNinthSmallest() {
        List<Double> values = new ArrayList<>();
        for (int i = 1; i <= 100; i++) {
            values.add((double) i);
        }
        Spread s = Spread.of(values);
        assertEquals(99.0, s.p99());
        assertEquals(50.5, s.mean());
        assertEquals(100.0, s.max());
    }

    @Test
    void of_nothing_isNaNWithCountZero() {
        Spread s = Spread.of(List.of());
        assertEquals(0, s.count());
        assertTrue(Double.isNaN(s.mean()) && Double.isNaN(s.median()));
    }
}
