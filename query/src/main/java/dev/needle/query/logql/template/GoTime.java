package dev.needle.query.logql.template;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalQueries;
import java.util.Locale;

/**
 * A Go {@code time.Time} in a template: an instant and a zone. Layouts are Go's, written with the
 * reference time {@code Mon Jan 2 15:04:05 MST 2006} ({@code 2006-01-02T15:04:05Z07:00}).
 */
public record GoTime(ZonedDateTime time) {

    /** The zone a needle server reports times in. */
    static final ZoneId UTC = ZoneId.of("UTC");

    /** The time at {@code nanos} after the Unix epoch, in UTC (the zone a needle server reports in). */
    public static GoTime ofUnixNanos(long nanos) {
        return new GoTime(Instant.ofEpochSecond(Math.floorDiv(nanos, 1_000_000_000L), Math.floorMod(nanos, 1_000_000_000L))
                .atZone(UTC));
    }

    /** Nanoseconds since the Unix epoch. */
    public long unixNanos() {
        Instant i = time.toInstant();
        return i.getEpochSecond() * 1_000_000_000L + i.getNano();
    }

    /** As Go's {@code Time.String}: {@code 2006-01-02 15:04:05.999999999 -0700 MST}. */
    @Override
    public String toString() {
        return format("2006-01-02 15:04:05.999999999 -0700 MST");
    }

    /** Formatted with a Go layout. */
    public String format(String layout) {
        return formatter(layout).format(time);
    }

    /** {@code text} read with a Go layout in {@code zone}; an error naming both when it does not fit. */
    public static GoTime parse(String layout, String text, ZoneId zone) throws TemplateException {
        try {
            TemporalAccessor t = formatter(layout).parse(text);
            LocalDate date = t.query(TemporalQueries.localDate());
            LocalTime clock = t.query(TemporalQueries.localTime());
            ZoneId parsedZone = t.query(TemporalQueries.zone());
            return new GoTime(ZonedDateTime.of(date, clock == null ? LocalTime.MIDNIGHT : clock,
                    parsedZone == null ? zone : parsedZone));
        } catch (DateTimeException | NullPointerException e) {
            throw new TemplateException("parsing time " + quote(text) + " as " + quote(layout) + ": cannot parse");
        }
    }

    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    /** Go's layout elements, longest first where one is the start of another. */
    private static final String[] ELEMENTS = {"January", "Monday", "Jan", "Mon", "MST", "2006", "Z07:00:00", "-07:00:00",
        "Z070000", "-070000", "Z07:00", "-07:00", "Z0700", "-0700", "Z07", "-07", "01", "02", "_2", "03", "04", "05",
        "06", "15", "PM", "pm", "1", "2", "3", "4", "5"};

    /** A Go layout as a {@link DateTimeFormatter}. */
    static DateTimeFormatter formatter(String layout) {
        DateTimeFormatterBuilder b = new DateTimeFormatterBuilder();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        outer:
        while (i < layout.length()) {
            int fraction = fractionDigits(layout, i);
            if (fraction > 0) {
                if (literal.length() > 0) {
                    b.appendLiteral(literal.toString());
                    literal.setLength(0);
                }
                if (layout.charAt(i + 1) == '9' && layout.charAt(i) == '.') {
                    // Go leaves out the point with the digits when the fraction is zero.
                    b.appendFraction(ChronoField.NANO_OF_SECOND, 0, fraction, true);
                } else {
                    b.appendLiteral(layout.charAt(i));
                    b.appendFraction(ChronoField.NANO_OF_SECOND, layout.charAt(i + 1) == '0' ? fraction : 0, fraction,
                            false);
                }
                i += fraction + 1;
                continue;
            }
            for (String e : ELEMENTS) {
                if (layout.startsWith(e, i) && !(Character.isDigit(e.charAt(0)) && e.length() == 1
                        && i + 1 < layout.length() && Character.isDigit(layout.charAt(i + 1)))) {
                    if (literal.length() > 0) {
                        b.appendLiteral(literal.toString());
                        literal.setLength(0);
                    }
                    element(b, e);
                    i += e.length();
                    continue outer;
                }
            }
            literal.append(layout.charAt(i++));
        }
        if (literal.length() > 0) {
            b.appendLiteral(literal.toString());
        }
        // A layout without a date reads as January 1 of year 1 (Go's says year 0, which java.time's year of era has not).
        return b.parseDefaulting(ChronoField.YEAR_OF_ERA, 1).parseDefaulting(ChronoField.MONTH_OF_YEAR, 1)
                .parseDefaulting(ChronoField.DAY_OF_MONTH, 1).toFormatter(Locale.ENGLISH);
    }

