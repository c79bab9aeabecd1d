package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.LokiSearch;
import dev.needle.query.logql.pipeline.EntryState;
import dev.needle.query.logql.pipeline.JsonParser;
import dev.needle.query.logql.pipeline.LogfmtParser;
import dev.needle.query.logql.pipeline.Units;
import dev.needle.query.metrics.QueryMetrics;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fields Loki detects in a query's lines (grafana/loki {@code pkg/querier/queryrange/detected_fields.go}),
 * for Grafana's Logs Drilldown:
 *
 * <pre>
 * /loki/api/v1/detected_fields                query, start, end, since, line_limit (100), limit (1000):
 *     {"fields":[{"label":"status","type":"int","cardinality":3,"parsers":["logfmt"]},…],"limit":1000}
 * /loki/api/v1/detected_field/{name}/values   the same: {"values":["200","404"],"limit":1000}
 * </pre>
 *
 * <p>Taken from a sample: the newest {@code line_limit} entries the log query (a selector, or one with a
 * pipeline) keeps in the range, as Loki reads them. A field is each structured metadata key of an entry
 * ({@code "parsers":null}) and each label the entry's line gives to {@code | json} (with {@code jsonPath}, the
 * keys leading to it), or when it is not JSON to {@code | logfmt}, with the labels the query's own parsers
 * made; {@code __error__} and its details never. Its {@code type} is that of its value in the newest sampled
 * entry that has it, tried as Loki does: int, float, boolean, duration, bytes, else string; {@code cardinality}
 * its distinct values in the sample, counted exactly where Loki estimates. Fields are in the order of their
 * names, the first {@code limit} found kept; without any the reply is {@code {}}, as Loki's. Values are in
 * the order first seen, a parsed size rewritten as go-humanize writes it ({@code 2MB} → {@code 2.0MB}) so that it
 * can go into a query as it is.
 */
final class DetectedFields {

