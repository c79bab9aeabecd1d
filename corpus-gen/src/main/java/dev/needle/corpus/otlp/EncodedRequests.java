package dev.needle.corpus.otlp;

import dev.needle.blocks.model.Signal;
import java.util.List;
import java.util.Objects;

/**
 * Export requests encoded ahead of a send and held in memory, so that a send only posts them:
 * made by {@link OtlpSender#encodeSpans} or {@link OtlpSender#encodeLogs}, sent by {@link OtlpSender#send}.
 *
 * @param signal   what the bodies hold: spans or log records
 * @param encoding what they were written in
 * @param gzip     whether they were gzipped
 * @param bodies   the requests, in the order of the batches they were made from
 */
public record EncodedRequests(Signal signal, OtlpEncoding encoding, boolean gzip, List<Body> bodies) {

    /** One request body, as sent, and how many records it holds. */
    public record Body(byte[] bytes, int records) {

        public Body {
            Objects.requireNonNull(bytes, "bytes");
            if (records < 1) {
                throw new IllegalArgumentException("a request body holds at least one record, got " + records);
            }
        }
    }

    public EncodedRequests {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(encoding, "encoding");
        bodies = List.copyOf(bodies);
    }

    /** The records of every body. */
    public long records() {
        return bodies.stream().mapToLong(Body::records).sum();
    }

    /** The bytes of every body. */
    public long bytes() {
        return bodies.stream().mapToLong(b -> b.bytes().length).sum();
    }
}
