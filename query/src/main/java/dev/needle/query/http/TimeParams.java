package dev.needle.query.http;

import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Times and durations in query parameters as Loki and Tempo both read them ({@code parseTimestamp} and
 * {@code parseSecondsOrDuration} in each): a time as Unix nanoseconds (ten digits or fewer: seconds),
 * seconds with a fraction (kept to the millisecond) or RFC 3339; a duration as Prometheus writes one
 * ({@code 1h30m}) or, for a step, seconds. Each problem is a 400 naming the parameter.
 */
public final class TimeParams {

    private static final Pattern INTEGER = Pattern.compile("-?\\d{1,19}");
    private static final Pattern DURATION = Pattern.compile("((\\d+)y)?((\\d+)w)?((\\d+)d)?((\\d+)h)?((\\d+)m)?((\\d+)s)?((\\d+)ms)?");
    private static final long[] DURATION_UNITS = {365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000, 1};

    private TimeParams() {
    }

    /** The timestamp parameter {@code name}, or {@code absent}. */
    public static long time(Params params, String name, long absent) throws ApiException {
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

    /** {@code step} in milliseconds: a duration or seconds; {@code absent} when not given. */
    public static long stepMillis(Params params, long absent) throws ApiException {
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
    public static long millis(String name, String v) throws ApiException {
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
