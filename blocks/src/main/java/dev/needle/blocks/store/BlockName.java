package dev.needle.blocks.store;

import java.security.SecureRandom;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.random.RandomGenerator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The directory name of a published block, which says what time range its events cover.
 *
 * <pre>
 * name  = start "_" end "_" id            e.g. 20261129T201500.123Z_20261129T202000.457Z_0k3vq9x2mz7d1c8a4e6b
 * start = yyyyMMdd "T" HHmmss "." SSS "Z" UTC, the minimum event time rounded DOWN to the millisecond
 * end   = yyyyMMdd "T" HHmmss "." SSS "Z" UTC, the maximum event time rounded UP to the millisecond
 * id    = 1..64 of [0-9a-z]
 * </pre>
 *
 * <p>Every event of the block lies in {@code [startUnixNano(), endUnixNano()]}, so a block whose
 * range misses a query's range can be skipped with certainty. Names sort lexically in time order.
 */
public record BlockName(long startUnixMilli, long endUnixMilli, String id) implements Comparable<BlockName> {

    /*
     * Design note: times outside 1970 and outside four-digit years.
     * Event times are OTLP's signed 64-bit Unix nanoseconds, which span 1677-09-21 to 2262-04-11,
     * so every possible event time has a four-digit year and the fixed-width text sorts in time
     * order without clamping; times before 1970 are written as the dates they are. Rounding to
     * the millisecond can step just past the long range (Long.MIN_VALUE rounds down to
     * MIN_MILLI, Long.MAX_VALUE rounds up to MAX_MILLI); startUnixNano() and endUnixNano()
     * saturate there, which only widens the covered range and so keeps pruning certain.
     * Names outside [MIN_MILLI, MAX_MILLI] cannot come from any event and are not blocks.
     */

    private static final long NANOS_PER_MILLI = 1_000_000L;

    /** The earliest start: Long.MIN_VALUE nanoseconds rounded down to the millisecond. */
    static final long MIN_MILLI = Math.floorDiv(Long.MIN_VALUE, NANOS_PER_MILLI);

    /** The latest end: Long.MAX_VALUE nanoseconds rounded up to the millisecond. */
    static final long MAX_MILLI = ceilDiv(Long.MAX_VALUE, NANOS_PER_MILLI);

    /** The longest id accepted. */
    public static final int MAX_ID_LENGTH = 64;

    /** Characters of a generated id: Crockford's base32 alphabet in lower case (no i, l, o, u). */
    private static final char[] ID_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz".toCharArray();

    /** Length of a generated id: 20 base32 characters = 100 random bits. */
    private static final int NEW_ID_LENGTH = 20;

    private static final Pattern ID = Pattern.compile("[0-9a-z]{1," + MAX_ID_LENGTH + "}");
    private static final Pattern NAME = Pattern.compile(
            "(\\d{8}T\\d{6}\\.\\d{3}Z)_(\\d{8}T\\d{6}\\.\\d{3}Z)_([0-9a-z]{1," + MAX_ID_LENGTH + "})");

    private static final SecureRandom RANDOM = new SecureRandom();

