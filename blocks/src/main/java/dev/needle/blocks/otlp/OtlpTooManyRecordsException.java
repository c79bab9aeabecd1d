package dev.needle.blocks.otlp;

import java.io.IOException;

/**
 * An OTLP request holds more records than one request may (HTTP 413): decoding would build that
 * many objects, so the count is taken before anything is built.
 */
public final class OtlpTooManyRecordsException extends IOException {

    private static final long serialVersionUID = 1L;

    /** A refusal explained by {@code message}. */
    public OtlpTooManyRecordsException(String message) {
        super(message);
    }
}
