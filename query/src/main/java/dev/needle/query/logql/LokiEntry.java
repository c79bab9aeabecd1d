package dev.needle.query.logql;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.KeyValue;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.Severity;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * A log record as Loki's OTLP ingestion turns it into an entry: stream labels, the line and
 * structured metadata (grafana/loki {@code pkg/loghttp/push/otlplabels}).
 *
 * <ul>
 * <li>Labels: the resource's attributes, keys made label names ({@link #labelName}: {@code service.name}
 *     → {@code service_name}); {@code service_name} from {@code service.name}, else from the first of
 *     Loki's discovery labels ({@link #SERVICE_DISCOVERY}), else {@code unknown_service}; none is discovered
 *     for a stream of Loki's own ({@link #AGGREGATED_METRIC}, {@link #PATTERN}), as Loki's push path does.</li>
 * <li>The line: the body as Loki renders it ({@link #render}).</li>
 * <li>Structured metadata: scope attributes, {@code scope_name}, {@code scope_version}, the record's
 *     attributes, {@code observed_timestamp} (when the record has its own time too), {@code severity_number},
 *     {@code severity_text}, {@code dropped_attributes_count}, {@code flags}, {@code trace_id} and
 *     {@code span_id} in lowercase hex, {@code event_name}, and Loki's {@code detected_level} from the
 *     severity number.</li>
 * </ul>
 *
 * <p>One choice of needle's: only scalar attribute values (strings, ints, doubles, bools) are labels
 * and can be matched. Bytes, arrays and maps are shown in structured metadata (base64, JSON) but no
 * matcher or filter sees them, as no needle query matches them: that is what makes every label
 * equality an ATTR_IDX lookup whose skips are certain, since those values are not indexed.
 *
 * @param timeUnixNano the entry's time: the record's event time
 * @param line         the rendered body
 * @param labels       stream labels, by name
 * @param metadata     structured metadata that filters see, in Loki's order
 * @param shown        all structured metadata, as answered
 * @param parsed       labels a query's pipeline made for the entry (parsers, {@code label_format}) and its
 *                     error ({@code __error__}, {@code __error_details__}), as answered
 */
public record LokiEntry(long timeUnixNano, String line, Map<String, String> labels, Map<String, String> metadata,
                        Map<String, String> shown, Map<String, String> parsed) {

    /** The label of the service, always present. */
    public static final String SERVICE_NAME = "service_name";
    /** Its value when nothing names the service. */
    public static final String UNKNOWN_SERVICE = "unknown_service";
    /** Loki's default {@code discover_service_name}: labels whose value becomes {@code service_name} when {@code service.name} is missing. */
    public static final List<String> SERVICE_DISCOVERY = List.of("service", "app", "application", "app_name", "name",
            "app_kubernetes_io_name", "container", "container_name", "k8s_container_name", "component", "workload",
            "job", "k8s_job_name");
    /** Structured metadata that comes from the record's own fields, not from attributes. */
    public static final Set<String> FIELDS = Set.of("observed_timestamp", "severity_number", "severity_text",
            "dropped_attributes_count", "flags", "trace_id", "span_id", "event_name", "scope_name", "scope_version",
            "scope_dropped_attributes_count", "detected_level");
    /** The label of the streams Loki writes its own aggregated metrics to: no service name is discovered for them. */
    public static final String AGGREGATED_METRIC = "__aggregated_metric__";
    /** The label of the streams Loki writes its own patterns to: no service name is discovered for them. */
    public static final String PATTERN = "__pattern__";
    /** Structured metadata of the trace id. */
    public static final String TRACE_ID = "trace_id";

    private static final JsonFactory JSON = new JsonFactory();

    public LokiEntry {
        labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
        shown = Collections.unmodifiableMap(new LinkedHashMap<>(shown));
        parsed = Collections.unmodifiableMap(new LinkedHashMap<>(parsed));
    }

    /** A label filter's value: the stream label, else the structured metadata, else {@code ""}, as in Loki. */
    public String label(String name) {
        String v = labels.get(name);
        return v != null ? v : metadata.getOrDefault(name, "");
    }

    /** The entry Loki would make of {@code r}. */
    public static LokiEntry of(LogRecord r) {
        Map<String, String> labels = new TreeMap<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        Map<String, String> shown = new LinkedHashMap<>();
        boolean hasServiceName = false;
        for (KeyValue kv : r.resource().attributes()) {
            if (isScalar(kv.value())) {
                labels.put(labelName(kv.key()), render(kv.value()));
                hasServiceName |= kv.key().equals("service.name") && !render(kv.value()).isEmpty();
            } else {
                shown.put(labelName(kv.key()), render(kv.value()));
            }
        }
        if (!hasServiceName && !labels.containsKey(AGGREGATED_METRIC) && !labels.containsKey(PATTERN)) {
            labels.put(SERVICE_NAME, SERVICE_DISCOVERY.stream().map(labels::get).filter(v -> v != null && !v.isEmpty())
                    .findFirst().orElse(UNKNOWN_SERVICE));
        }
        attributes(r.scope().attributes(), metadata, shown, "");
        field(metadata, shown, "scope_name", r.scope().name());
        field(metadata, shown, "scope_version", r.scope().version());
        field(metadata, shown, "scope_dropped_attributes_count", count(r.scope().droppedAttributesCount()));
        attributes(r.attributes(), metadata, shown, r.eventName().isEmpty() ? "" : "event_name");
        field(metadata, shown, "observed_timestamp",
                r.timeUnixNano() != 0 && r.observedTimeUnixNano() != 0 ? Long.toUnsignedString(r.observedTimeUnixNano()) : "");
        field(metadata, shown, "severity_number", count(r.severityNumber()));
        field(metadata, shown, "severity_text", r.severityText());
        field(metadata, shown, "dropped_attributes_count", count(r.droppedAttributesCount()));
        field(metadata, shown, "flags", r.flags() == 0 ? "" : Integer.toUnsignedString(r.flags()));
        field(metadata, shown, TRACE_ID, hex(r.traceId()));
        field(metadata, shown, "span_id", hex(r.spanId()));
        field(metadata, shown, "event_name", r.eventName());
        field(metadata, shown, "detected_level", level(r.severityNumber()));
        return new LokiEntry(r.eventTimeUnixNano(), render(r.body()), labels, metadata, shown, Map.of());
    }

    /**
     * A key as a Loki label name, as Prometheus' OTLP label namer (otlptranslator's
     * {@code LabelNamer} with its defaults) makes it: every run of characters other than ASCII
     * letters and digits ({@code _} included) becomes one {@code _}, a name that then starts with a
     * digit gets {@code key_} before it, and a {@code __name__} keeps its double underscores around
     * the rest so made.
     */
    public static String labelName(String key) {
        boolean reserved = key.length() >= 4 && key.startsWith("__") && key.endsWith("__");
        String inner = reserved ? key.substring(2, key.length() - 2) : key;
        StringBuilder out = new StringBuilder(key.length() + 4);
        boolean underscore = false;
        for (int i = 0; i < inner.length(); ) {
            int c = inner.codePointAt(i);
            i += Character.charCount(c);
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
                out.appendCodePoint(c);
                underscore = false;
            } else if (!underscore) {
                out.append('_');
                underscore = true;
            }
        }
        if (reserved) {
            return "__" + out + "__";
        }
        if (out.length() > 0 && out.charAt(0) >= '0' && out.charAt(0) <= '9') {
            out.insert(0, "key_");
        }
        return out.toString();
    }

    /**
     * A value as Loki's OTLP ingestion writes it ({@code pcommon.Value.AsString}): strings as they
     * are, ints in decimal, doubles in the shortest plain decimal ({@code 1.5}, {@code 3}), bools as
     * {@code true}/{@code false}, bytes in base64, arrays and maps as JSON, nothing as {@code ""}.
     */
    public static String render(AnyValue v) {
        if (v instanceof AnyValue.Str s) {
            return s.value();
        } else if (v instanceof AnyValue.Dbl d) {
            return number(d.value());
        } else if (v instanceof AnyValue.Blob b) {
            return Base64.getEncoder().encodeToString(b.value().toByteArray());
        } else if (v instanceof AnyValue.Array || v instanceof AnyValue.KvList) {
            StringWriter out = new StringWriter();
            try (JsonGenerator g = JSON.createGenerator(out)) {
                json(g, v);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return out.toString();
        }
        String scalar = v.scalarText();
        return scalar == null ? "" : scalar;
    }

    /** A double as Go's {@code strconv.FormatFloat(v, 'f', -1, 64)} writes it, as Loki and Prometheus do. */
    public static String number(double v) {
        if (Double.isNaN(v)) {
            return "NaN";
        }
        if (Double.isInfinite(v)) {
            return v > 0 ? "+Inf" : "-Inf";
        }
        if (v == 0) {
            return 1 / v < 0 ? "-0" : "0";
        }
        return new BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
    }

    /** Whether a value is a scalar, which labels and filters see. */
    static boolean isScalar(AnyValue v) {
        return v instanceof AnyValue.Str || v instanceof AnyValue.Int || v instanceof AnyValue.Dbl
                || v instanceof AnyValue.Bool;
    }

    private static void attributes(List<KeyValue> attributes, Map<String, String> metadata, Map<String, String> shown,
                                   String skipped) {
        for (KeyValue kv : attributes) {
            if (kv.key().equals(skipped)) {
                // Loki: the record's own event name wins over an attribute of that name.
                continue;
            }
            String name = labelName(kv.key());
            String value = render(kv.value());
            if (isScalar(kv.value())) {
                metadata.put(name, value);
            }
            shown.put(name, value);
        }
    }

    private static void field(Map<String, String> metadata, Map<String, String> shown, String name, String value) {
        if (!value.isEmpty()) {
            metadata.put(name, value);
            shown.put(name, value);
        }
    }

    private static String count(int n) {
        return n == 0 ? "" : Integer.toUnsignedString(n);
    }

    private static String hex(Bytes id) {
        return id.isEmpty() ? "" : id.hex();
    }

    /** Loki's {@code detected_level} of an OTLP severity number; none for unspecified (0). */
    private static String level(int severityNumber) {
        return Severity.of(severityNumber).map(Severity::word).orElse("");
    }

    private static void json(JsonGenerator g, AnyValue v) throws IOException {
        if (v instanceof AnyValue.Array a) {
            g.writeStartArray();
            for (AnyValue e : a.values()) {
                json(g, e);
            }
            g.writeEndArray();
        } else if (v instanceof AnyValue.KvList kvs) {
            // Go's encoding/json writes a map's keys sorted; a repeated key keeps its last value.
            Map<String, AnyValue> sorted = new TreeMap<>();
            kvs.values().forEach(kv -> sorted.put(kv.key(), kv.value()));
            g.writeStartObject();
            for (Map.Entry<String, AnyValue> e : sorted.entrySet()) {
                g.writeFieldName(e.getKey());
                json(g, e.getValue());
            }
            g.writeEndObject();
        } else if (v instanceof AnyValue.Int i) {
            g.writeNumber(i.value());
        } else if (v instanceof AnyValue.Dbl d) {
            if (Double.isFinite(d.value())) {
                g.writeNumber(number(d.value()));
            } else {
                g.writeString(number(d.value()));
            }
        } else if (v instanceof AnyValue.Bool b) {
            g.writeBoolean(b.value());
        } else if (v instanceof AnyValue.Empty) {
            g.writeNull();
        } else {
            g.writeString(render(v));
        }
    }
}
