package dev.needle.query.logql.pipeline;

import dev.needle.query.logql.LogQlParser;
import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text forms of numbers, durations and byte sizes that label filters and templates read, as Go
 * reads them: {@code strconv.ParseFloat}, {@code time.ParseDuration} and go-humanize's
 * {@code ParseBytes}.
 */
public final class Units {

    private static final Pattern FLOAT = Pattern.compile(
            "[+-]?(([0-9](_?[0-9])*)?\\.?[0-9]*([eE][+-]?[0-9]+)?|0[xX][0-9a-fA-F.]+[pP][+-]?[0-9]+|(?i)inf(inity)?|nan)");
    private static final Pattern DURATION_PART = Pattern.compile("([0-9]*(\\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h|d|w|y)");
    private static final Map<String, Long> DURATION_UNITS = Map.of("ns", 1L, "us", 1_000L, "µs", 1_000L, "μs", 1_000L,
            "ms", 1_000_000L, "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L,
            "d", 86_400_000_000_000L, "w", 604_800_000_000_000L);
    private static final long YEAR = 365 * 86_400_000_000_000L;
    private static final Pattern BYTES = Pattern.compile("([0-9.,]*[0-9.])\\s*([a-zA-Z]*)");
    private static final Map<String, Long> BYTE_UNITS = Map.ofEntries(Map.entry("", 1L), Map.entry("b", 1L),
            Map.entry("k", 1_000L), Map.entry("kb", 1_000L), Map.entry("ki", 1L << 10), Map.entry("kib", 1L << 10),
            Map.entry("m", 1_000_000L), Map.entry("mb", 1_000_000L), Map.entry("mi", 1L << 20), Map.entry("mib", 1L << 20),
            Map.entry("g", 1_000_000_000L), Map.entry("gb", 1_000_000_000L), Map.entry("gi", 1L << 30),
            Map.entry("gib", 1L << 30), Map.entry("t", 1_000_000_000_000L), Map.entry("tb", 1_000_000_000_000L),
            Map.entry("ti", 1L << 40), Map.entry("tib", 1L << 40), Map.entry("p", 1_000_000_000_000_000L),
            Map.entry("pb", 1_000_000_000_000_000L), Map.entry("pi", 1L << 50), Map.entry("pib", 1L << 50),
            Map.entry("e", 1_000_000_000_000_000_000L), Map.entry("eb", 1_000_000_000_000_000_000L),
            Map.entry("ei", 1L << 60), Map.entry("eib", 1L << 60));

    private Units() {
    }

    /** A number as Go's {@code strconv.ParseFloat} reads it; an error naming the text otherwise. */
    public static double parseFloat(String s) {
        if (!s.isEmpty() && FLOAT.matcher(s).matches() && s.chars().anyMatch(c -> c != '+' && c != '-' && c != '.')) {
            String t = s.replace("_", "").toLowerCase(Locale.ROOT);
            String unsigned = t.startsWith("+") || t.startsWith("-") ? t.substring(1) : t;
            double sign = t.startsWith("-") ? -1 : 1;
            if (unsigned.startsWith("inf")) {
                return sign * Double.POSITIVE_INFINITY;
            }
            if (unsigned.equals("nan")) {
                return Double.NaN;
            }
            try {
                return unsigned.startsWith("0x") ? sign * Double.parseDouble(unsigned) : Double.parseDouble(t);
            } catch (NumberFormatException e) {
                // falls through to the error below
            }
        }
        throw new IllegalArgumentException("strconv.ParseFloat: parsing " + LogQlParser.quote(s) + ": invalid syntax");
    }

    /**
     * A duration in nanoseconds as Go's {@code time.ParseDuration} reads it ({@code 1h30m}, {@code 0.5s},
     * {@code -2ms}; units ns, us, µs, ms, s, m, h); with {@code longUnits} also d, w and y, as LogQL's
     * duration literals.
     */
    public static long parseDuration(String s, boolean longUnits) {
        String t = s;
        boolean negative = false;
        if (t.startsWith("-") || t.startsWith("+")) {
            negative = t.startsWith("-");
            t = t.substring(1);
        }
        if (t.equals("0")) {
            return 0;
        }
        Matcher m = DURATION_PART.matcher(t);
        BigDecimal total = BigDecimal.ZERO;
        int at = 0;
        while (at < t.length() && m.find(at) && m.start() == at) {
            String number = m.group(1);
            String unit = m.group(3);
            if (number.isEmpty() || number.equals(".") || !longUnits && (unit.equals("d") || unit.equals("w") || unit.equals("y"))) {
                break;
            }
            long scale = unit.equals("y") ? YEAR : DURATION_UNITS.get(unit);
            total = total.add(new BigDecimal(number.endsWith(".") ? number + "0" : number).multiply(BigDecimal.valueOf(scale)));
            at = m.end();
        }
        if (t.isEmpty() || at != t.length()) {
            throw new IllegalArgumentException("time: invalid duration " + LogQlParser.quote(s));
        }
        if (total.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
            throw new IllegalArgumentException("time: invalid duration " + LogQlParser.quote(s));
        }
        long nanos = total.longValue();
        return negative ? -nanos : nanos;
    }

    /** A size in bytes as go-humanize's {@code ParseBytes} reads it: {@code 42MB} (10^6), {@code 1.5KiB} (2^10), {@code 20 B}. */
    public static long parseBytes(String s) {
        Matcher m = BYTES.matcher(s.trim());
        if (m.matches()) {
            Long unit = BYTE_UNITS.get(m.group(2).toLowerCase(Locale.ROOT));
            if (unit == null) {
                throw new IllegalArgumentException("unhandled size name: " + m.group(2).toLowerCase(Locale.ROOT));
            }
            try {
                BigDecimal value = new BigDecimal(m.group(1).replace(",", "")).multiply(BigDecimal.valueOf(unit));
                if (value.compareTo(new BigDecimal("18446744073709551615")) > 0) {
                    throw new IllegalArgumentException("too large: " + s);
                }
                return value.longValue();
            } catch (NumberFormatException e) {
                // falls through to the error below
            }
        }
        throw new IllegalArgumentException("strconv.ParseFloat: parsing " + LogQlParser.quote(s) + ": invalid syntax");
    }
}
