package dev.needle.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The waits between failed publish attempts: doubling from the first to the cap, and staying there. */
class PublishBackoffTest {

    @Test
    void after_doublesFromTheFirstWaitToTheCap() {
        List<Long> seconds = new ArrayList<>();
        Duration wait = Duration.ZERO;
        for (int failures = 0; failures < 8; failures++) {
            wait = PublishBackoff.DEFAULT.after(wait);
            seconds.add(wait.toSeconds());
        }
        assertEquals(List.of(1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L), seconds);
    }

    @Test
    void new_refusesAFirstWaitOfZeroOrAboveTheCap() {
        assertThrows(IllegalArgumentException.class, () -> new PublishBackoff(Duration.ZERO, Duration.ofSeconds(1)));
        assertThrows(IllegalArgumentException.class, () -> new PublishBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)));
    }
}
