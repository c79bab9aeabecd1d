package dev.needle.query.cli;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.store.TenantId;
import dev.needle.sidecar.TraceIdText;
import java.math.BigDecimal;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Converters for the command line's values. A value that does not convert is a usage error (exit
 * 2) whose message says what was expected.
 */
final class Args {

    private static final Pattern DURATION_PART = Pattern.compile("(\\d+)(ms|s|m|h|d|w)");
    private static final Pattern UNIX_SECONDS = Pattern.compile("\\d{1,12}(\\.\\d{1,9})?");

    private Args() {
    }

    /** A trace id as {@link TraceIdText} reads it, around any surrounding spaces. */
    static Bytes traceId(String text) {
        return TraceIdText.parse(text.strip()).map(Bytes::wrap).orElseThrow(() ->
                new TypeConversionException("a trace id is 1 to 32 hex digits, got '" + Text.cut(text, 40) + "'"));
    }

    /** A duration such as 15m, 2h, 7d or 1h30m (units ms, s, m, h, d, w), longer than zero. */
    static Duration duration(String text) {
        String s = text.strip().toLowerCase(Locale.ROOT);
        Matcher m = DURATION_PART.matcher(s);
        Duration total = Duration.ZERO;
        int at = 0;
        try {
            while (at < s.length() && m.region(at, s.length()).lookingAt()) {
                long n = Long.parseLong(m.group(1));
                total = total.plus(switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    case "d" -> Duration.ofDays(n);
                    default -> Duration.ofDays(Math.multiplyExact(n, 7));
                });
                at = m.end();
            }
            // Times are Unix nanoseconds in a long: a longer duration (292 years) cannot be subtracted from now.
            total.toNanos();
        } catch (ArithmeticException | NumberFormatException e) {
            throw new TypeConversionException("duration '" + Text.cut(text, 40) + "' is too long");
        }
        if (at == 0 || at < s.length() || total.isZero()) {
            throw new TypeConversionException("expected a duration such as 15m, 2h, 7d or 1h30m (units ms, s, m, h, d,"
                    + " w), got '" + Text.cut(text, 40) + "'");
        }
        return total;
    }

    /** An instant in Unix nanoseconds: RFC 3339 (2026-11-29T20:15:00Z, with any offset) or Unix seconds. */
    static long instant(String text) {
        String s = text.strip();
        try {
            if (UNIX_SECONDS.matcher(s).matches()) {
                return new BigDecimal(s).movePointRight(9).longValueExact();
            }
            Instant i = OffsetDateTime.parse(s.toUpperCase(Locale.ROOT)).toInstant();
            return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000_000L), i.getNano());
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new TypeConversionException("expected an RFC 3339 time such as 2026-11-29T20:15:00Z or Unix seconds"
                    + " such as 1795983300, got '" + Text.cut(text, 40) + "'");
        }
    }

    /** An http or https URL with a host. */
    static URI url(String text) {
        try {
            URI uri = new URI(text.strip());
            if (("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme()))
                    && uri.getHost() != null && uri.getQuery() == null && uri.getFragment() == null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // Reported below, with what was expected.
        }
        throw new TypeConversionException("expected a server URL such as http://127.0.0.1:3200, got '"
                + Text.cut(text, 80) + "'");
    }

    /** Converts a trace id; see {@link #traceId}. */
    static final class TraceIdConverter implements ITypeConverter<Bytes> {
        @Override
        public Bytes convert(String value) {
            return traceId(value);
        }
    }

    /** Converts a duration; see {@link #duration}. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            return duration(value);
        }
    }

    /** Converts an instant to Unix nanoseconds; see {@link #instant}. */
    static final class InstantConverter implements ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            return instant(value);
        }
    }

    /** Converts a server URL; see {@link #url}. */
    static final class UrlConverter implements ITypeConverter<URI> {
        @Override
        public URI convert(String value) {
            return url(value);
        }
    }

    /** Converts and validates a tenant id. */
    static final class TenantConverter implements ITypeConverter<TenantId> {
        @Override
        public TenantId convert(String value) {
            try {
                return TenantId.of(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
