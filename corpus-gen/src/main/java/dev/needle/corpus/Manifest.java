package dev.needle.corpus;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.blocks.model.AnyValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code manifest.json}: what a corpus holds and what it certainly does not — the probes that
 * tests and benchmarks look up. Written from the generator's counts; {@code CorpusManifestTruthTest}
 * holds it to a full scan of the output.
 *
 * <pre>
 * {
 *   "generator": "needle corpus-gen",
 *   "arguments": { "seed": 42, "spans": …, "families": ["random", …], … },
 *   "counts": { "spans": …, "traces": …, "logs": …, "correlated_logs": …, … },
 *   "present_trace_ids": { "random": [ {"id": "hex32", "spans": n, "logs": n}, … ], … },
 *   "absent_trace_ids": { "random": [ "hex32", … ], … },
 *   "present_attributes": [ {"signal": "spans", "scope": "span", "key": "http.route",
 *                            "type": "string", "value": "/api/cart", "count": n}, … ],
 *   "absent_attributes": [ same without "count" ]
 * }
 * </pre>
 *
 * {@code signal} is {@code spans} or {@code logs}; {@code scope} is where the attribute lives
 * ({@code resource}, {@code span} or {@code log}); {@code value} is a JSON string, integer, number
 * or boolean as {@code type} says. Absent values belong to keys that do occur and lie among their
 * present values, so that only a sidecar can rule them out.
 *
 * @param spec              what the corpus was made from
 * @param counts            how many records of each kind the corpus holds
 * @param presentTraceIds   per family label, trace ids that occur with their span and log counts
 * @param absentTraceIds    per family label, ids of that family that occur nowhere
 * @param presentAttributes attribute values that occur, with how many records carry them
 * @param absentAttributes  attribute values that no record carries (count 0)
 */
