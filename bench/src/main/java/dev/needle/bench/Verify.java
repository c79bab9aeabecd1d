package dev.needle.bench;

import dev.needle.sidecar.BloomSidecar;
import dev.needle.sidecar.Sidecar;

/**
 * Checks that make a benchmark of broken code fail instead of looking fast. Every failure is an
 * {@link IllegalStateException}, which JMH reports as a failed benchmark.
 */
final class Verify {

    private Verify() {
    }

    /** Throws with the formatted message unless {@code ok}. */
    static void that(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new IllegalStateException(String.format(format, args));
        }
    }

    /** Decodes {@code file}, which must be a verified sidecar with a bitset of {@code bitsetBytes}. */
    static Sidecar verifiedSidecar(byte[] file, long bitsetBytes) {
        that(file.length == BloomSidecar.HEADER_BYTES + bitsetBytes,
                "sidecar file has %d bytes, expected %d + %d", file.length, BloomSidecar.HEADER_BYTES, bitsetBytes);
        Sidecar sidecar = BloomSidecar.decode(file);
        that(sidecar.isVerified(), "a freshly built sidecar failed open: %s", sidecar.detail());
        return sidecar;
    }

    /** The bitset bytes the format gives n distinct keys: max(64, next power of two >= 10n) bits. */
    static long bitsetBytesFor(int distinctKeys) {
        long wanted = Math.max(64L, (long) BloomSidecar.BITS_PER_KEY * distinctKeys);
        return Long.highestOneBit(wanted - 1) * 2 / 8;
    }
}
