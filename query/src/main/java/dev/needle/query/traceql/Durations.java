package dev.needle.query.traceql;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Duration literals as Tempo reads them (Prometheus' and Go's forms): one or more
 * {@code number unit} pairs, units {@code ns us µs ms s m h d w y}, decimals allowed except with
 * {@code d w y}: {@code 1.5ms}, {@code 1h30m}, {@code 7d}.
 */
final class Durations {

    private static final String[] UNITS = {"ns", "us", "µs", "ms", "s", "m", "h", "d", "w", "y"};
    private static final long[] NANOS = {1L, 1_000L, 1_000L, 1_000_000L, 1_000_000_000L, 60_000_000_000L,
            3_600_000_000_000L, 86_400_000_000_000L, 7 * 86_400_000_000_000L, 365 * 86_400_000_000_000L};

    private Durations() {
    }

    /** The nanoseconds of {@code s}, or null when it is no duration. */
    static Long parse(String s) {
        int i = 0;
        long total = 0;
        boolean any = false;
        while (i < s.length()) {
            int numStart = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            if (i == numStart) {
                return null;
            }
            String number = s.substring(numStart, i);
            int u = unitAt(s, i);
            if (u < 0) {
                return null;
            }
            i += UNITS[u].length();
            if (number.contains(".") && u >= 7) {
                return null;
            }
            try {
                BigDecimal nanos = new BigDecimal(number).multiply(BigDecimal.valueOf(NANOS[u]));
                total = Math.addExact(total, nanos.setScale(0, RoundingMode.DOWN).longValueExact());
            } catch (NumberFormatException | ArithmeticException e) {
                return null;
            }
            any = true;
        }
        return any ? total : null;
    }

    /** The unit that starts at {@code i}, longest match first ({@code ms} before {@code m}). */
    private static int unitAt(String s, int i) {
        int best = -1;
        for (int u = 0; u < UNITS.length; u++) {
            if (s.startsWith(UNITS[u], i) && (best < 0 || UNITS[u].length() > UNITS[best].length())) {
                best = u;
            }
        }
        return best;
    }
}
