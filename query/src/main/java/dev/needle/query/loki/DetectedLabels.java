package dev.needle.query.loki;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.logql.LogQl;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The stream labels worth breaking logs down by, for Grafana's Logs Drilldown (grafana/loki
 * {@code pkg/querier/querier.go}, {@code DetectedLabels}):
 *
 * <pre>
 * /loki/api/v1/detected_labels   query (optional), start, end, since:
 *     {"detectedLabels":[{"label":"namespace","cardinality":2},…]}
 * </pre>
 *
 * <p>The labels and values are {@link LokiLabels#all}'s: of the streams the selector selects, or without one
 * every stream's, from TAGS. As Loki, a label is left out when it has no value or when every value is an id
 * (a number or a UUID), except a label with at most two values all {@code 0} or {@code 1}, a flag; the static
 * labels {@code cluster}, {@code namespace}, {@code instance} and {@code pod} are always kept.
 * {@code cardinality} counts the distinct values exactly (Loki estimates it, and sends the estimate's
 * sketch too, which is left out here). Labels are in the order of their names.
 */
final class DetectedLabels {

    /** Labels Loki keeps whatever their values. */
    private static final Set<String> STATIC = Set.of("cluster", "namespace", "instance", "pod");
    private static final String DASHED = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
    /** The forms google/uuid's {@code Parse} takes. */
    private static final Pattern UUID = Pattern.compile("(?i)" + DASHED + "|urn:uuid:" + DASHED + "|\\{" + DASHED
            + "\\}|[0-9a-f]{32}");

    private final LokiLabels labels;

    DetectedLabels(LokiLabels labels) {
        this.labels = labels;
    }

    /** {@code /loki/api/v1/detected_labels}. */
    ApiReply answer(TenantId tenant, Params params, long now) throws ApiException, IOException {
        String query = params.string("query");
        LogQl.LogQuery selector = query == null || query.isBlank() ? null : LokiLabels.selector(query);
        TimeRange range = LokiParams.range(params, now, LokiParams.QUERY_SINCE);
        LokiLabels.LabelValues found = labels.all(tenant, selector, range, params);
        ApiReply reply = JsonReplies.object(200, g -> {
            g.writeArrayFieldStart("detectedLabels");
            for (Map.Entry<String, Set<String>> label : found.values().entrySet()) {
                if (STATIC.contains(label.getKey()) && !label.getValue().isEmpty() || !rejected(label.getValue())) {
                    g.writeStartObject();
                    g.writeStringField("label", label.getKey());
                    g.writeNumberField("cardinality", label.getValue().size());
                    g.writeEndObject();
                }
            }
            g.writeEndArray();
        });
        return LokiReplies.withHeaders(reply, found.problems(), found.plans());
    }

    /** Loki's {@code shouldRejectLabel}: no values, or only ids, unless at most two values that are all 0 or 1. */
    static boolean rejected(Set<String> values) {
        if (values.isEmpty()) {
            return true;
        }
        if (values.size() <= 2 && values.stream().allMatch(v -> v.equals("0") || v.equals("1"))) {
            return false;
        }
        return values.stream().allMatch(DetectedLabels::isId);
    }

    /** A number (as Go's {@code ParseFloat} reads it) or a UUID (as google/uuid's {@code Parse}). */
    private static boolean isId(String v) {
        String type = DetectedFields.type(v);
        return type.equals("int") || type.equals("float") || UUID.matcher(v).matches();
    }
}