public record Manifest(CorpusSpec spec, Counts counts, Map<String, List<PresentTrace>> presentTraceIds,
                       Map<String, List<String>> absentTraceIds, List<AttributeProbe> presentAttributes,
                       List<AttributeProbe> absentAttributes) {

    /** The manifest's file name at the root of a corpus's output. */
    public static final String FILE = "manifest.json";

    private static final JsonFactory JSON = new JsonFactory();

    /** Record counts of a corpus. */
    public record Counts(long spans, long traces, long logs, long correlatedLogs, long spanErrors, long spanEvents,
                         long spanLinks, long spanBlocks, long logBlocks) {
    }

    /** A trace id that occurs, in hex, with how many spans and log records carry it. */
    public record PresentTrace(String id, long spans, long logs) {
    }

    /** An attribute value of one signal; {@code count} is how many records carry it (0 for an absent one). */
    public record AttributeProbe(String signal, String scope, String key, String type, AnyValue value, long count) {
    }

    /** Writes the manifest, with the spec it was made from as {@code "arguments"}. */
    public void write(OutputStream out) throws IOException {
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("generator", "needle corpus-gen");
            g.writeFieldName("arguments");
            spec.writeJson(g);
            g.writeObjectFieldStart("counts");
            g.writeNumberField("spans", counts.spans);
            g.writeNumberField("traces", counts.traces);
            g.writeNumberField("logs", counts.logs);
            g.writeNumberField("correlated_logs", counts.correlatedLogs);
            g.writeNumberField("span_errors", counts.spanErrors);
            g.writeNumberField("span_events", counts.spanEvents);
            g.writeNumberField("span_links", counts.spanLinks);
            g.writeNumberField("span_blocks", counts.spanBlocks);
            g.writeNumberField("log_blocks", counts.logBlocks);
            g.writeEndObject();
            g.writeObjectFieldStart("present_trace_ids");
            for (var family : presentTraceIds.entrySet()) {
                g.writeArrayFieldStart(family.getKey());
                for (PresentTrace trace : family.getValue()) {
                    g.writeStartObject();
                    g.writeStringField("id", trace.id);
                    g.writeNumberField("spans", trace.spans);
                    g.writeNumberField("logs", trace.logs);
                    g.writeEndObject();
                }
                g.writeEndArray();
            }
            g.writeEndObject();
            g.writeObjectFieldStart("absent_trace_ids");
            for (var family : absentTraceIds.entrySet()) {
                g.writeArrayFieldStart(family.getKey());
                for (String id : family.getValue()) {
                    g.writeString(id);
                }
                g.writeEndArray();
            }
            g.writeEndObject();
            writeAttributes(g, "present_attributes", presentAttributes, true);
            writeAttributes(g, "absent_attributes", absentAttributes, false);
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    private static void writeAttributes(JsonGenerator g, String field, List<AttributeProbe> probes, boolean counted)
            throws IOException {
        g.writeArrayFieldStart(field);
        for (AttributeProbe p : probes) {
            g.writeStartObject();
            g.writeStringField("signal", p.signal);
            g.writeStringField("scope", p.scope);
            g.writeStringField("key", p.key);
            g.writeStringField("type", p.type);
            g.writeFieldName("value");
            if (p.value instanceof AnyValue.Str s) {
                g.writeString(s.value());
            } else if (p.value instanceof AnyValue.Int i) {
                g.writeNumber(i.value());
            } else if (p.value instanceof AnyValue.Dbl d) {
                g.writeNumber(d.value());
            } else if (p.value instanceof AnyValue.Bool b) {
                g.writeBoolean(b.value());
            } else {
                throw new IllegalArgumentException("not a scalar: " + p.value);
            }
            if (counted) {
                g.writeNumberField("count", p.count);
            }
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    /** Writes the manifest as {@code dir/manifest.json}, whole or not at all. */
    public Path writeTo(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + FILE + ".tmp");
        try (OutputStream out = Files.newOutputStream(tmp)) {
            write(out);
        }
        return Files.move(tmp, dir.resolve(FILE), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Reads {@code dir/manifest.json}. */
    public static Manifest readFrom(Path dir) throws IOException {
        try (InputStream in = Files.newInputStream(dir.resolve(FILE))) {
            return read(in);
        }
    }

    /** Reads a manifest written by {@link #write}. */
    public static Manifest read(InputStream in) throws IOException {
        try (JsonParser p = JSON.createParser(in)) {
            expect(p, p.nextToken(), JsonToken.START_OBJECT);
            CorpusSpec spec = null;
            Counts counts = null;
            Map<String, List<PresentTrace>> present = new LinkedHashMap<>();
            Map<String, List<String>> absent = new LinkedHashMap<>();
            List<AttributeProbe> presentAttributes = new ArrayList<>();
            List<AttributeProbe> absentAttributes = new ArrayList<>();
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "arguments" -> spec = CorpusSpec.readJson(p);
                    case "counts" -> counts = readCounts(p);
                    case "present_trace_ids" -> {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String family = p.currentName();
                            List<PresentTrace> traces = new ArrayList<>();
                            expect(p, p.nextToken(), JsonToken.START_ARRAY);
                            while (p.nextToken() == JsonToken.START_OBJECT) {
                                Map<String, String> o = readFlat(p);
                                traces.add(new PresentTrace(o.get("id"), Long.parseLong(o.get("spans")), Long.parseLong(o.get("logs"))));
                            }
                            present.put(family, traces);
                        }
                    }
                    case "absent_trace_ids" -> {
                        while (p.nextToken() == JsonToken.FIELD_NAME) {
                            String family = p.currentName();
                            List<String> ids = new ArrayList<>();
                            expect(p, p.nextToken(), JsonToken.START_ARRAY);
                            while (p.nextToken() == JsonToken.VALUE_STRING) {
                                ids.add(p.getText());
                            }
                            absent.put(family, ids);
                        }
                    }
                    case "present_attributes" -> readAttributes(p, presentAttributes);
                    case "absent_attributes" -> readAttributes(p, absentAttributes);
                    default -> p.skipChildren();
                }
                if (value == null) {
                    throw new IOException("manifest ends inside field " + field);
                }
            }
            if (spec == null || counts == null) {
                throw new IOException("manifest lacks \"arguments\" or \"counts\"");
            }
            return new Manifest(spec, counts, present, absent, presentAttributes, absentAttributes);
        }
    }

    private static Counts readCounts(JsonParser p) throws IOException {
        Map<String, String> o = readFlat(p);
        return new Counts(number(o, "spans"), number(o, "traces"), number(o, "logs"), number(o, "correlated_logs"),
                number(o, "span_errors"), number(o, "span_events"), number(o, "span_links"),
                number(o, "span_blocks"), number(o, "log_blocks"));
    }

    private static void readAttributes(JsonParser p, List<AttributeProbe> into) throws IOException {
        while (p.nextToken() == JsonToken.START_OBJECT) {
            Map<String, String> o = readFlat(p);
            String type = o.get("type");
            String text = o.get("value");
            AnyValue value = switch (type) {
                case "string" -> AnyValue.of(text);
                case "int" -> AnyValue.of(Long.parseLong(text));
                case "double" -> AnyValue.of(Double.parseDouble(text));
                case "bool" -> AnyValue.of(Boolean.parseBoolean(text));
                default -> throw new IOException("unknown attribute type '" + type + "'");
            };
            into.add(new AttributeProbe(o.get("signal"), o.get("scope"), o.get("key"), type, value,
                    o.containsKey("count") ? Long.parseLong(o.get("count")) : 0));
        }
    }

    /** An object of scalar fields, each as its text; the parser is on its START_OBJECT. */
    private static Map<String, String> readFlat(JsonParser p) throws IOException {
        Map<String, String> fields = new LinkedHashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            JsonToken t = p.nextToken();
            if (t == null || t.isStructStart()) {
                throw new IOException("manifest field " + name + " is not a scalar");
            }
            fields.put(name, p.getText());
        }
        return fields;
    }

    private static long number(Map<String, String> o, String field) throws IOException {
        String text = o.get(field);
        if (text == null) {
            throw new IOException("manifest counts have no \"" + field + "\"");
        }
        return Long.parseLong(text);
    }

    private static void expect(JsonParser p, JsonToken actual, JsonToken wanted) throws IOException {
        if (actual != wanted) {
            throw new IOException("manifest: expected " + wanted + " at " + p.currentLocation() + ", found " + actual);
        }
    }
}
