package dev.needle.sidecar;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/** The golden files under {@code src/test/resources/golden/} and the keys they were built from. */
final class GoldenKeys {

    static final Path DIR = Path.of("src/test/resources/golden");
    static final List<String> NAMES = List.of("trace_idx_1000", "attr_idx_all_types", "trace_idx_one_word",
            "batch_attr_idx_5_batches", "batch_attr_idx_one_word");
    private static final JsonFactory JSON = new JsonFactory();

    /** One line of a keys file: a trace id, or an attribute pair with its listed type byte and, for BATCH_ATTR_IDX, its batch. */
    record Key(byte[] traceId, String attrKey, char type, Object value, Integer batch) {

        static Key parse(String line) {
            if (!line.startsWith("{")) {
                return new Key(HexFormat.of().parseHex(line), null, 't', null, null);
            }
            Integer batch = null;
            String key = null;
            String type = null;
            Object value = null;
            try (JsonParser p = JSON.createParser(line)) {
                p.nextToken();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    JsonToken t = p.nextToken();
                    switch (field) {
                        case "batch" -> batch = p.getIntValue();
                        case "key" -> key = p.getText();
                        case "type" -> type = p.getText();
                        case "value" -> value = switch (t) {
                            case VALUE_STRING -> p.getText();
                            case VALUE_NUMBER_INT -> p.getLongValue();
                            case VALUE_NUMBER_FLOAT -> p.getDoubleValue();
                            case VALUE_TRUE -> true;
                            case VALUE_FALSE -> false;
                            default -> throw new IllegalArgumentException("bad value in " + line);
                        };
                        default -> throw new IllegalArgumentException("unknown field " + field + " in " + line);
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new Key(null, key, type.charAt(0), value, batch);
        }

        boolean isTraceId() {
            return traceId != null;
        }

        /** The pair's hash, built from the listed type byte. */
        AttributeHash attributeHash() {
            return switch (type) {
                case 's' -> AttributeHash.ofString(attrKey, (String) value);
                case 'n' -> AttributeHash.ofLong(attrKey, ((Number) value).longValue());
                case 'd' -> AttributeHash.ofDouble(attrKey, ((Number) value).doubleValue());
                case 'b' -> AttributeHash.ofBool(attrKey, (Boolean) value);
                default -> throw new IllegalArgumentException("unknown type " + type);
            };
        }

        /** Whether a sidecar may hold this key. */
        boolean in(Sidecar sidecar) {
            return isTraceId() ? sidecar.mayContainTraceId(traceId)
                    : batch != null ? sidecar.mayContain(attributeHash(), batch) : sidecar.mayContain(attributeHash());
        }
    }

    static List<Key> keys(String name) {
        try {
            List<Key> keys = new ArrayList<>();
            for (String line : Files.readAllLines(DIR.resolve(name + ".keys"), StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    keys.add(Key.parse(line.strip()));
                }
            }
            return keys;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] file(String name) {
        try {
            return Files.readAllBytes(DIR.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Rebuilds a sidecar from its keys file with the production builders. */
    static Optional<byte[]> rebuild(List<Key> keys) {
        if (keys.get(0).isTraceId()) {
            TraceIdxBuilder builder = new TraceIdxBuilder();
            keys.forEach(k -> builder.add(k.traceId()));
            return builder.build();
        }
        if (keys.get(0).batch() != null) {
            BatchAttrIdxBuilder builder = new BatchAttrIdxBuilder();
            for (Key k : keys) {
                if (k.type() == 'd') {
                    builder.holdingDouble();
                }
                builder.add(k.batch(), k.attributeHash());
            }
            return builder.build();
        }
        AttrIdxBuilder builder = new AttrIdxBuilder();
        for (Key k : keys) {
            switch (k.type()) {
                case 's' -> builder.addString(k.attrKey(), (String) k.value());
                case 'n' -> builder.addLong(k.attrKey(), ((Number) k.value()).longValue());
                case 'd' -> builder.addDouble(k.attrKey(), ((Number) k.value()).doubleValue());
                case 'b' -> builder.addBool(k.attrKey(), (Boolean) k.value());
                default -> throw new IllegalArgumentException("unknown type " + k.type());
            }
        }
        return builder.build();
    }

    private GoldenKeys() {
    }
}