    /** Loki's default {@code line_limit}. */
    static final int DEFAULT_LINE_LIMIT = 100;
    /** Loki's default {@code limit}: fields, or values. */
    static final int DEFAULT_LIMIT = 1000;
    private static final Set<String> ERRORS = Set.of(EntryState.ERROR, EntryState.ERROR_DETAILS, "__preserve_error__");
    private static final Set<String> BOOLEANS = Set.of("1", "t", "T", "TRUE", "true", "True", "0", "f", "F", "FALSE",
            "false", "False");
    /** The units after which a parsed value that is a size is rewritten ({@code allowedBytesUnits}). */
    private static final List<String> SIZE_UNITS = List.of("b", "kib", "kb", "mib", "mb", "gib", "gb", "tib", "tb", "pib",
            "pb", "eib", "eb", "ki", "k", "mi", "m", "gi", "g", "ti", "t", "pi", "p", "ei", "e");
    private static final String[] HUMAN_SIZES = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    DetectedFields(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /** A field found: its type, values and parsers ({@code null} for structured metadata alone). */
    private static final class Field {
        String type;
        final Set<String> values = new LinkedHashSet<>();
        List<String> parsers;
        List<String> jsonPath;
    }

    /** One entry's fields: structured metadata, and what its line parses into. */
    private record Parsed(Map<String, String> metadata, Map<String, String> labels, String parser,
                          Map<String, List<String>> paths) {
    }

    /** {@code /loki/api/v1/detected_fields}, or the values of field {@code name} when it is not null. */
    ApiReply answer(TenantId tenant, String name, Params params, long now) throws ApiException, IOException {
        LogQl.LogQuery query = logQuery(params);
        TimeRange range = LokiParams.range(params, now, LokiParams.QUERY_SINCE);
        int lineLimit = LokiParams.limit(params, "line_limit", DEFAULT_LINE_LIMIT);
        String limitName = params.string("limit") != null ? "limit" : "field_limit";
        int limit = LokiParams.positive(params, limitName, DEFAULT_LIMIT);
        long started = System.nanoTime();
        LokiSearch.Result sample = new LokiSearch(engine).run(tenant, query, range, lineLimit, false,
                params.mechanisms());
        metrics.record(QueryMetrics.Kind.LOGS, System.nanoTime() - started, sample.plans());
        ApiReply reply = name == null ? fields(sample.entries(), limit) : values(sample.entries(), name, limit);
        return LokiReplies.withHeaders(reply, sample.problems(), sample.plans());
    }

    private static ApiReply fields(List<LokiEntry> entries, int limit) {
        Map<String, Field> fields = new LinkedHashMap<>();
        for (LokiEntry e : entries) {
            Parsed p = parse(e);
            p.metadata().forEach((k, v) -> add(fields, limit, k, v, null, null));
            p.labels().forEach((k, v) -> add(fields, limit, k, v, p.parser(), p.paths().get(k)));
        }
        Map<String, Field> sorted = new TreeMap<>(fields);
        return JsonReplies.object(200, g -> {
            if (sorted.isEmpty()) {
                return;
            }
            g.writeArrayFieldStart("fields");
            for (Map.Entry<String, Field> f : sorted.entrySet()) {
                g.writeStartObject();
                g.writeStringField("label", f.getKey());
                g.writeStringField("type", f.getValue().type);
                g.writeNumberField("cardinality", f.getValue().values.size());
                g.writeFieldName("parsers");
                if (f.getValue().parsers == null) {
                    g.writeNull();
                } else {
                    g.writeStartArray();
                    for (String parser : f.getValue().parsers) {
                        g.writeString(parser);
                    }
                    g.writeEndArray();
                }
                if (f.getValue().jsonPath != null) {
                    g.writeArrayFieldStart("jsonPath");
                    for (String key : f.getValue().jsonPath) {
                        g.writeString(key);
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("limit", limit);
        });
    }

    private static void add(Map<String, Field> fields, int limit, String name, String value, String parser,
                            List<String> jsonPath) {
        Field f = fields.get(name);
        if (f == null) {
            if (fields.size() >= limit) {
                return;
            }
            f = new Field();
            f.type = type(value);
            fields.put(name, f);
        }
        f.values.add(value);
        if (parser != null) {
            if (f.parsers == null) {
                f.parsers = new ArrayList<>();
            }
            if (!f.parsers.contains(parser)) {
                f.parsers.add(parser);
            }
        }
        if (f.jsonPath == null && jsonPath != null) {
            f.jsonPath = jsonPath;
        }
    }

    private static ApiReply values(List<LokiEntry> entries, String name, int limit) {
        Set<String> values = new LinkedHashSet<>();
        for (LokiEntry e : entries) {
            if (values.size() >= limit) {
                break;
            }
            Parsed p = parse(e);
            String metadata = p.metadata().get(name);
            if (metadata != null) {
                values.add(metadata);
            }
            String parsed = p.labels().get(name);
            if (parsed != null) {
                values.add(size(parsed));
            }
        }
        return JsonReplies.object(200, g -> {
            if (values.isEmpty()) {
                return;
            }
            g.writeArrayFieldStart("values");
            for (String v : values) {
                g.writeString(v);
            }
            g.writeEndArray();
            g.writeNumberField("limit", limit);
        });
    }

    /**
     * An entry's structured metadata and the labels its line gives: the query's own parsers' labels and what
     * {@code | json} makes of the line, or when that fails {@code | logfmt}; neither, no parser.
     */
    private static Parsed parse(LokiEntry e) {
        Map<String, String> labels = new LinkedHashMap<>();
        e.parsed().forEach((k, v) -> {
            if (!ERRORS.contains(k)) {
                labels.put(k, v);
            }
        });
        LokiEntry unparsed = new LokiEntry(e.timeUnixNano(), e.line(), e.labels(), e.metadata(), e.shown(), Map.of());
        EntryState json = new EntryState(unparsed);
        Map<String, String> found = new LinkedHashMap<>();
        Map<String, List<String>> paths = new LinkedHashMap<>();
        String error = JsonParser.members(e.line(), (name, path, value) -> {
            String label = json.parsedName(name);
            if (!found.containsKey(label)) {
                found.put(label, value);
                paths.put(label, path);
            }
        });
        String parser = "json";
        if (error != null) {
            paths.clear();
            found.clear();
            EntryState logfmt = new EntryState(unparsed);
            new LogfmtParser(false, false, Map.of()).process(logfmt);
            if (!logfmt.error().isEmpty()) {
                return new Parsed(e.shown(), labels, null, Map.of());
            }
            found.putAll(logfmt.result().parsed());
            parser = "logfmt";
        }
        found.forEach((k, v) -> {
            if (!ERRORS.contains(k)) {
                labels.putIfAbsent(k, v);
            }
        });
        return new Parsed(e.shown(), labels, parser, paths);
    }

    /** A value's type as Loki's {@code determineType} tries them, in its order. */
    static String type(String v) {
        if (v.matches("[+-]?[0-9]+")) {
            try {
                Long.parseLong(v.startsWith("+") ? v.substring(1) : v);
                return "int";
            } catch (NumberFormatException tooLarge) {
                // a float, then, as Go's ParseFloat reads it
            }
        }
        if (parses(() -> Units.parseFloat(v))) {
            return "float";
        }
        if (BOOLEANS.contains(v)) {
            return "boolean";
        }
        if (parses(() -> Units.parseDuration(v, false))) {
            return "duration";
        }
        if (parses(() -> Units.parseBytes(v))) {
            return "bytes";
        }
        return "string";
    }

    private static boolean parses(Runnable parse) {
        try {
            parse.run();
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** A parsed size with a unit as go-humanize's {@code Bytes} writes it, without the space; else the value. */
    static String size(String v) {
        String lower = v.toLowerCase(Locale.ROOT);
        if (SIZE_UNITS.stream().noneMatch(lower::endsWith)) {
            return v;
        }
        long bytes;
        try {
            bytes = Units.parseBytes(v);
        } catch (IllegalArgumentException e) {
            return v;
        }
        if (bytes < 10) {
            return bytes + "B";
        }
        int e = (int) Math.floor(Math.log(bytes) / Math.log(1000));
        double value = Math.floor(bytes / Math.pow(1000, e) * 10 + 0.5) / 10;
        // Go's %.1f below ten, %.0f (half to even) from ten on.
        String number = BigDecimal.valueOf(value).setScale(value < 10 ? 1 : 0, RoundingMode.HALF_EVEN).toPlainString();
        return number + HUMAN_SIZES[e];
    }

    /** The query: a log query (a selector with or without a pipeline), as Loki's {@code ParseLogSelector}. */
    private static LogQl.LogQuery logQuery(Params params) throws ApiException {
        if (!(LokiApi.parse(params, "query") instanceof LogQl.LogQuery q)) {
            throw ApiException.badRequest("parse error : only a log query such as {service_name=\"checkout\"} is"
                    + " allowed here, got " + Params.quote(params.string("query")));
        }
        return q;
    }
}
