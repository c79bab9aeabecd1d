package dev.needle.query.ql;

/**
 * Exact comparisons between attribute values and literals, without the rounding a conversion
 * through {@code double} would bring: {@code (double) (2^53 + 1) == 2^53}, so comparing a long
 * and a double as doubles could call different values equal.
 */
final class Ordering {

    private static final double TWO_TO_63 = 0x1p63;

    private Ordering() {
    }

    /** The sign of {@code n − d}, exactly; {@code d} must not be NaN. */
    static int compare(long n, double d) {
        if (d >= TWO_TO_63) {
            return -1;
        }
        if (d < -TWO_TO_63) {
            return 1;
        }
        // d is in [-2^63, 2^63): truncation gives its integral part exactly, as a long.
        long whole = (long) d;
        if (n != whole) {
            return Long.compare(n, whole);
        }
        // n == whole. (double) whole is exact: below 2^53 every long is a double, and above it d
        // is integral, so whole == d. The sign of n − d is then the sign of whole − d.
        double w = whole;
        return w < d ? -1 : w > d ? 1 : 0;
    }

    /** The sign of {@code a − b}; -0.0 equals 0.0; neither may be NaN. */
    static int compare(double a, double b) {
        return a < b ? -1 : a > b ? 1 : 0;
    }

    /**
     * Strings in code point order, which is also the order of their UTF-8 bytes (unlike
     * {@link String#compareTo}, which orders UTF-16 units and so puts U+FFFF after U+1F600).
     */
    static int compare(String a, String b) {
        int n = Math.min(a.length(), b.length());
        for (int i = 0; i < n; i++) {
            char x = a.charAt(i);
            char y = b.charAt(i);
            if (x != y) {
                return Integer.compare(codePointRank(x), codePointRank(y));
            }
        }
        return Integer.compare(a.length(), b.length());
    }

    /**
     * At the first differing UTF-16 unit, moves surrogates (which start code points ≥ U+10000)
     * above U+E000..U+FFFF, so that units compare in code point order.
     */
    private static int codePointRank(char c) {
        if (c >= 0xE000) {
            return c - 0x800;
        }
        return Character.isSurrogate(c) ? c + 0x2000 : c;
    }
}
