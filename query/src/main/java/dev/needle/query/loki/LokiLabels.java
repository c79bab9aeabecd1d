package dev.needle.query.loki;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TagsResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.Params;
import dev.needle.query.logql.LogQl;
import dev.needle.query.logql.LogQlParseException;
import dev.needle.query.logql.LogQlParser;
import dev.needle.query.logql.LokiEntry;
import dev.needle.query.logql.LokiSearch;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Loki's label and series endpoints over needle's logs:
 *
 * <pre>
 * GET /loki/api/v1/labels?start&amp;end&amp;since&amp;query         {"status":"success","data":["service_name",…]}
 * GET /loki/api/v1/label/{name}/values?start&amp;end&amp;since&amp;query   {"status":"success","data":["checkout",…]}
 * GET /loki/api/v1/series?match[]&amp;start&amp;end&amp;since        {"status":"success","data":[{labels},…]}
 * </pre>
 *
 * <p>Without a selector, label names and values come from the TAGS files of the log blocks that
 * overlap the range and from the head ({@link QueryEngine#logTags}), not from the records: a resource
 * key is a label under its Loki name, {@code service_name} is always there. Its values are those of
 * {@code service.name} (and of keys Loki names alike); a record that has none shows
 * {@code unknown_service} or a discovered name, which TAGS cannot tell. A selector ({@code query},
 * {@code match[]}) needs the streams it selects, which only the records hold: they are taken from its
 * newest {@value #SAMPLE} entries in the range, found as a log query finds them, and an answer that
 * stopped there says so in {@code X-Needle-Status}.
 */
final class LokiLabels {

    /** The entries a selector's streams are taken from. */
    static final int SAMPLE = 10_000;

    private final QueryEngine engine;

    LokiLabels(QueryEngine engine) {
        this.engine = engine;
    }

    /** {@code /loki/api/v1/labels}. */
    ApiReply names(TenantId tenant, Params params, long now) throws ApiException, IOException {
        TimeRange range = LokiParams.range(params, now, LokiParams.LABELS_SINCE);
        Set<String> names = new TreeSet<>();
        if (params.string("query") != null) {
            Sample sample = sample(tenant, selector(params, "query"), range, params);
            sample.entries().forEach(e -> names.addAll(e.labels().keySet()));
            return strings(names, sample.problems(), sample.plans());
        }
        LabelNames all = names(tenant, range);
        return strings(all.names(), all.problems(), List.of());
    }

    /** Label names, and the blocks whose names could not be read. */
    record LabelNames(Set<String> names, List<String> problems) {
    }

    /**
     * The stream label names in the range, from TAGS and the head: each resource key under its Loki name, and
     * {@code service_name} when there is any record.
     */
    LabelNames names(TenantId tenant, TimeRange range) throws IOException {
        Set<String> names = new TreeSet<>();
        TagsResult tags = engine.logTags(tenant, range, key -> false);
        for (String key : tags.tags().keys().keySet()) {
            if (key.startsWith(IndexedPairs.RESOURCE)) {
                names.add(LokiEntry.labelName(key.substring(IndexedPairs.RESOURCE.length())));
            }
        }
        if (tags.blocks() > 0 || !tags.tags().keys().isEmpty()) {
            names.add(LokiEntry.SERVICE_NAME);
        }
        return new LabelNames(names, tags.problems());
    }

    /** {@code /loki/api/v1/label/{name}/values}. */
    ApiReply values(TenantId tenant, String name, Params params, long now) throws ApiException, IOException {
        TimeRange range = LokiParams.range(params, now, LokiParams.LABELS_SINCE);
        Set<String> values = new TreeSet<>();
        if (params.string("query") != null) {
            Sample sample = sample(tenant, selector(params, "query"), range, params);
            for (LokiEntry e : sample.entries()) {
                String v = e.labels().get(name);
                if (v != null) {
                    values.add(v);
                }
            }
            return strings(values, sample.problems(), sample.plans());
        }
        TagsResult tags = engine.logTags(tenant, range, key -> isLabel(key, name));
        for (Map.Entry<String, BlockTags.Values> e : tags.tags().keys().entrySet()) {
            if (isLabel(e.getKey(), name)) {
                for (AnyValue v : e.getValue().values()) {
                    values.add(LokiEntry.render(v));
                }
            }
        }
        return strings(values, tags.problems(), List.of());
    }

    /** {@code /loki/api/v1/series}: the distinct label sets of the streams each {@code match[]} selects. */
    ApiReply series(TenantId tenant, Params params, long now) throws ApiException, IOException {
        TimeRange range = LokiParams.range(params, now, LokiParams.LABELS_SINCE);
        List<String> matches = params.strings("match[]");
        if (matches.isEmpty()) {
            throw ApiException.badRequest("at least one match[] argument is required");
        }
        Set<Map<String, String>> streams = new TreeSet<>(Comparator.comparing(Object::toString));
        List<String> problems = new ArrayList<>();
        List<Explain> plans = new ArrayList<>();
        for (String match : matches) {
            Sample sample = sample(tenant, selector(match), range, params);
            sample.entries().forEach(e -> streams.add(e.labels()));
            problems.addAll(sample.problems());
            plans.addAll(sample.plans());
        }
        ApiReply reply = LokiReplies.success(g -> {
            g.writeStartArray();
            for (Map<String, String> stream : streams) {
                g.writeStartObject();
                for (Map.Entry<String, String> label : stream.entrySet()) {
                    g.writeStringField(label.getKey(), label.getValue());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
        });
        return LokiReplies.withHeaders(reply, problems, plans);
    }

    /**
     * Every label's values in the range: of the streams {@code selector} selects (from its sample), or with
     * none from TAGS as {@code /labels} and {@code /values} take them.
     */
    LabelValues all(TenantId tenant, LogQl.LogQuery selector, TimeRange range, Params params)
            throws ApiException, IOException {
        Map<String, Set<String>> values = new TreeMap<>();
        if (selector != null) {
            Sample sample = sample(tenant, selector, range, params);
            for (LokiEntry e : sample.entries()) {
                e.labels().forEach((name, value) -> values.computeIfAbsent(name, n -> new TreeSet<>()).add(value));
            }
            return new LabelValues(values, sample.problems(), sample.plans());
        }
        TagsResult tags = engine.logTags(tenant, range, key -> key.startsWith(IndexedPairs.RESOURCE));
        if (tags.blocks() > 0 || !tags.tags().keys().isEmpty()) {
            values.put(LokiEntry.SERVICE_NAME, new TreeSet<>());
        }
        for (Map.Entry<String, BlockTags.Values> e : tags.tags().keys().entrySet()) {
            if (e.getKey().startsWith(IndexedPairs.RESOURCE)) {
                Set<String> of = values.computeIfAbsent(
                        LokiEntry.labelName(e.getKey().substring(IndexedPairs.RESOURCE.length())), n -> new TreeSet<>());
                e.getValue().values().forEach(v -> of.add(LokiEntry.render(v)));
            }
        }
        return new LabelValues(values, tags.problems(), List.of());
    }

    /** Label names and their values, the blocks that could not be read, the lookups' plans. */
    record LabelValues(Map<String, Set<String>> values, List<String> problems, List<Explain> plans) {
    }

    /** Whether indexed key {@code key} is a resource key that Loki labels {@code name}. */
    private static boolean isLabel(String key, String name) {
        return key.startsWith(IndexedPairs.RESOURCE)
                && LokiEntry.labelName(key.substring(IndexedPairs.RESOURCE.length())).equals(name);
    }

    private static ApiReply strings(Set<String> strings, List<String> problems, List<Explain> plans) {
        ApiReply reply = LokiReplies.success(g -> {
            g.writeStartArray();
            for (String s : strings) {
                g.writeString(s);
            }
            g.writeEndArray();
        });
        return LokiReplies.withHeaders(reply, problems, plans);
    }

    /** The entries a selector's streams are taken from, and whether the sample stopped short. */
    private record Sample(List<LokiEntry> entries, List<String> problems, List<Explain> plans) {
    }

    private Sample sample(TenantId tenant, LogQl.LogQuery selector, TimeRange range, Params params)
            throws ApiException, IOException {
        LokiSearch.Result result = new LokiSearch(engine).run(tenant, selector, range, SAMPLE, false,
                params.mechanisms());
        List<String> problems = new ArrayList<>(result.problems());
        if (result.entries().size() == SAMPLE) {
            problems.add("the streams of " + selector + " were taken from its newest " + SAMPLE
                    + " entries in the range; older streams may be missing");
        }
        return new Sample(result.entries(), problems, result.plans());
    }

    private static LogQl.LogQuery selector(Params params, String name) throws ApiException {
        return selector(params.string(name));
    }

    /** A stream selector, the only query these endpoints take; a 400 in Loki's words when it is anything else. */
    static LogQl.LogQuery selector(String text) throws ApiException {
        if (text == null) {
            throw ApiException.badRequest("parse error : syntax error: empty query");
        }
        LogQl parsed;
        try {
            parsed = LogQlParser.parse(text);
        } catch (LogQlParseException e) {
            throw ApiException.badRequest(e.getMessage());
        }
        if (!(parsed instanceof LogQl.LogQuery q) || !q.pipeline().isEmpty()) {
            throw ApiException.badRequest("parse error : only a stream selector such as {service_name=\"checkout\"}"
                    + " is allowed here, got " + Params.quote(text));
        }
        return q;
    }
}
