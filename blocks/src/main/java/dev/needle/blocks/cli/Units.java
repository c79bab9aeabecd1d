package dev.needle.blocks.cli;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations ({@code 500ms}, {@code 30s}, {@code 2m}, {@code 6h}, {@code 7d}) and byte sizes
 * ({@code 1048576}, {@code 64KiB}, {@code 256MiB}, {@code 1GiB}, {@code 10GB}) as the command line writes
 * them. {@code KiB} to {@code TiB} are powers of 1024, {@code KB} to {@code TB} powers of 1000, as the
 * standard units are and as Loki and Tempo read them; sizes are written back in the binary units.
 */
public final class Units {

    private static final Pattern DURATION = Pattern.compile("(\\d{1,12})(ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d{1,19})(b|kib|mib|gib|tib|kb|mb|gb|tb)?");
    private static final String[] SIZE_SUFFIXES = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Units() {
    }

    /** A positive duration such as {@code 2m}. */
    public static Duration duration(String text) {
        Matcher m = DURATION.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 30s, 2m, 6h or 7d, got '" + text + "'");
        }
        long n = Long.parseLong(m.group(1));
        Duration d = switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
        if (d.isZero()) {
            throw new IllegalArgumentException("a duration must be positive, got '" + text + "'");
        }
        return d;
    }

    /** A positive byte count such as {@code 256MiB} (2^20 bytes each) or {@code 10GB} (10^9 bytes each). */
    public static long bytes(String text) {
        Matcher m = SIZE.matcher(text.strip().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a size in bytes such as 1048576, 64KiB, 256MiB, 1GiB or 10GB,"
                    + " got '" + text + "'");
        }
        long unit = switch (m.group(2) == null ? "b" : m.group(2)) {
            case "kib" -> 1L << 10;
            case "mib" -> 1L << 20;
            case "gib" -> 1L << 30;
            case "tib" -> 1L << 40;
            case "kb" -> 1_000L;
            case "mb" -> 1_000_000L;
            case "gb" -> 1_000_000_000L;
            case "tb" -> 1_000_000_000_000L;
            default -> 1;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n < 1 || n > Long.MAX_VALUE / unit) {
                throw new NumberFormatException();
            }
            return n * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a size must be between 1 byte and 2^63 - 1 bytes, got '" + text + "'");
        }
    }

    /** {@code bytes} in the largest binary unit that divides it, as {@link #bytes} reads it back. */
    public static String formatBytes(long bytes) {
        int unit = 0;
        while (unit + 1 < SIZE_SUFFIXES.length && bytes != 0 && bytes % 1024 == 0) {
            bytes /= 1024;
            unit++;
        }
        return bytes + SIZE_SUFFIXES[unit];
    }

    /** {@code noun} as a count of {@code n} takes it: {@code "block"} for 1, else {@code "blocks"}. */
    public static String plural(long n, String noun) {
        return plural(n, noun, noun + "s");
    }

    /** {@code one} for a count of 1, else {@code many}: {@code "entry"} or {@code "entries"}. */
    public static String plural(long n, String one, String many) {
        return n == 1 ? one : many;
    }

    /** {@code d} in the largest unit that divides it, as {@link #duration} reads it back. */
    public static String formatDuration(Duration d) {
        long ms = d.toMillis();
        if (ms % 86_400_000 == 0) {
            return ms / 86_400_000 + "d";
        }
        if (ms % 3_600_000 == 0) {
            return ms / 3_600_000 + "h";
        }
        if (ms % 60_000 == 0) {
            return ms / 60_000 + "m";
        }
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
