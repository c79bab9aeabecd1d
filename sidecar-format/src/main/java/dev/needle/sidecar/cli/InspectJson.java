package dev.needle.sidecar.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/** Writes the flat maps, lists, strings and numbers of the inspect output as JSON, in the maps' order. */
final class InspectJson {

    private static final JsonFactory FACTORY = new JsonFactory();

    private InspectJson() {
    }

    static String write(Object value) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = FACTORY.createGenerator(out)) {
            write(json, value);
        } catch (IOException e) {
            throw new UncheckedIOException("a StringWriter does not fail", e);
        }
        return out.toString();
    }

    private static void write(JsonGenerator json, Object value) throws IOException {
        if (value instanceof Map<?, ?> map) {
            json.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                json.writeFieldName(e.getKey().toString());
                write(json, e.getValue());
            }
            json.writeEndObject();
        } else if (value instanceof List<?> list) {
            json.writeStartArray();
            for (Object item : list) {
                write(json, item);
            }
            json.writeEndArray();
        } else if (value instanceof Integer || value instanceof Long) {
            json.writeNumber(((Number) value).longValue());
        } else if (value instanceof Number n) {
            json.writeNumber(n.doubleValue());
        } else if (value instanceof Boolean b) {
            json.writeBoolean(b);
        } else {
            json.writeString(String.valueOf(value));
        }
    }
}
