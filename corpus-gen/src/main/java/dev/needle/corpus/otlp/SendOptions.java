package dev.needle.corpus.otlp;

import java.net.URI;
import java.util.Locale;
import java.util.Objects;

/**
 * How an {@link OtlpSender} sends.
 *
 * @param baseUrl                the server's OTLP/HTTP base, such as {@code http://127.0.0.1:4318}; the signal's
 *                               path ({@code /v1/traces}, {@code /v1/logs}) is appended to its path
 * @param concurrency            worker threads, each with one request in flight
 * @param targetRecordsPerSecond the most records a second all workers together start; 0 = as fast as accepted
 * @param encoding               protobuf or OTLP/JSON
 * @param gzip                   whether bodies are sent with {@code Content-Encoding: gzip}
 * @param tenantOrNull           the {@code X-Scope-OrgID} header, or null to send none (the server's default tenant)
 * @param maxAttempts            attempts per batch, the first included, before a retryable failure counts as failed
 * @param dryRun                 encode (and gzip) every batch but send nothing: the report then gives the
 *                               generator's and encoder's own ceiling
 */
public record SendOptions(URI baseUrl, int concurrency, long targetRecordsPerSecond, OtlpEncoding encoding,
                          boolean gzip, String tenantOrNull, int maxAttempts, boolean dryRun) {

    /** Attempts per batch that OTLP exporters commonly make: the first and four retries. */
    public static final int DEFAULT_MAX_ATTEMPTS = 5;

    public SendOptions {
        Objects.requireNonNull(baseUrl, "baseUrl");
        Objects.requireNonNull(encoding, "encoding");
        String scheme = baseUrl.getScheme() == null ? "" : baseUrl.getScheme().toLowerCase(Locale.ROOT);
        if ((!scheme.equals("http") && !scheme.equals("https")) || baseUrl.getHost() == null) {
            throw new IllegalArgumentException("the OTLP base URL must be http://host:port or https://host:port, got "
                    + baseUrl);
        }
        if (baseUrl.getRawQuery() != null || baseUrl.getRawFragment() != null) {
            throw new IllegalArgumentException("the OTLP base URL takes no query or fragment, got " + baseUrl);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, got " + concurrency);
        }
        if (targetRecordsPerSecond < 0) {
            throw new IllegalArgumentException("the target rate must be 0 (no limit) or positive, got "
                    + targetRecordsPerSecond);
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1, got " + maxAttempts);
        }
        if (tenantOrNull != null && (tenantOrNull.isEmpty() || tenantOrNull.chars().anyMatch(c -> c < 0x20 || c >= 0x7f))) {
            // Anything else goes to the server, which judges tenant ids; these cannot even be sent as a header.
            throw new IllegalArgumentException("the tenant must be non-empty printable ASCII, got '" + tenantOrNull + "'");
        }
    }

    /** The URL of {@code path} ({@code /v1/traces} or {@code /v1/logs}) under the base, as OTLP exporters join them. */
    URI endpoint(String path) {
        String base = baseUrl.toString();
        while (base.endsWith("/")) {
            base = base.substring(0, base.length() - 1);
        }
        return URI.create(base + path);
    }
}
