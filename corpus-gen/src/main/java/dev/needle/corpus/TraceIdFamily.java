package dev.needle.corpus;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * How a corpus's trace ids are shaped. Real ids are not all random: the structured families put
 * all their entropy in a few bytes, which is what breaks a Bloom filter that does not mix its key.
 *
 * <p>Every family makes the id of trace number {@code t} ({@code 0 ≤ t < 2^31}) from {@code t}, the
 * trace's start second and a random stream, and makes ids certainly or overwhelmingly absent from
 * the same inputs that still fall inside the present ids' byte range, so that only a sidecar (not a
 * zone map) can rule them out.
 */
public enum TraceIdFamily {
    /** W3C: 16 random bytes. */
    RANDOM,
    /** AWS X-Ray: the start time in epoch seconds in bytes 0–3, 12 random bytes after it. */
    XRAY,
    /** A 64-bit id zero-padded to 16 bytes: bytes 0–7 zero, 8 random bytes. */
    SHORT64,
    /** Constant bytes with a counter in bytes 4–7 only: trace {@code t} has counter {@code 2t}, so {@code 2t + 1} is absent. */
    COUNTER;

    /** Bytes 0–3 and 8–15 of every {@link #COUNTER} id. */
    private static final byte[] COUNTER_CONSTANT = {
        0x4e, 0x65, 0x65, 0x64, 0, 0, 0, 0, 0x6c, 0x65, 0x2d, 0x63, 0x6f, 0x75, 0x6e, 0x74};

    /** The id of trace {@code t}, which started at {@code epochSecond}; random bytes come from {@code random}. */
    public byte[] present(long t, long epochSecond, SplittableRandom random) {
        return id(t, false, epochSecond, random);
    }

    /**
     * An id no trace of this family has: for {@link #COUNTER} certainly (an odd counter next to trace
     * {@code t}'s), for the others with probability 1 − 2⁻⁶⁴ or better (fresh random bits; XRAY keeps
     * {@code epochSecond} so the id sits among that second's traces).
     */
    public byte[] absent(long t, long epochSecond, SplittableRandom random) {
        return id(t, true, epochSecond, random);
    }

    /** The family's name on the command line and in the manifest. */
    @JsonValue
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The family named {@code label}, as {@link #label()} spells it. */
    public static TraceIdFamily of(String label) {
        for (TraceIdFamily family : values()) {
            if (family.label().equals(label)) {
                return family;
            }
        }
        throw new IllegalArgumentException("unknown trace-id family '" + label + "' (random, xray, short64, counter)");
    }

    private byte[] id(long t, boolean absent, long epochSecond, SplittableRandom random) {
        if (t < 0 || t >= 1L << 31) {
            throw new IllegalArgumentException("trace number " + t + " is outside 0..2^31-1");
        }
        byte[] id = new byte[16];
        switch (this) {
            case RANDOM -> nonZero(id, 0, random);
            case XRAY -> {
                putInt(id, 0, (int) epochSecond);
                nonZero(id, 4, random);
            }
            case SHORT64 -> nonZero(id, 8, random);
            case COUNTER -> {
                System.arraycopy(COUNTER_CONSTANT, 0, id, 0, 16);
                putInt(id, 4, (int) (2 * t + (absent ? 1 : 0)));
            }
        }
        return id;
    }

    /** Random bytes from {@code from} to 16, redrawn in the (2⁻⁶⁴-unlikely) case that they are all zero. */
    private static void nonZero(byte[] id, int from, SplittableRandom random) {
        long lo;
        long hi;
        do {
            hi = random.nextLong();
            lo = random.nextLong();
            for (int i = from; i < 16; i++) {
                id[i] = (byte) ((i < 8 ? hi >>> (56 - 8 * i) : lo >>> (120 - 8 * i)));
            }
        } while ((from >= 8 ? lo : from >= 4 ? (hi & 0xffffffffL) | lo : hi | lo) == 0);
    }

    private static void putInt(byte[] id, int at, int value) {
        id[at] = (byte) (value >>> 24);
        id[at + 1] = (byte) (value >>> 16);
        id[at + 2] = (byte) (value >>> 8);
        id[at + 3] = (byte) value;
    }
}
