package dev.needle.blocks.otlp;

import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Request bodies in and out of the codecs, as strings and byte arrays, for the tests. */
final class Bodies {

    private Bodies() {
    }

    static Decoded<SpanRecord> jsonSpans(String json) throws IOException {
        return jsonSpans(json.getBytes(StandardCharsets.UTF_8));
    }

    static Decoded<SpanRecord> jsonSpans(byte[] json) throws IOException {
        return OtlpJson.decodeSpans(new ByteArrayInputStream(json));
    }

    static Decoded<LogRecord> jsonLogs(String json) throws IOException {
        return jsonLogs(json.getBytes(StandardCharsets.UTF_8));
    }

    static Decoded<LogRecord> jsonLogs(byte[] json) throws IOException {
        return OtlpJson.decodeLogs(new ByteArrayInputStream(json));
    }

    static byte[] spansJson(List<SpanRecord> spans) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            OtlpJson.encodeSpans(spans, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    static byte[] logsJson(List<LogRecord> logs) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            OtlpJson.encodeLogs(logs, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
