package dev.needle.query.cli;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.TimeRange;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** The options every query subcommand takes: where to look, whose records, when, with which mechanisms, and how to print. */
final class QueryOptions {

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    @Option(names = "--data", paramLabel = "DIR", defaultValue = "data",
            description = "read the data directory DIR directly, no server needed (default: ${DEFAULT-VALUE}, where "
                    + "./needle serve keeps its blocks). Read-only, so safe beside a running server, but it sees "
                    + "published blocks only, not records the server has yet to write to a block.")
    Path data;

    @Option(names = "--url", paramLabel = "URL", converter = Args.UrlConverter.class,
            description = "ask the server at URL instead, e.g. http://127.0.0.1:3200, through its Tempo-shaped "
                    + "HTTP API; it also answers from records not yet written to a block.")
    URI url;

    @Option(names = "--tenant", paramLabel = "ID", defaultValue = "single-tenant", converter = Args.TenantConverter.class,
            description = "the tenant, as X-Scope-OrgID names it (default: ${DEFAULT-VALUE})")
    TenantId tenant;

    @Option(names = "--since", paramLabel = "DURATION", converter = Args.DurationConverter.class,
            description = "only records from DURATION ago until now: 15m, 2h, 7d, 1h30m (units ms s m h d w)")
    Duration since;

    @Option(names = "--from", paramLabel = "TIME", converter = Args.InstantConverter.class,
            description = "only records at or after TIME: RFC 3339 (2026-11-29T20:15:00Z) or Unix seconds")
    Long from;

    @Option(names = "--to", paramLabel = "TIME", converter = Args.InstantConverter.class,
            description = "only records at or before TIME: RFC 3339 or Unix seconds")
    Long to;

    @Option(names = "--explain",
            description = "print the plan after the answer: per block the step that decided and why, and the totals")
    boolean explain;

    @Option(names = "--no-time", description = "do not skip blocks by the time range in their names")
    boolean noTime;

    @Option(names = "--no-trace-idx", description = "do not skip blocks by their TRACE_IDX sidecar")
    boolean noTraceIdx;

    @Option(names = "--no-attr-idx", description = "do not skip blocks by their ATTR_IDX sidecar")
    boolean noAttrIdx;

    @Option(names = "--no-zone-maps", description = "do not skip record batches by their zone maps")
    boolean noZoneMaps;

    @Option(names = "--no-index", description = "learn the blocks from a listing and their own sidecars, not from the "
            + "store's index")
    boolean noIndex;

    @Option(names = "--json",
            description = "print one JSON document shaped as the HTTP API's answer: OTLP JSON records, \"status\" "
                    + "COMPLETE or PARTIAL, \"message\" naming unreadable blocks, \"explain\" when asked")
    boolean json;

    /** The request these options describe; conflicting options are a usage error. */
    Request request() {
        if (url != null && spec.commandLine().getParseResult().hasMatchedOption("--data")) {
            throw new ParameterException(spec.commandLine(), "give --data or --url, not both");
        }
        return new Request(tenant, range(), new Mechanisms(!noTime, !noTraceIdx, !noAttrIdx, !noZoneMaps, !noIndex), explain);
    }

    /** Where to ask: the server when --url is given, else the data directory. */
    Source open() throws QueryFailure {
        return url != null ? new HttpSource(url) : new LocalSource(data, spec.commandLine().getErr());
    }

    private TimeRange range() {
        if (since != null) {
            if (from != null || to != null) {
                throw new ParameterException(spec.commandLine(), "give --since or --from/--to, not both");
            }
            Instant now = Instant.now();
            long nowNanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
            return new TimeRange(nowNanos - since.toNanos(), nowNanos);
        }
        long start = from == null ? Long.MIN_VALUE : from;
        long end = to == null ? Long.MAX_VALUE : to;
        if (start > end) {
            throw new ParameterException(spec.commandLine(), "--from (" + Text.time(start) + ") is after --to ("
                    + Text.time(end) + ")");
        }
        return new TimeRange(start, end);
    }
}
