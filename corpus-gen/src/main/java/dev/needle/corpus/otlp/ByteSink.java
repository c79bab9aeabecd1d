package dev.needle.corpus.otlp;

import java.io.ByteArrayOutputStream;

/** A growable in-memory buffer whose bytes can be sent or written without copying them; one per worker, reused. */
final class ByteSink extends ByteArrayOutputStream {

    ByteSink() {
        super(1 << 16);
    }

    /** The buffer: its first {@link #size()} bytes are what was written since the last {@link #reset()}. */
    byte[] array() {
        return buf;
    }
}
