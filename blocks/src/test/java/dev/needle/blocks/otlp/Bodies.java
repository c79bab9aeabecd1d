package dev.needle.blocks.otlp;

import dev.needle.blocks.SignalKind;
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
        return json(SignalKind.SPANS, spans);
    }

    static byte[] logsJson(List<LogRecord> logs) {
        return json(SignalKind.LOGS, logs);
    }

    /** {@code records} as one OTLP JSON export request of their signal. */
    static <R> byte[] json(SignalKind<R> kind, List<R> records) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            kind.encodeJson(records, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** The records of an OTLP JSON export request of {@code kind}'s signal. */
    static <R> Decoded<R> json(SignalKind<R> kind, byte[] json) throws IOException {
        return kind.decodeJson(new ByteArrayInputStream(json), Long.MAX_VALUE);
    }
}
