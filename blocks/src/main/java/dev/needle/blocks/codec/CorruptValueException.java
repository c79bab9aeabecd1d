package dev.needle.blocks.codec;

import java.io.IOException;

/** Bytes that are not a valid {@link ValueCodec} encoding; the message says what was wrong and where. */
public final class CorruptValueException extends IOException {

    private final int offset;

    /** {@code problem} is what was wrong, {@code offset} the byte offset in the encoding where it was found. */
    public CorruptValueException(String problem, int offset) {
        super(problem + " at offset " + offset);
        this.offset = offset;
    }

    /** The byte offset in the encoding where the problem was found. */
    public int offset() {
        return offset;
    }
}
