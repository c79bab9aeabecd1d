package dev.needle.sidecar;

import java.util.HexFormat;
import java.util.Optional;

/**
 * A trace id as people and clients write it: 1 to 32 hex digits of either case. A shorter id is
 * zero-padded on the left to 16 bytes, as Grafana Tempo pads it, so that a 64-bit Zipkin or Jaeger
 * id in 16 digits finds the 128-bit id it is stored as. The one reader of trace-id text: the
 * query API, the query command line and {@code inspect sidecar --probe} accept the same forms.
 */
public final class TraceIdText {

    /** The bytes of a trace id. */
    public static final int BYTES = 16;

    private TraceIdText() {
    }

    /** The 16 bytes {@code text} names, or empty when it is not 1 to 32 hex digits (nothing else, no spaces). */
    public static Optional<byte[]> parse(String text) {
        int digits = text.length();
        if (digits == 0 || digits > 2 * BYTES) {
            return Optional.empty();
        }
        for (int i = 0; i < digits; i++) {
            if (!HexFormat.isHexDigit(text.charAt(i))) {
                return Optional.empty();
            }
        }
        return Optional.of(HexFormat.of().parseHex("0".repeat(2 * BYTES - digits) + text));
    }
}
