package dev.needle.query.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A JSON document read into maps, lists, strings, numbers and booleans with jackson-core, for assertions. */
public final class JsonTree {

    private static final JsonFactory FACTORY = new JsonFactory();

    private JsonTree() {
    }

    /** The document; trailing content fails. */
    public static Object parse(String json) throws IOException {
        try (JsonParser p = FACTORY.createParser(json)) {
            p.nextToken();
            Object value = value(p);
            if (p.nextToken() != null) {
                throw new IOException("trailing content after the document");
            }
            return value;
        }
    }

    /** The value at a path of object keys (String) and array indexes (Integer); null when absent. */
    public static Object at(Object root, Object... path) {
        Object v = root;
        for (Object step : path) {
            if (step instanceof String key && v instanceof Map<?, ?> m) {
                v = m.get(key);
            } else if (step instanceof Integer i && v instanceof List<?> l && i < l.size()) {
                v = l.get(i);
            } else {
                return null;
            }
        }
        return v;
    }

    /** The object at a path. */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(Object root, Object... path) {
        return (Map<String, Object>) at(root, path);
    }

    /** The array at a path. */
    @SuppressWarnings("unchecked")
    public static List<Object> array(Object root, Object... path) {
        return (List<Object>) at(root, path);
    }

    /**
     * Every value of {@code field} in the records of an OTLP JSON document, walking the three levels
     * {@code outer[*].middle[*].records[*]} (resourceSpans, scopeSpans, spans).
     */
    public static Set<Object> otlpField(Object otlp, String outer, String middle, String records, String field) {
        Set<Object> values = new LinkedHashSet<>();
        for (Object resource : array(otlp, outer)) {
            for (Object scope : array(resource, middle)) {
                for (Object record : array(scope, records)) {
                    values.add(at(record, field));
                }
            }
        }
        return values;
    }

    /** The spanId of every span under {@code resourceSpans}. */
    public static Set<Object> spanIds(Object otlp) {
        return otlpField(otlp, "resourceSpans", "scopeSpans", "spans", "spanId");
    }

    private static Object value(JsonParser p) throws IOException {
        JsonToken t = p.currentToken();
        switch (t) {
            case START_OBJECT -> {
                Map<String, Object> map = new LinkedHashMap<>();
                while (p.nextToken() != JsonToken.END_OBJECT) {
                    String key = p.currentName();
                    p.nextToken();
                    if (map.put(key, value(p)) != null) {
                        throw new IOException("duplicate key " + key);
                    }
                }
                return map;
            }
            case START_ARRAY -> {
                List<Object> list = new ArrayList<>();
                while (p.nextToken() != JsonToken.END_ARRAY) {
                    list.add(value(p));
                }
                return list;
            }
            case VALUE_STRING -> {
                return p.getText();
            }
            case VALUE_NUMBER_INT -> {
                return p.getLongValue();
            }
            case VALUE_NUMBER_FLOAT -> {
                return p.getDoubleValue();
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                return t == JsonToken.VALUE_TRUE;
            }
            case VALUE_NULL -> {
                return null;
            }
            default -> throw new IOException("unexpected token " + t);
        }
    }
}
