package dev.needle.corpus;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.util.StdConverter;
import dev.needle.blocks.json.StrictJson;
import dev.needle.blocks.model.AnyValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 *   "absent_attributes": [ same without "count" ],
 *   "appended": [ { "seed": 42, "spans": …, … }, … ]
 * }
 * </pre>
 *
 * {@code signal} is {@code spans} or {@code logs}; {@code scope} is where the attribute lives
 * ({@code resource}, {@code span} or {@code log}); {@code value} is a JSON string, integer, number
 * or boolean as {@code type} says. Absent values belong to keys that do occur and lie among their
 * present values, so that only a sidecar can rule them out. A corpus made in more than one run
 * ({@code needle gen --append}) keeps its first run's {@code arguments}, lists the later runs' in
 * {@code appended} (left out for one run), and counts and probes every record of all of them.
 *
 * <p>The records below are the file's fields (in snake case), bound with jackson-databind. Every
 * field is required but an absent attribute's {@code count}; fields this reader does not know are
 * skipped, {@code appended} may be left out, and {@code generator} is only written.
 *
 * @param spec              what the corpus was made from
 * @param counts            how many records of each kind the corpus holds
 * @param presentTraceIds   per family label, trace ids that occur with their span and log counts
 * @param absentTraceIds    per family label, ids of that family that occur nowhere
 * @param presentAttributes attribute values that occur, with how many records carry them
 * @param absentAttributes  attribute values that no record carries (count 0)
 * @param appended          the runs appended to the first, in order; empty for a corpus made in one run
 */
@JsonPropertyOrder("generator")
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record Manifest(@JsonProperty("arguments") CorpusSpec spec, Counts counts,
                       Map<String, List<PresentTrace>> presentTraceIds, Map<String, List<String>> absentTraceIds,
                       List<AttributeProbe> presentAttributes, List<AttributeProbe> absentAttributes,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) @JsonSetter(nulls = Nulls.AS_EMPTY)
                       List<CorpusSpec> appended) {

    /** The manifest's file name at the root of a corpus's output. */
    public static final String FILE = "manifest.json";

    private static final ObjectMapper MAPPER = StrictJson.requiringEveryField()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .build();
    private static final ObjectWriter WRITER = MAPPER.writer();
    private static final ObjectReader READER = MAPPER.readerFor(Manifest.class);

    /** Record counts of a corpus. */
    @JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
    public record Counts(long spans, long traces, long logs, long correlatedLogs, long spanErrors, long spanEvents,
                         long spanLinks, long spanBlocks, long logBlocks) {
    }

    /** A trace id that occurs, in hex, with how many spans and log records carry it. */
    public record PresentTrace(String id, long spans, long logs) {
    }

    /** An attribute value of one signal; {@code count} is how many records carry it (0 for an absent one, left out). */
    public record AttributeProbe(String signal, String scope, String key, String type,
                                 @JsonSerialize(converter = Scalar.class) AnyValue value,
                                 @JsonInclude(JsonInclude.Include.NON_DEFAULT) long count) {

        /** A probe from its JSON, whose value is read as its {@code type} says. */
        @JsonCreator
        static AttributeProbe fromJson(@JsonProperty("signal") String signal, @JsonProperty("scope") String scope,
                                       @JsonProperty("key") String key, @JsonProperty("type") String type,
                                       @JsonProperty("value") JsonNode value,
                                       @JsonProperty("count") @JsonSetter(nulls = Nulls.SET) Long count) {
            AnyValue scalar = switch (type) {
                case "string" -> value.isTextual() ? AnyValue.of(value.textValue()) : null;
                case "int" -> value.isIntegralNumber() && value.canConvertToLong() ? AnyValue.of(value.longValue()) : null;
                case "double" -> value.isNumber() ? AnyValue.of(value.doubleValue()) : null;
                case "bool" -> value.isBoolean() ? AnyValue.of(value.booleanValue()) : null;
                default -> throw new IllegalArgumentException("unknown attribute type '" + type + "'");
            };
            if (scalar == null) {
                throw new IllegalArgumentException("the value " + value + " of " + key + " is not of type " + type);
            }
            return new AttributeProbe(signal, scope, key, type, scalar, count == null ? 0 : count);
        }
    }

    /** An attribute value as the JSON string, number or boolean it is. */
    static final class Scalar extends StdConverter<AnyValue, Object> {
        @Override
        public Object convert(AnyValue value) {
            if (value instanceof AnyValue.Str s) {
                return s.value();
            } else if (value instanceof AnyValue.Int i) {
                return i.value();
            } else if (value instanceof AnyValue.Dbl d) {
                return d.value();
            } else if (value instanceof AnyValue.Bool b) {
                return b.value();
            }
            throw new IllegalArgumentException("not a scalar: " + value);
        }
    }

    /** Always {@code needle corpus-gen}: the program that wrote the file. */
    @JsonProperty("generator")
    public String generator() {
        return "needle corpus-gen";
    }

    /** Writes the manifest, with the spec it was made from as {@code "arguments"}, and a newline. */
    public void write(OutputStream out) throws IOException {
        out.write(WRITER.writeValueAsBytes(this));
        out.write('\n');
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
        return READER.readValue(in);
    }
}
