package dev.needle.query.loki;

import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.Params;
import dev.needle.query.http.TimeParams;
import java.time.Duration;

/**
 * Loki's query parameters, read as Loki reads them ({@code pkg/loghttp/params.go}): times and durations as
 * {@link TimeParams} reads them; {@code start} inclusive, {@code end} exclusive. Each problem is a 400 in
 * Loki's words.
 */
final class LokiParams {

    /** Loki's default {@code limit}. */
    static final int DEFAULT_LIMIT = 100;
    /** Loki's default {@code max_entries_limit_per_query}. */
    static final int MAX_LIMIT = 5000;
    /** Loki's bound on the points of one series: range over step. */
    static final int MAX_POINTS = 11_000;
    /** How far back a log query looks by default. */
    static final Duration QUERY_SINCE = Duration.ofHours(1);
    /** How far back the label and series endpoints look by default. */
    static final Duration LABELS_SINCE = Duration.ofHours(6);

    private LokiParams() {
    }

    /**
     * {@code start}, {@code end} and {@code since} as Loki bounds them: end defaults to now, start to
     * {@code since} (default {@code defaultSince}) before the end, or before now when the end is later.
     */
    static TimeRange range(Params params, long nowNanos, Duration defaultSince) throws ApiException {
        String sinceText = params.string("since");
        long since = sinceText == null ? defaultSince.toNanos() : TimeParams.millis("since", sinceText) * 1_000_000L;
        long end = TimeParams.time(params, "end", nowNanos);
        long start = TimeParams.time(params, "start", Math.min(end, nowNanos) - since);
        if (end <= start) {
            throw ApiException.badRequest("end timestamp must not be before or equal to start time");
        }
        return new TimeRange(start, end - 1);
    }

    /** {@code limit}: 1 to {@link #MAX_LIMIT}, {@link #DEFAULT_LIMIT} when absent. */
    static int limit(Params params) throws ApiException {
        return limit(params, "limit", DEFAULT_LIMIT);
    }

    /** A limit on entries named {@code name}: 1 to {@link #MAX_LIMIT}, {@code absent} when not given. */
    static int limit(Params params, String name, int absent) throws ApiException {
        String v = params.string(name);
        if (v == null) {
            return absent;
        }
        if (!v.matches("\\d{1,9}") || Integer.parseInt(v) < 1) {
            throw ApiException.badRequest("invalid " + name + ": expected a whole number from 1 to " + MAX_LIMIT
                    + ", got " + Params.quote(v));
        }
        int limit = Integer.parseInt(v);
        if (limit > MAX_LIMIT) {
            throw ApiException.badRequest("max entries limit per query exceeded, limit > max_entries_limit_per_query ("
                    + limit + " > " + MAX_LIMIT + ")");
        }
        return limit;
    }

    /** Loki's default step: the range over 250 points, at least a second. */
    static long defaultStepMillis(TimeRange range) {
        long seconds = (range.toUnixNano() + 1 - range.fromUnixNano()) / 1_000_000_000L / 250;
        return Math.max(1, seconds) * 1000;
    }

    /**
     * How many points a series has at {@code fromNanos}, then every {@code stepMillis} up to {@code toNanos}; refused
     * past {@link #MAX_POINTS} in Loki's words.
     */
    static long points(long fromNanos, long toNanos, long stepMillis) throws ApiException {
        long points = (toNanos - fromNanos) / (stepMillis * 1_000_000L) + 1;
        if (points > MAX_POINTS) {
            throw ApiException.badRequest("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing"
                    + " the query resolution (?step=XX)");
        }
        return points;
    }

    /**
     * A whole-number parameter of at least 1 with no upper bound but an int's, {@code absent} when not given, as
     * Loki reads the limits of its index and detected-field endpoints.
     */
    static int positive(Params params, String name, int absent) throws ApiException {
        String v = params.string(name);
        if (v == null) {
            return absent;
        }
        if (!v.matches("\\d{1,9}") || Integer.parseInt(v) < 1) {
            throw ApiException.badRequest("invalid " + name + ": expected a positive whole number, got " + Params.quote(v));
        }
        return Integer.parseInt(v);
    }

    /** {@code direction}: true for {@code forward}, false for {@code backward} (the default). */
    static boolean forward(Params params) throws ApiException {
        String v = params.string("direction");
        if (v == null || v.equalsIgnoreCase("backward")) {
            return false;
        }
        if (v.equalsIgnoreCase("forward")) {
            return true;
        }
        throw ApiException.badRequest("invalid direction " + Params.quote(v) + ": expected forward or backward");
    }
}
