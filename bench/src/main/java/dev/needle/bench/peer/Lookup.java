package dev.needle.bench.peer;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.query.engine.TimeRange;
import java.util.Objects;

/** A lookup the peer answers as needle does: every record of one trace, or the records where one attribute equals a value. */
public sealed interface Lookup {

    /** The inclusive range of event times (span start, log event time) the records must lie in. */
    TimeRange range();

    /**
     * Every record of one trace.
     *
     * @param traceId the 16-byte trace id
     * @param range   the event times to keep
     */
    record TraceById(Bytes traceId, TimeRange range) implements Lookup {
        public TraceById {
            if (traceId.length() != 16) {
                throw new IllegalArgumentException("a trace id has 16 bytes, got " + traceId.length());
            }
            Objects.requireNonNull(range, "range");
        }
    }

    /**
     * Records whose flattened attribute equals a value, with needle's typed equality: a string matches
     * a VARCHAR column, a bool a BOOLEAN one, an int or an integral double a BIGINT one, a double or
     * an int a DOUBLE one.
     *
     * @param column the flattened attribute
     * @param value  the literal
     * @param range  the event times to keep
     * @param limit  the newest {@code limit} records, or all of them when 0
     */
    record AttributeEquals(FlattenedAttribute column, AnyValue value, TimeRange range, int limit) implements Lookup {
        public AttributeEquals {
            Objects.requireNonNull(range, "range");
            if (limit < 0) {
                throw new IllegalArgumentException("limit (" + limit + ") must be 0 (no limit) or positive");
            }
            boolean comparable = switch (column.type()) {
                case VARCHAR -> value instanceof AnyValue.Str;
                case BOOLEAN -> value instanceof AnyValue.Bool;
                case BIGINT -> value instanceof AnyValue.Int || value instanceof AnyValue.Dbl d && isLong(d.value());
                case DOUBLE -> value instanceof AnyValue.Int || value instanceof AnyValue.Dbl;
            };
            if (!comparable) {
                throw new IllegalArgumentException(value + " can never equal a value of " + column);
            }
        }

        private static boolean isLong(double d) {
            return d == Math.rint(d) && d >= -0x1p63 && d < 0x1p63;
        }
    }

    /** Every record of trace {@code traceId}, at any time. */
    static Lookup trace(Bytes traceId) {
        return new TraceById(traceId, TimeRange.ALL);
    }

    /** Every record whose {@code column} equals {@code value}, at any time. */
    static Lookup attribute(FlattenedAttribute column, AnyValue value) {
        return new AttributeEquals(column, value, TimeRange.ALL, 0);
    }
}
