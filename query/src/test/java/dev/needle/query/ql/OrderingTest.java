package dev.needle.query.ql;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class OrderingTest {

    private static final long[] LONGS = {0, 1, -1, 1L << 53, (1L << 53) + 1, (1L << 53) - 1, -(1L << 53) - 1,
        Long.MAX_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE, Long.MIN_VALUE + 1, 1L << 62, (1L << 62) + 1};
    private static final double[] DOUBLES = {0.0, -0.0, 0.5, -0.5, 1.0, 0x1p53, 0x1p53 + 2, 0x1p62, 0x1p63, -0x1p63,
        0x1p64, Math.nextDown(0x1p63), Math.nextUp(-0x1p63), 1e300, -1e300, Double.MIN_VALUE, -Double.MIN_VALUE,
        Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Math.nextUp(1.0), Math.nextDown(1.0)};

    /** Against BigDecimal, the exact reference, on edge values and random ones. */
    @Test
    void compareLongDouble_isExact() {
        for (long n : LONGS) {
            for (double d : DOUBLES) {
                check(n, d);
                check(n, (double) n);
                check(n, Math.nextUp((double) n));
                check(n, Math.nextDown((double) n));
            }
        }
        Random r = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            long n = r.nextBoolean() ? r.nextLong() : r.nextLong() >> r.nextInt(64);
            double d = switch (r.nextInt(3)) {
                case 0 -> (double) (n + r.nextInt(3) - 1);
                case 1 -> Double.longBitsToDouble(r.nextLong());
                default -> n + r.nextDouble() - 0.5;
            };
            if (!Double.isNaN(d)) {
                check(n, d);
            }
        }
    }

    private static void check(long n, double d) {
        int expected = Double.isInfinite(d) ? (d > 0 ? -1 : 1)
                : BigDecimal.valueOf(n).compareTo(new BigDecimal(d));
        assertEquals(expected, Ordering.compare(n, d), n + " vs " + d);
    }

    /** Code point order is UTF-8 byte order, over strings with surrogate pairs and the top of the BMP. */
    @Test
    void compareStrings_isUtf8ByteOrder() {
        String[] pieces = {"a", "b", "é", "\uE000", "\uFFFF", "\uD83D\uDE00", "\uD800\uDC00", "\uDBFF\uDFFF", ""};
        Random r = new Random(7);
        for (int i = 0; i < 50_000; i++) {
            String a = randomString(r, pieces);
            String b = randomString(r, pieces);
            byte[] x = a.getBytes(StandardCharsets.UTF_8);
            byte[] y = b.getBytes(StandardCharsets.UTF_8);
            assertEquals(Integer.signum(Arrays.compareUnsigned(x, y)), Integer.signum(Ordering.compare(a, b)),
                    a + " vs " + b);
        }
    }

    private static String randomString(Random r, String[] pieces) {
        StringBuilder s = new StringBuilder();
        for (int n = r.nextInt(4); n > 0; n--) {
            s.append(pieces[r.nextInt(pieces.length)]);
        }
        return s.toString();
    }
}
