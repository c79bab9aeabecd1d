package dev.needle.corpus;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.util.StdConverter;
import java.time.Instant;
import java.util.List;

/**
 * Everything a corpus is made from: the same spec gives the same records, byte for byte. In the
 * manifest it is {@code "arguments"}: the components in snake case, the start as an ISO-8601
 * instant and the window in seconds.
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
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record CorpusSpec(long seed, long spans, long logs, List<TraceIdFamily> families, int services,
                         @JsonProperty("start") @JsonSerialize(converter = IsoInstant.class)
                         @JsonDeserialize(converter = UnixNano.class) long startUnixNano,
                         @JsonProperty("window_seconds") @JsonSerialize(converter = Seconds.class)
                         @JsonDeserialize(converter = Nanos.class) long windowNanos,
                         int routes, int users, double correlatedLogs, double errorShare, int blockRows, int probes) {

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

    /** This spec with {@code spans} spans and {@code logs} log records. */
    public CorpusSpec withCounts(long spans, long logs) {
        return new CorpusSpec(seed, spans, logs, families, services, startUnixNano, windowNanos, routes, users,
                correlatedLogs, errorShare, blockRows, probes);
    }

    /** This spec over the time window of {@code windowNanos} from {@code startUnixNano}. */
    public CorpusSpec withWindow(long startUnixNano, long windowNanos) {
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

    /** Unix nanoseconds as an ISO-8601 instant. */
    static final class IsoInstant extends StdConverter<Long, String> {
        @Override
        public String convert(Long unixNano) {
            return Instant.ofEpochSecond(0, unixNano).toString();
        }
    }

    /** An ISO-8601 instant as Unix nanoseconds. */
    static final class UnixNano extends StdConverter<String, Long> {
        @Override
        public Long convert(String iso) {
            Instant start = Instant.parse(iso);
            return start.getEpochSecond() * 1_000_000_000L + start.getNano();
        }
    }

    /** Nanoseconds as seconds. */
    static final class Seconds extends StdConverter<Long, Double> {
        @Override
        public Double convert(Long nanos) {
            return nanos / 1e9;
        }
    }

    /** Seconds as nanoseconds, rounded. */
    static final class Nanos extends StdConverter<Double, Long> {
        @Override
        public Long convert(Double seconds) {
            return Math.round(seconds * 1e9);
        }
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