    /** Checks the range and the id; see {@link #forRange} to build a name from event times. */
    public BlockName {
        if (startUnixMilli < MIN_MILLI || endUnixMilli > MAX_MILLI || startUnixMilli > endUnixMilli) {
            throw new IllegalArgumentException("block time range [" + startUnixMilli + ", " + endUnixMilli
                    + "] ms must be ordered and within [" + MIN_MILLI + ", " + MAX_MILLI + "]");
        }
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("block id must be 1.." + MAX_ID_LENGTH
                    + " characters of [0-9a-z], got " + (id == null ? "null" : TenantId.quote(id)));
        }
    }

    /** The name of a block whose events lie in {@code [minEventNanos, maxEventNanos]} (Unix nanoseconds). */
    public static BlockName forRange(long minEventNanos, long maxEventNanos, String id) {
        if (minEventNanos > maxEventNanos) {
            throw new IllegalArgumentException(
                    "min event time " + minEventNanos + " is after max event time " + maxEventNanos);
        }
        return new BlockName(Math.floorDiv(minEventNanos, NANOS_PER_MILLI),
                ceilDiv(maxEventNanos, NANOS_PER_MILLI), id);
    }

    /** A new random id (100 bits), for blocks whose names need not be reproducible. */
    public static String newId() {
        return newId(RANDOM);
    }

    /** A new id drawn from {@code random}; a seeded generator gives reproducible names. */
    public static String newId(RandomGenerator random) {
        char[] id = new char[NEW_ID_LENGTH];
        for (int i = 0; i < id.length; i++) {
            id[i] = ID_ALPHABET[random.nextInt(ID_ALPHABET.length)];
        }
        return new String(id);
    }

    /**
     * The block name that {@code dirName} is, or empty when it is anything else (a staging
     * {@code .tmp-*} directory, a stray file, a name out of canonical form or range).
     */
    public static Optional<BlockName> parse(String dirName) {
        Matcher m = NAME.matcher(dirName);
        if (!m.matches()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new BlockName(parseMilli(m.group(1)), parseMilli(m.group(2)), m.group(3)));
        } catch (DateTimeException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** The first nanosecond the block may hold (inclusive). */
    public long startUnixNano() {
        return startUnixMilli < Long.MIN_VALUE / NANOS_PER_MILLI
                ? Long.MIN_VALUE : startUnixMilli * NANOS_PER_MILLI;
    }

    /** The last nanosecond the block may hold (inclusive). */
    public long endUnixNano() {
        return endUnixMilli > Long.MAX_VALUE / NANOS_PER_MILLI
                ? Long.MAX_VALUE : endUnixMilli * NANOS_PER_MILLI;
    }

    /**
     * False only when no event of this block can lie in {@code [fromNanosInclusive, toNanosInclusive]},
     * so the block may be skipped; an empty range ({@code from > to}) holds nothing.
     */
    public boolean mayOverlap(long fromNanosInclusive, long toNanosInclusive) {
        return fromNanosInclusive <= toNanosInclusive
                && fromNanosInclusive <= endUnixNano()
                && toNanosInclusive >= startUnixNano();
    }

    /** Time order, the same as the names' lexical order. */
    @Override
    public int compareTo(BlockName o) {
        int c = Long.compare(startUnixMilli, o.startUnixMilli);
        if (c == 0) {
            c = Long.compare(endUnixMilli, o.endUnixMilli);
        }
        return c != 0 ? c : id.compareTo(o.id);
    }

    /** The directory name. */
    @Override
    public String toString() {
        return format(startUnixMilli) + "_" + format(endUnixMilli) + "_" + id;
    }

    /** {@code yyyyMMdd'T'HHmmss.SSS'Z'}, written by hand for the reason {@link #parseMilli} reads by hand. */
    private static String format(long unixMilli) {
        LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(unixMilli), ZoneOffset.UTC);
        StringBuilder text = new StringBuilder(20);
        pad(text, t.getYear(), 4);
        pad(text, t.getMonthValue(), 2);
        pad(text, t.getDayOfMonth(), 2);
        text.append('T');
        pad(text, t.getHour(), 2);
        pad(text, t.getMinute(), 2);
        pad(text, t.getSecond(), 2);
        text.append('.');
        pad(text, t.getNano() / 1_000_000, 3);
        return text.append('Z').toString();
    }

    private static void pad(StringBuilder text, int value, int width) {
        String digits = Integer.toString(value);
        text.append("0".repeat(Math.max(0, width - digits.length()))).append(digits);
    }

    /**
     * Reads a time the name pattern has already matched ({@code yyyyMMdd'T'HHmmss.SSS'Z'}, all
     * digits in place) by hand: every query lists the store and names each block, and a
     * DateTimeFormatter cost about 4 µs a name. {@link LocalDateTime#of} rejects impossible dates
     * (month 13, February 30, hour 24, second 60).
     */
    private static long parseMilli(String text) {
        return LocalDateTime.of(digits(text, 0, 4), digits(text, 4, 6), digits(text, 6, 8), digits(text, 9, 11),
                digits(text, 11, 13), digits(text, 13, 15), digits(text, 16, 19) * 1_000_000)
                .toInstant(ZoneOffset.UTC).toEpochMilli();
    }

    private static int digits(String text, int from, int to) {
        int value = 0;
        for (int i = from; i < to; i++) {
            value = value * 10 + (text.charAt(i) - '0');
        }
        return value;
    }

    /** Ceiling division that, unlike {@code -floorDiv(-x, d)}, is right for Long.MIN_VALUE too. */
    private static long ceilDiv(long x, long divisor) {
        return Math.floorDiv(x, divisor) + (Math.floorMod(x, divisor) == 0 ? 0 : 1);
    }

}
