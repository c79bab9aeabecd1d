package dev.needle.blocks.store.s3;

import java.time.Duration;
import java.util.Objects;

/**
 * How long an {@link S3BlockStore}'s client waits before it calls a request failed; the SDK's
 * standard retry strategy then tries twice more (3 attempts, exponential backoff with jitter from
 * 100 ms, from 1 s for throttling), and what still fails is an IOException to the caller.
 *
 * @param connect to open a connection: S3 accepts one in milliseconds, so a few seconds means the
 *                endpoint cannot be reached, and saying so early is better
 * @param socket  between two reads of one connection: a GET's first byte, then each next one; a
 *                stalled connection fails after this long instead of hanging a query or an upload
 * @param attempt for one attempt of a request, whole: bounds a response that trickles in; long
 *                enough for the PUT of a large block's data.arrow on a slow link
 */
public record S3Timeouts(Duration connect, Duration socket, Duration attempt) {

    /** The store's defaults: connect 2 s, socket 10 s, attempt 2 min. */
    public static final S3Timeouts DEFAULTS = new S3Timeouts(Duration.ofSeconds(2), Duration.ofSeconds(10),
            Duration.ofMinutes(2));

    public S3Timeouts {
        for (Duration d : new Duration[] {connect, socket, attempt}) {
            Objects.requireNonNull(d, "timeout");
            if (d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException("an S3 timeout must be positive, got " + d);
            }
        }
    }
}
