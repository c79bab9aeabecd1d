package dev.needle.query.engine;

/**
 * An inclusive range of event times in Unix nanoseconds; {@link #ALL} when a query has none.
 *
 * @param fromUnixNano the earliest event time included
 * @param toUnixNano   the latest event time included
 */
public record TimeRange(long fromUnixNano, long toUnixNano) {

    /** Every time: no range given. */
    public static final TimeRange ALL = new TimeRange(Long.MIN_VALUE, Long.MAX_VALUE);

    public TimeRange {
        if (fromUnixNano > toUnixNano) {
            throw new IllegalArgumentException("time range starts (" + fromUnixNano + ") after it ends (" + toUnixNano + ")");
        }
    }

    /** Whether this range is {@link #ALL}. */
    public boolean isAll() {
        return fromUnixNano == Long.MIN_VALUE && toUnixNano == Long.MAX_VALUE;
    }

    /** Whether {@code t} lies in the range. */
    public boolean contains(long t) {
        return t >= fromUnixNano && t <= toUnixNano;
    }

    /** Whether the range meets [min, max]. */
    public boolean overlaps(long min, long max) {
        return max >= fromUnixNano && min <= toUnixNano;
    }
}
