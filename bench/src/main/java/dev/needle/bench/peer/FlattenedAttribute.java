package dev.needle.bench.peer;

import dev.needle.blocks.model.AnyValue;
import dev.needle.blocks.model.KeyValue;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * One attribute key flattened into its own top-level column of one SQL type, the way users model
 * OpenTelemetry data in DuckDB or ClickHouse ({@code ServiceName}, {@code http_route} …) instead of
 * keeping a map.
 *
 * @param source where the key is looked up: the resource's attributes, or the span's or log record's own
 * @param key    the attribute key, for example {@code service.name}
 * @param type   the column's type; a value of another type is written as NULL and counted
 */
public record FlattenedAttribute(Source source, String key, Type type) {

    /** Where a flattened attribute is looked up. */
    public enum Source {
        /** The resource's attributes, shared by every record of one SDK. */
        RESOURCE,
        /** A span's own attributes. */
        SPAN,
        /** A log record's own attributes. */
        LOG;

        /** The corpus manifest's name for a source: {@code resource}, {@code span} or {@code log}. */
        public static Source of(String manifestName) {
            return valueOf(manifestName.toUpperCase(Locale.ROOT));
        }
    }

    /** The SQL type of a flattened column and the one AnyValue kind it holds. */
    public enum Type {
        /** String values. */
        VARCHAR,
        /** Int values. */
        BIGINT,
        /** Double values. */
        DOUBLE,
        /** Bool values (Parquet writes no Bloom filter for booleans: only statistics can prune them). */
        BOOLEAN;

        /** The corpus manifest's name for a type: {@code string}, {@code int}, {@code double} or {@code bool}. */
        public static Type of(String manifestName) {
            return switch (manifestName) {
                case "string" -> VARCHAR;
                case "int" -> BIGINT;
                case "double" -> DOUBLE;
                case "bool" -> BOOLEAN;
                default -> throw new IllegalArgumentException("unknown attribute type: " + manifestName);
            };
        }

        /** Whether {@code value} is of the kind this type holds. */
        boolean holds(AnyValue value) {
            return switch (this) {
                case VARCHAR -> value instanceof AnyValue.Str;
                case BIGINT -> value instanceof AnyValue.Int;
                case DOUBLE -> value instanceof AnyValue.Dbl;
                case BOOLEAN -> value instanceof AnyValue.Bool;
            };
        }
    }

    public FlattenedAttribute {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(type, "type");
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("an attribute column needs a key, got " + (key == null ? "null" : "\"\""));
        }
    }

    /** A column named as the corpus manifest names its attributes: {@code ("span", "http.route", "string")}. */
    public static FlattenedAttribute of(String source, String key, String type) {
        return new FlattenedAttribute(Source.of(source), key, Type.of(type));
    }

    /** The column's SQL name: the source, then the key with every character other than a letter or digit as '_'. */
    public String columnName() {
        return source.name().toLowerCase(Locale.ROOT) + "_" + key.replaceAll("[^A-Za-z0-9]", "_");
    }

    /** The value of this key in {@code attributes}: the first one with the key, as OTLP allows no duplicates. */
    AnyValue find(List<KeyValue> attributes) {
        for (KeyValue kv : attributes) {
            if (kv.key().equals(key)) {
                return kv.value();
            }
        }
        return null;
    }
}
