package dev.needle.bench.scenario;

import dev.needle.blocks.model.Bytes;
import dev.needle.corpus.Manifest;
import dev.needle.query.engine.TimeRange;
import java.util.Locale;

/**
 * One lookup the benchmark times: a trace by id, or a span or log search, and whether the corpus
 * holds what it asks for (the manifest says so).
 *
 * @param name        a short name for tables, such as {@code trace present (xray)}
 * @param kind        what is looked up
 * @param traceId     the trace id of a {@link Kind#TRACE} lookup, else null
 * @param query       the query of a search, else null
 * @param range       the time range asked for
 * @param expectFound whether the corpus holds a match
 * @param headline    whether the lookup belongs to the seed table's rows (timed cold without mechanisms too)
 * @param equality    the one attribute value a search asks for, when it asks for exactly one (the peer can run those)
 */
public record Scenario(String name, Kind kind, Bytes traceId, String query, TimeRange range, boolean expectFound,
                       boolean headline, Manifest.AttributeProbe equality) {

    /** What a scenario looks up. */
    public enum Kind {
        /** Every span of one trace. */
        TRACE,
        /** The newest spans matching a query. */
        SPANS,
        /** The newest log records matching a query. */
        LOGS
    }

    /** The lookup as one command-line argument: {@code trace:HEX} or {@code spans:QUERY} / {@code logs:QUERY}. */
    public String target() {
        return kind == Kind.TRACE ? "trace:" + traceId.hex() : kind.name().toLowerCase(Locale.ROOT) + ":" + query;
    }
}
