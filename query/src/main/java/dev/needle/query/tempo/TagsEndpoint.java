package dev.needle.query.tempo;

import dev.needle.blocks.index.BlockTags;
import dev.needle.blocks.index.IndexedPairs;
import dev.needle.blocks.index.Intrinsic;
import dev.needle.blocks.index.TagsOnlyPairs;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Signal;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.SearchResult;
import dev.needle.query.engine.TagsResult;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.ql.Attribute;
import dev.needle.query.ql.Expr;
import dev.needle.query.ql.Keywords;
import dev.needle.query.ql.QueryParseException;
import dev.needle.query.ql.QueryParser;
import dev.needle.query.ql.TraceField;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Tempo's tag endpoints, which Grafana's autocomplete, variables and ad-hoc filters call, answered
 * from each block's TAGS file (a scan of the block where it is missing or damaged, or of version 1
 * when event, link, status-message or root data is asked for) and the head:
 *
 * <pre>
 * GET /api/v2/search/tags?scope=&amp;limit=     {"scopes":[{"name":"resource","tags":[…]},{"name":"span",…},
 *                                             {"name":"instrumentation",…}?,{"name":"event",…}?,
 *                                             {"name":"link",…}?,{"name":"intrinsic",…}]}
 * GET /api/v2/search/tag/{tag}/values?q=&amp;limit=   {"tagValues":[{"type":"string","value":"…"},…]}
 * GET /api/search/tags                        {"tagNames":[…]}      (the attribute keys of every scope)
 * GET /api/search/tag/{tag}/values            {"tagValues":["…"]}   (a resource, span or instrumentation attribute)
 * </pre>
 *
 * <p>All take {@code start}/{@code end}; a block counts when its time range overlaps them. A v2 tag
 * is {@code resource.k}, {@code span.k}, {@code instrumentation.k}, {@code event.k}, {@code link.k},
 * {@code .k} (a resource, span or instrumentation attribute, as Tempo's unscoped lookup) or an
 * intrinsic of {@link #INTRINSICS}; types are Tempo's: {@code string}, {@code int}, {@code float},
 * {@code bool}, and {@code keyword} for status and kind, whose values are their TraceQL words;
 * durations list no values. The v1 calls answer as Tempo's do: its tag names
 * flatten every scope, event and link included, its values look in the resource, span and
 * instrumentation attributes only. {@code q}, a query other than {@code { }}, keeps the values of
 * the newest {@value #Q_SPANS} spans that match it. The {@code trace} scope is valid and empty.
 * Partial answers say so in headers, as searches do ({@link ApiReply#withStatusHeaders}).
 */
public final class TagsEndpoint {

    static final int MAX_TAGS = BlockTags.MAX_KEYS;
    static final int MAX_VALUES = BlockTags.MAX_VALUES_PER_KEY;
    /** The spans a tag-values query with {@code q} takes its values from, newest first. */
    static final int Q_SPANS = 10_000;

    /** needle's namespace of each scope Tempo names, in the order answered. */
    private static final Map<String, String> SCOPES = scopes();
    /** The scopes answered when no scope is asked for even when they have no keys. */
    private static final Set<String> ALWAYS = Set.of("resource", "span");
    private static final Set<String> EMPTY_SCOPES = Set.of("trace");
    private static final String INTRINSIC = "intrinsic";
    /**
     * The intrinsics listed in the intrinsic scope, Tempo's list in Tempo's order
     * ({@code pkg/search/util.go}) less those needle's TraceQL does not take, each with the TAGS key
     * of its values; an empty key lists no values.
     */
    static final Map<String, String> INTRINSICS = intrinsics();

    private final QueryEngine engine;

    /** The endpoints over {@code engine}. */
    public TagsEndpoint(QueryEngine engine) {
        this.engine = engine;
    }

    private static Map<String, String> scopes() {
        Map<String, String> scopes = new LinkedHashMap<>();
        scopes.put("resource", IndexedPairs.RESOURCE);
        scopes.put("span", IndexedPairs.SPAN);
        scopes.put("instrumentation", IndexedPairs.SCOPE);
        scopes.put("event", TagsOnlyPairs.EVENT);
        scopes.put("link", TagsOnlyPairs.LINK);
        return scopes;
    }

    private static Map<String, String> intrinsics() {
        Map<String, String> intrinsics = new LinkedHashMap<>();
        for (Intrinsic i : List.of(Intrinsic.DURATION, Intrinsic.NAME, Intrinsic.STATUS, Intrinsic.STATUS_MESSAGE,
                Intrinsic.KIND)) {
            intrinsics.put(i.word(), tagsKey(i));
        }
        for (TraceField f : List.of(TraceField.ROOT_SERVICE, TraceField.ROOT_NAME, TraceField.DURATION)) {
            intrinsics.put(f.tempoWord(), tagsKey(f));
        }
        intrinsics.put("event:" + Attribute.EVENT_NAME, TagsOnlyPairs.EVENT_NAME);
        for (Intrinsic i : List.of(Intrinsic.STATUS, Intrinsic.STATUS_MESSAGE, Intrinsic.DURATION, Intrinsic.NAME,
                Intrinsic.KIND)) {
            intrinsics.put("span:" + i.word(), tagsKey(i));
        }
        for (TraceField f : List.of(TraceField.ROOT_NAME, TraceField.ROOT_SERVICE, TraceField.DURATION)) {
            intrinsics.put("trace:" + f.word(), tagsKey(f));
        }
        return intrinsics;
    }

    /** The TAGS key of a span intrinsic's values: its ATTR_IDX key, the status message's own; "" for the duration. */
    private static String tagsKey(Intrinsic intrinsic) {
        return intrinsic == Intrinsic.STATUS_MESSAGE ? TagsOnlyPairs.STATUS_MESSAGE : intrinsic.indexedKey().orElse("");
    }

    /** The TAGS key of a trace field's values, those of the roots; "" for the duration. */
    private static String tagsKey(TraceField field) {
        return switch (field) {
            case ROOT_SERVICE -> TagsOnlyPairs.ROOT_SERVICE_NAME;
            case ROOT_NAME -> TagsOnlyPairs.ROOT_NAME;
            case DURATION -> "";
        };
    }

    /** {@code /api/v2/search/tags}. */
    public ApiReply v2Tags(TenantId tenant, Params params) throws ApiException, IOException {
        String scope = params.string("scope");
        if (scope != null && !scope.equals("none") && !scope.equals(INTRINSIC) && !SCOPES.containsKey(scope)
                && !EMPTY_SCOPES.contains(scope)) {
            throw ApiException.badRequest("invalid scope: " + scope);
        }
        TimeRange range = params.range();
        int limit = params.limit(MAX_TAGS, MAX_TAGS);
        boolean all = scope == null || scope.equals("none");
        boolean tagsOnly = all || TagsOnlyPairs.EVENT.equals(SCOPES.get(scope))
                || TagsOnlyPairs.LINK.equals(SCOPES.get(scope));
        TagsResult result = engine.spanTags(tenant, range, key -> false, tagsOnly);
        Map<String, List<String>> answer = new LinkedHashMap<>();
        SCOPES.forEach((name, namespace) -> {
            List<String> tags = keys(result, namespace, limit);
            // Every scope when asked for it; of all scopes, those needle has keys in (resource and span always).
            if (name.equals(scope) || all && (!tags.isEmpty() || ALWAYS.contains(name))) {
                answer.put(name, tags);
            }
        });
        if (all || INTRINSIC.equals(scope)) {
            answer.put(INTRINSIC, INTRINSICS.keySet().stream().limit(limit).toList());
        }
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("scopes");
            for (Map.Entry<String, List<String>> e : answer.entrySet()) {
                g.writeStartObject();
                g.writeStringField("name", e.getKey());
                g.writeArrayFieldStart("tags");
                for (String tag : e.getValue()) {
                    g.writeString(tag);
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
        }).withStatusHeaders(result.problems());
    }

    /** {@code /api/search/tags}: the attribute keys of every scope, without it, each once, as Tempo flattens them. */
    public ApiReply v1Tags(TenantId tenant, Params params) throws ApiException, IOException {
        TimeRange range = params.range();
        int limit = params.limit(MAX_TAGS, MAX_TAGS);
        TagsResult result = engine.spanTags(tenant, range, key -> false, true);
        Set<String> names = new TreeSet<>();
        for (String namespace : SCOPES.values()) {
            names.addAll(keys(result, namespace, MAX_TAGS));
        }
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("tagNames");
            for (String name : names.stream().limit(limit).toList()) {
                g.writeString(name);
            }
            g.writeEndArray();
        }).withStatusHeaders(result.problems());
    }

    /** {@code /api/v2/search/tag/{tag}/values}. */
    public ApiReply v2Values(TenantId tenant, String tag, Params params) throws ApiException, IOException {
        List<String> keys = tagsKeys(tag);
        Intrinsic intrinsic = intrinsic(tag);
        TimeRange range = params.range();
        int limit = params.limit(MAX_VALUES, MAX_VALUES);
        Expr q = query(params);
        Values found = keys.isEmpty() ? new Values(List.of(), List.of()) : values(tenant, keys, range, q);
        List<TagValue> typed = new ArrayList<>();
        for (AnyValue v : found.values().subList(0, Math.min(limit, found.values().size()))) {
            boolean keyword = intrinsic == Intrinsic.STATUS || intrinsic == Intrinsic.KIND;
            typed.add(keyword ? new TagValue("keyword", Keywords.of(intrinsic, ((AnyValue.Int) v).value()).orElse(v.scalarText()))
                    : new TagValue(type(v), v.scalarText()));
        }
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("tagValues");
            for (TagValue tv : typed) {
                g.writeStartObject();
                g.writeStringField("type", tv.type());
                g.writeStringField("value", tv.value());
                g.writeEndObject();
            }
            g.writeEndArray();
        }).withStatusHeaders(found.problems());
    }

    /** {@code /api/search/tag/{tag}/values}: the values of a resource, span or scope attribute, as text. */
    public ApiReply v1Values(TenantId tenant, String tag, Params params) throws ApiException, IOException {
        if (tag.isEmpty()) {
            throw ApiException.badRequest("please provide a non-empty tagName");
        }
        TimeRange range = params.range();
        int limit = params.limit(MAX_VALUES, MAX_VALUES);
        Values found = values(tenant, unscoped(tag), range, null);
        Set<String> texts = new LinkedHashSet<>();
        found.values().forEach(v -> texts.add(v.scalarText()));
        return JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("tagValues");
            for (String text : texts.stream().limit(limit).toList()) {
                g.writeString(text);
            }
            g.writeEndArray();
        }).withStatusHeaders(found.problems());
    }

    /** Tempo's TagValue. */
    private record TagValue(String type, String value) {
    }

    /** The values found, in file order (by type, then value), and the blocks that could not be read. */
    private record Values(List<AnyValue> values, List<String> problems) {
    }

    private Values values(TenantId tenant, List<String> keys, TimeRange range, Expr q) throws IOException {
        BlockTags.Builder merged = new BlockTags.Builder();
        List<String> problems;
        if (q == null) {
            Predicate<String> asked = keys::contains;
            TagsResult result = engine.spanTags(tenant, range, asked, keys.stream().anyMatch(TagsOnlyPairs::holds));
            merged.merge(result.tags());
            problems = result.problems();
        } else {
            SearchResult<SpanRecord> spans = engine.searchSpans(tenant, q, range, Q_SPANS, Mechanisms.ALL);
            spans.records().forEach(TagsOnlyPairs.allOf(merged));
            problems = spans.problems();
        }
        Set<AnyValue> values = new LinkedHashSet<>();
        Map<String, BlockTags.Values> all = merged.build().keys();
        for (String key : keys) {
            BlockTags.Values v = all.get(key);
            if (v != null) {
                values.addAll(v.values());
            }
        }
        return new Values(List.copyOf(values), problems);
    }

    /** {@code q}, or null when absent or {@code { }}: then the TAGS files answer. */
    private static Expr query(Params params) throws ApiException {
        String q = params.string("q");
        if (q == null) {
            return null;
        }
        try {
            Expr expr = QueryParser.parse(q, Signal.SPANS);
            return expr instanceof Expr.MatchAll ? null : expr;
        } catch (QueryParseException e) {
            throw ApiException.badRequest("q: " + e.getMessage());
        }
    }

    /** The TAGS keys a v2 tag names; empty for the intrinsics that list no values. */
    private static List<String> tagsKeys(String tag) throws ApiException {
        String key = INTRINSICS.get(tag);
        if (key != null) {
            return key.isEmpty() ? List.of() : List.of(key);
        }
        if (tag.startsWith(".") && tag.length() > 1) {
            return unscoped(tag.substring(1));
        }
        int dot = tag.indexOf('.');
        String namespace = dot < 1 ? null : SCOPES.get(tag.substring(0, dot));
        if (namespace == null || dot == tag.length() - 1) {
            throw ApiException.badRequest("please provide a valid tagName: " + Params.quote(tag)
                    + "; expected resource.k, span.k, instrumentation.k, event.k, link.k, .k or an intrinsic ("
                    + String.join(", ", INTRINSICS.keySet()) + ")");
        }
        return List.of(namespace + tag.substring(dot + 1));
    }

    /** The span intrinsic a tag names, bare or as {@code span:word}; null when it names none. */
    private static Intrinsic intrinsic(String tag) {
        String word = tag.startsWith("span:") ? tag.substring("span:".length()) : tag;
        return Intrinsic.find(Signal.SPANS, word).orElse(null);
    }

    private static List<String> unscoped(String key) {
        return List.of(IndexedPairs.RESOURCE + key, IndexedPairs.SPAN + key, IndexedPairs.SCOPE + key);
    }

    /** The keys in a namespace, without it, at most {@code limit}. */
    private static List<String> keys(TagsResult result, String namespace, int limit) {
        return result.tags().keys().keySet().stream().filter(k -> k.startsWith(namespace))
                .map(k -> k.substring(namespace.length())).limit(limit).toList();
    }

    private static String type(AnyValue v) {
        if (v instanceof AnyValue.Int) {
            return "int";
        } else if (v instanceof AnyValue.Dbl) {
            return "float";
        } else if (v instanceof AnyValue.Bool) {
            return "bool";
        }
        return "string";
    }

}
