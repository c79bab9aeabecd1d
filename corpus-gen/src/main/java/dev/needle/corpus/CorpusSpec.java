package dev.needle.corpus;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Everything a corpus is made from: the same spec gives the same records, byte for byte.
 *
 * @param seed           the seed every random choice derives from
 * @param spans          spans in all (whole traces; the last trace is cut short to hit the count)
 * @param logs           log records in all
 * @param families       trace-id families; with more than one, each trace draws its family (the "mix")
 * @param services       services in the fleet, each with a few pods
 * @param startUnixNano  the start of the time window
 * @param windowNanos    the window's length: traces and logs are spread evenly over it
 * @param routes         distinct {@code http.route} values
 * @param users          distinct {@code user.id} values: the high-cardinality attribute
 * @param correlatedLogs the share of log records that carry a trace and span id of a generated span
 * @param errorShare     the share of spans that end in an error status
 * @param blockRows      the most rows of one output block (ingest cuts by the same count)
 * @param probes         present and absent probes per trace-id family in the manifest
 */
public record CorpusSpec(long seed, long spans, long logs, List<TraceIdFamily> families, int services,
                         long startUnixNano, long windowNanos, int routes, int users, double correlatedLogs,
                         double errorShare, int blockRows, int probes) {

    /** 2026-11-01T00:00:00Z: a fixed default start, so that a run without --start is reproducible. */
    public static final long DEFAULT_START_UNIX_NANO = Instant.parse("2026-11-01T00:00:00Z").getEpochSecond() * 1_000_000_000L;

    /** The defaults of {@code needle gen} with the given counts. */
    public static CorpusSpec defaults(long spans, long logs) {
        return new CorpusSpec(42, spans, logs, List.of(TraceIdFamily.values()), 20, DEFAULT_START_UNIX_NANO,
                3_600_000_000_000L, 60, 1_000_000, 0.3, 0.03, 300_000, 100);
    }

    /** Checks every bound, naming the argument that is out of it. */
    public CorpusSpec {
        families = List.copyOf(families);
        require(spans >= 0, "spans must be ≥ 0, got " + spans);
        require(logs >= 0, "logs must be ≥ 0, got " + logs);
        require(spans + logs > 0, "a corpus needs at least one span or log record");
        require(!families.isEmpty(), "at least one trace-id family is needed");
        require(families.stream().distinct().count() == families.size(), "trace-id families repeat: " + families);
        require(services >= 1 && services <= 10_000, "services must be in 1..10000, got " + services);
        require(startUnixNano > 0, "the start must be after 1970, got " + startUnixNano + " ns");
        require(windowNanos >= 1_000_000_000L, "the window must be at least 1 s, got " + windowNanos + " ns");
        require(startUnixNano + windowNanos > startUnixNano && startUnixNano + windowNanos < (1L << 32) * 1_000_000_000L,
                "the window must end before 2106 (X-Ray ids hold 32-bit seconds)");
        require(routes >= 1 && routes <= 100_000, "routes must be in 1..100000, got " + routes);
        require(users >= 1 && users <= 100_000_000, "users must be in 1..100000000, got " + users);
        require(correlatedLogs >= 0 && correlatedLogs <= 1, "the correlated log share must be in 0..1, got " + correlatedLogs);
        require(errorShare >= 0 && errorShare <= 1, "the error share must be in 0..1, got " + errorShare);
        require(blockRows >= 1 && blockRows <= 10_000_000, "block rows must be in 1..10000000, got " + blockRows);
        require(probes >= 1 && probes <= 100_000, "probes must be in 1..100000, got " + probes);
        require(spans < (1L << 31), "spans must be fewer than 2^31 (trace numbers are 31-bit), got " + spans);
        require(logs < (1L << 31) * (long) blockRows, "too many logs for the block size");
    }

    /** This spec with another seed. */
    public CorpusSpec withSeed(long seed) {
        return new CorpusSpec(seed, spans, logs, families, services, startUnixNano, windowNanos, routes, users,
                correlatedLogs, errorShare, blockRows, probes);
    }

    /** This spec with blocks of at most {@code blockRows} rows. */
    public CorpusSpec withBlockRows(int blockRows) {
        return new CorpusSpec(seed, spans, logs, families, services, startUnixNano, windowNanos, routes, users,
                correlatedLogs, errorShare, blockRows, probes);
    }

    /** This spec with the attribute cardinalities given. */
    public CorpusSpec withCardinality(int services, int routes, int users) {
        return new CorpusSpec(seed, spans, logs, families, services, startUnixNano, windowNanos, routes, users,
                correlatedLogs, errorShare, blockRows, probes);
    }

    /** This spec with {@code probes} probes per family. */
    public CorpusSpec withProbes(int probes) {
        return new CorpusSpec(seed, spans, logs, families, services, startUnixNano, windowNanos, routes, users,
                correlatedLogs, errorShare, blockRows, probes);
    }

    /** The spec as the manifest's {@code "arguments"} object. */
    void writeJson(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("seed", seed);
        g.writeNumberField("spans", spans);
        g.writeNumberField("logs", logs);
        g.writeArrayFieldStart("families");
        for (TraceIdFamily family : families) {
            g.writeString(family.label());
        }
        g.writeEndArray();
        g.writeNumberField("services", services);
        g.writeStringField("start", Instant.ofEpochSecond(0, startUnixNano).toString());
        g.writeNumberField("window_seconds", windowNanos / 1e9);
        g.writeNumberField("routes", routes);
        g.writeNumberField("users", users);
        g.writeNumberField("correlated_logs", correlatedLogs);
        g.writeNumberField("error_share", errorShare);
        g.writeNumberField("block_rows", blockRows);
        g.writeNumberField("probes", probes);
        g.writeEndObject();
    }

    /** Reads what {@link #writeJson} wrote; the parser is on the object's START_OBJECT. */
    static CorpusSpec readJson(JsonParser p) throws IOException {
        Map<String, Object> fields = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            if (p.nextToken() == JsonToken.START_ARRAY) {
                List<TraceIdFamily> families = new ArrayList<>();
                while (p.nextToken() == JsonToken.VALUE_STRING) {
                    families.add(TraceIdFamily.of(p.getText()));
                }
                fields.put(name, families);
            } else {
                fields.put(name, p.getText());
            }
        }
        try {
            Instant start = Instant.parse(text(fields, "start"));
            @SuppressWarnings("unchecked")
            List<TraceIdFamily> families = (List<TraceIdFamily>) fields.get("families");
            return new CorpusSpec(Long.parseLong(text(fields, "seed")), Long.parseLong(text(fields, "spans")),
                    Long.parseLong(text(fields, "logs")), families == null ? List.of() : families,
                    Integer.parseInt(text(fields, "services")), start.getEpochSecond() * 1_000_000_000L + start.getNano(),
                    Math.round(Double.parseDouble(text(fields, "window_seconds")) * 1e9),
                    Integer.parseInt(text(fields, "routes")), Integer.parseInt(text(fields, "users")),
                    Double.parseDouble(text(fields, "correlated_logs")), Double.parseDouble(text(fields, "error_share")),
                    Integer.parseInt(text(fields, "block_rows")), Integer.parseInt(text(fields, "probes")));
        } catch (RuntimeException e) {
            throw new IOException("manifest arguments are not a corpus spec: " + e.getMessage(), e);
        }
    }

    private static String text(Map<String, Object> fields, String name) throws IOException {
        Object value = fields.get(name);
        if (!(value instanceof String s)) {
            throw new IOException("manifest arguments lack \"" + name + "\"");
        }
        return s;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
