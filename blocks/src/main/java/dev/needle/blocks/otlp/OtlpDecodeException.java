package dev.needle.blocks.otlp;

import java.io.IOException;

/** An OTLP request body that cannot be decoded at all (HTTP 400); the message says where and why. */
public final class OtlpDecodeException extends IOException {

    private static final long serialVersionUID = 1L;

    public OtlpDecodeException(String message) {
        super(message);
    }

    public OtlpDecodeException(String message, Throwable cause) {
        super(message, cause);
    }
}
