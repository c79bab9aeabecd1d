package dev.needle.query.loki;

import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.Params;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Loki's query parameters, read as Loki reads them ({@code pkg/loghttp/params.go}): timestamps as
 * Unix nanoseconds (ten digits or fewer: seconds), seconds with a fraction (kept to the millisecond),
 * or RFC 3339; {@code since} and {@code step} as Prometheus durations; {@code start} inclusive,
 * {@code end} exclusive. Each problem is a 400 in Loki's words.
 */
final class LokiParams {

    /** Loki's default {@code limit}. */
    static final int DEFAULT_LIMIT = 100;
    /** Loki's default {@code max_entries_limit_per_query}. */
    static final int MAX_LIMIT = 5000;
    /** How far back a log query looks by default. */
    static final Duration QUERY_SINCE = Duration.ofHours(1);
    /** How far back the label and series endpoints look by default. */
    static final Duration LABELS_SINCE = Duration.ofHours(6);

    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,19}");
    private static final Pattern DURATION = Pattern.compile("((\\d+)y)?((\\d+)w)?((\\d+)d)?((\\d+)h)?((\\d+)m)?((\\d+)s)?((\\d+)ms)?");
    private static final long[] DURATION_UNITS = {365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1};

    private LokiParams() {
    }

    /**
     * {@code start}, {@code end} and {@code since} as Loki bounds them: end defaults to now, start to
     * {@code since} (default {@code defaultSince}) before the end, or before now when the end is later.
     */
    static TimeRange range(Params params, long nowNanos, Duration defaultSince) throws ApiException {
        String sinceText = params.string("since");
        long since = sinceText == null ? defaultSince.toNanos() : millis("since", sinceText) * 1_000_000L;
        long end = time(params, "end", nowNanos);
        long start = time(params, "start", Math.min(end, nowNanos) - since);
        if (end <= start) {
            throw ApiException.badRequest("end timestamp must not be before or equal to start time");
        }
        return new TimeRange(start, end - 1);
    }

    /** The timestamp parameter {@code name}, or {@code absent}. */
    static long time(Params params, String name, long absent) throws ApiException {
        String v = params.string(name);
        if (v == null) {
            return absent;
        }
        try {
            if (v.contains(".")) {
                try {
                    double seconds = Double.parseDouble(v);
                    double whole = Math.floor(seconds);
                    long millis = Math.round((seconds - whole) * 1000);
                    return Math.addExact(Math.multiplyExact((long) whole, 1_000_000_000L), millis * 1_000_000L);
                } catch (NumberFormatException e) {
                    // Not a number with a fraction: perhaps RFC 3339, below.
                }
            }
            if (INTEGER.matcher(v).matches()) {
                long n = Long.parseLong(v);
                return v.replace("-", "").length() <= 10 ? Math.multiplyExact(n, 1_000_000_000L) : n;
            }
            OffsetDateTime t = OffsetDateTime.parse(v);
            return Math.addExact(Math.multiplyExact(t.toEpochSecond(), 1_000_000_000L), t.getNano());
        } catch (DateTimeParseException | NumberFormatException | ArithmeticException e) {
            throw ApiException.badRequest("could not parse '" + name + "' parameter: " + Params.quote(v)
                    + " is neither Unix nanoseconds, seconds with a fraction, nor an RFC 3339 time");
        }
    }

    /** {@code limit}: 1 to {@link #MAX_LIMIT}, {@link #DEFAULT_LIMIT} when absent. */
    static int limit(Params params) throws ApiException {
        String v = params.string("limit");
        if (v == null) {
            return DEFAULT_LIMIT;
        }
        if (!v.matches("\\d{1,9}") || Integer.parseInt(v) < 1) {
            throw ApiException.badRequest("invalid limit: expected a whole number from 1 to " + MAX_LIMIT + ", got "
                    + Params.quote(v));
        }
        int limit = Integer.parseInt(v);
        if (limit > MAX_LIMIT) {
            throw ApiException.badRequest("max entries limit per query exceeded, limit > max_entries_limit_per_query ("
                    + limit + " > " + MAX_LIMIT + ")");
        }
        return limit;
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

    /** {@code step} in milliseconds: a duration or seconds; {@code absent} when not given. */
    static long stepMillis(Params params, long absent) throws ApiException {
        String v = params.string("step");
        if (v == null) {
            return absent;
        }
        long step;
        try {
            step = Math.round(Double.parseDouble(v) * 1000);
        } catch (NumberFormatException e) {
            step = millis("step", v);
        }
        if (step <= 0) {
            throw ApiException.badRequest("zero or negative query resolution step widths are not accepted. Try a"
                    + " positive integer");
        }
        return step;
    }

    /** A Prometheus duration such as {@code 1h30m} in milliseconds. */
    private static long millis(String name, String v) throws ApiException {
        Matcher m = DURATION.matcher(v);
        if (v.isEmpty() || !m.matches()) {
            throw ApiException.badRequest("could not parse '" + name + "' parameter: not a duration: " + Params.quote(v)
                    + " (such as 5m, 1h30m, 7d)");
        }
        long total = 0;
        try {
            for (int unit = 0; unit < DURATION_UNITS.length; unit++) {
                String n = m.group(2 + 2 * unit);
                if (n != null) {
                    total = Math.addExact(total, Math.multiplyExact(Long.parseLong(n), DURATION_UNITS[unit]));
                }
            }
            Math.multiplyExact(total, 1_000_000L);
        } catch (ArithmeticException | NumberFormatException e) {
            throw ApiException.badRequest("could not parse '" + name + "' parameter: duration out of range: "
                    + Params.quote(v));
        }
        return total;
    }
}