    /**
     * The length of a fractional-second element at {@code i} ({@code .000} fixed, {@code .999} without
     * trailing zeros, any length up to 9, after {@code .} or {@code ,}), or 0 when there is none.
     */
    private static int fractionDigits(String layout, int i) {
        if (i + 1 >= layout.length() || layout.charAt(i) != '.' && layout.charAt(i) != ',') {
            return 0;
        }
        char digit = layout.charAt(i + 1);
        if (digit != '0' && digit != '9') {
            return 0;
        }
        int j = i + 1;
        while (j < layout.length() && layout.charAt(j) == digit) {
            j++;
        }
        boolean followedByDigit = j < layout.length() && Character.isDigit(layout.charAt(j));
        return followedByDigit || j - i - 1 > 9 ? 0 : j - i - 1;
    }

    private static void element(DateTimeFormatterBuilder b, String e) {
        switch (e) {
            case "January" -> b.appendPattern("MMMM");
            case "Monday" -> b.appendPattern("EEEE");
            case "Jan" -> b.appendPattern("MMM");
            case "Mon" -> b.appendPattern("EEE");
            case "MST" -> b.appendZoneText(java.time.format.TextStyle.SHORT);
            case "2006" -> b.appendValue(ChronoField.YEAR_OF_ERA, 4);
            case "06" -> b.appendValueReduced(ChronoField.YEAR_OF_ERA, 2, 2, 2000);
            case "01" -> b.appendValue(ChronoField.MONTH_OF_YEAR, 2);
            case "1" -> b.appendValue(ChronoField.MONTH_OF_YEAR);
            case "02" -> b.appendValue(ChronoField.DAY_OF_MONTH, 2);
            case "2" -> b.appendValue(ChronoField.DAY_OF_MONTH);
            case "_2" -> b.padNext(2).appendValue(ChronoField.DAY_OF_MONTH);
            case "15" -> b.appendValue(ChronoField.HOUR_OF_DAY, 2);
            case "03" -> b.appendValue(ChronoField.CLOCK_HOUR_OF_AMPM, 2);
            case "3" -> b.appendValue(ChronoField.CLOCK_HOUR_OF_AMPM);
            case "04" -> b.appendValue(ChronoField.MINUTE_OF_HOUR, 2);
            case "4" -> b.appendValue(ChronoField.MINUTE_OF_HOUR);
            case "05" -> b.appendValue(ChronoField.SECOND_OF_MINUTE, 2);
            case "5" -> b.appendValue(ChronoField.SECOND_OF_MINUTE);
            case "PM", "pm" -> b.appendText(ChronoField.AMPM_OF_DAY);
            case "Z07:00:00" -> b.appendOffset("+HH:MM:ss", "Z");
            case "-07:00:00" -> b.appendOffset("+HH:MM:ss", "+00:00:00");
            case "Z070000" -> b.appendOffset("+HHMMss", "Z");
            case "-070000" -> b.appendOffset("+HHMMss", "+000000");
            case "Z07:00" -> b.appendOffset("+HH:MM", "Z");
            case "-07:00" -> b.appendOffset("+HH:MM", "+00:00");
            case "Z0700" -> b.appendOffset("+HHMM", "Z");
            case "-0700" -> b.appendOffset("+HHMM", "+0000");
            case "Z07" -> b.appendOffset("+HH", "Z");
            case "-07" -> b.appendOffset("+HH", "+00");
            default -> throw new IllegalStateException(e);
        }
    }
}
