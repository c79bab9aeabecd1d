package dev.needle.ingest;

/**
 * Ingest cannot take more data right now (the head or the write-ahead log is over its bound, or
 * the log cannot be written): the client should retry after {@link #retryAfterSeconds()}.
 */
public final class IngestRefusedException extends Exception {

    private final int httpStatus;
    private final int retryAfterSeconds;

    /** A refusal answered with {@code httpStatus} (429 or 503) and a Retry-After. */
    public IngestRefusedException(int httpStatus, int retryAfterSeconds, String message) {
        super(message);
        this.httpStatus = httpStatus;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    /** 429 when the head is full (slow down), 503 when the write-ahead log is behind or broken. */
    public int httpStatus() {
        return httpStatus;
    }

    /** Seconds the client should wait before retrying. */
    public int retryAfterSeconds() {
        return retryAfterSeconds;
    }
}
