package dev.needle.blocks.meta;

import java.io.IOException;

/** A {@code meta.json} that cannot be trusted: not JSON, or JSON that breaks the format; the message names the problem. */
public final class CorruptMetaException extends IOException {

    /** {@code message} names the problem. */
    public CorruptMetaException(String message) {
        super(message);
    }

    /** {@code message} names the problem, {@code cause} is the parser's own error. */
    public CorruptMetaException(String message, Throwable cause) {
        super(message, cause);
    }
}
