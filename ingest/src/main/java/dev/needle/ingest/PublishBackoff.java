package dev.needle.ingest;

import java.time.Duration;

/**
 * How long publishing waits after a failed attempt before the next: {@code first} after the first
 * failure, doubled after each further one up to {@code max}, and nothing again once an attempt
 * succeeds. A store that is down (an S3 outage, a full disk) is then asked about once every
 * {@code max}, not on every tick of the publisher, while the head and the write-ahead log keep the
 * records.
 *
 * @param first the wait after the first failure
 * @param max   the longest wait
 */
public record PublishBackoff(Duration first, Duration max) {

    /** 1 s doubling to 30 s. */
    public static final PublishBackoff DEFAULT = new PublishBackoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

    public PublishBackoff {
        if (first.isNegative() || first.isZero() || max.compareTo(first) < 0) {
            throw new IllegalArgumentException("a backoff needs 0 < first <= max, got " + first + " and " + max);
        }
    }

    /** The wait after one more failure, when the last wait was {@code current} (zero: none, the first failure). */
    public Duration after(Duration current) {
        if (current.isZero()) {
            return first;
        }
        return current.compareTo(max.dividedBy(2)) >= 0 ? max : current.multipliedBy(2);
    }
}
