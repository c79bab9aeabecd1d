package dev.needle.bench.peer;

import dev.needle.blocks.model.Signal;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The peer's table layout: needle's span and log fields as fixed columns (ids as BLOB, times as
 * BIGINT Unix nanoseconds, OTLP enums as INTEGER), then one column per flattened attribute.
 * BIGINT nanoseconds rather than TIMESTAMP_NS keep the time-range predicate the same integer
 * comparison needle makes, with no conversion through JDBC's time types.
 */
final class PeerSchema {

    static final String TRACE_ID = "trace_id";
    static final String SPAN_ID = "span_id";

    private static final List<String> SPAN_COLUMNS = List.of(
            "trace_id BLOB", "span_id BLOB", "parent_span_id BLOB", "name VARCHAR", "kind INTEGER",
            "start_time_unix_nano BIGINT", "end_time_unix_nano BIGINT", "duration_nano BIGINT",
            "status_code INTEGER", "status_message VARCHAR", "scope_name VARCHAR");
    private static final List<String> LOG_COLUMNS = List.of(
            "time_unix_nano BIGINT", "observed_time_unix_nano BIGINT", "severity_number INTEGER",
            "severity_text VARCHAR", "body VARCHAR", "trace_id BLOB", "span_id BLOB", "scope_name VARCHAR");

    private PeerSchema() {
    }

    /** The column a time range applies to: a span's start time, a log record's event time (as needle's). */
    static String timeColumn(Signal signal) {
        return signal == Signal.SPANS ? "start_time_unix_nano" : "time_unix_nano";
    }

    /** {@code CREATE TABLE} for the fixed columns of {@code signal} followed by {@code columns}. */
    static String createTable(String table, Signal signal, List<FlattenedAttribute> columns) {
        List<String> fixed = signal == Signal.SPANS ? SPAN_COLUMNS : LOG_COLUMNS;
        Set<String> names = new HashSet<>();
        StringBuilder sql = new StringBuilder("CREATE TABLE ").append(table).append(" (");
        for (String column : fixed) {
            names.add(column.substring(0, column.indexOf(' ')));
            sql.append(column).append(", ");
        }
        for (FlattenedAttribute column : columns) {
            if (!names.add(column.columnName())) {
                throw new IllegalArgumentException("two columns would be named " + column.columnName() + ": " + column);
            }
            sql.append(column.columnName()).append(' ').append(column.type().name()).append(", ");
        }
        sql.setLength(sql.length() - 2);
        return sql.append(')').toString();
    }

    /** Which sources a signal's records carry: resource and span attributes, or resource and log attributes. */
    static void checkSources(Signal signal, List<FlattenedAttribute> columns) {
        FlattenedAttribute.Source own = signal == Signal.SPANS
                ? FlattenedAttribute.Source.SPAN : FlattenedAttribute.Source.LOG;
        for (FlattenedAttribute column : columns) {
            if (column.source() != FlattenedAttribute.Source.RESOURCE && column.source() != own) {
                throw new IllegalArgumentException(signal.dirName() + " have no " + column.source() + " attributes: " + column);
            }
        }
    }

    /** {@code s} as a SQL string literal. */
    static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
