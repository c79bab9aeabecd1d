package dev.needle.corpus.otlp;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import dev.needle.blocks.SignalKind;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What differs between spans and log records on the wire: the endpoint, the request file
 * directory, the encoders (their {@link SignalKind}'s), and the names of the rejected-count field in an
 * export response.
 */
final class OtlpSignal<T> {

    /** How much of an error body a report quotes. */
    private static final int MAX_QUOTED = 300;
    private static final JsonFactory JSON = new JsonFactory();

    static final OtlpSignal<SpanRecord> SPANS = new OtlpSignal<>(SignalKind.SPANS, "/v1/traces", "traces",
            "rejectedSpans", "rejected_spans", body -> {
                ExportTracePartialSuccess p = ExportTraceServiceResponse.parseFrom(body).getPartialSuccess();
                return new PartialSuccess(p.getRejectedSpans(), p.getErrorMessage());
            });
    static final OtlpSignal<LogRecord> LOGS = new OtlpSignal<>(SignalKind.LOGS, "/v1/logs", "logs",
            "rejectedLogRecords", "rejected_log_records", body -> {
                ExportLogsPartialSuccess p = ExportLogsServiceResponse.parseFrom(body).getPartialSuccess();
                return new PartialSuccess(p.getRejectedLogRecords(), p.getErrorMessage());
            });

    /** The partial_success of an export response: how many records the server rejected, and why. */
    record PartialSuccess(long rejected, String message) {
    }

    private interface ProtoResponse {
        PartialSuccess parse(byte[] body) throws IOException;
    }

    private final SignalKind<T> kind;
    private final String path;
    private final String dir;
    private final String jsonRejected;
    private final String jsonRejectedSnake;
    private final ProtoResponse protoResponse;

    private OtlpSignal(SignalKind<T> kind, String path, String dir, String jsonRejected, String jsonRejectedSnake,
                       ProtoResponse protoResponse) {
        this.kind = kind;
        this.path = path;
        this.dir = dir;
        this.jsonRejected = jsonRejected;
        this.jsonRejectedSnake = jsonRejectedSnake;
        this.protoResponse = protoResponse;
    }

    /** {@code spans} or {@code logs}, as a report names the signal. */
    String name() {
        return kind.signal().dirName();
    }

    /** The OTLP/HTTP path: {@code /v1/traces} or {@code /v1/logs}. */
    String path() {
        return path;
    }

    /** The directory request files go into: {@code traces} or {@code logs}, named like the endpoint. */
    String dir() {
        return dir;
    }

    /** Writes {@code records} as one export request; does not close {@code out}. */
    void encode(OtlpEncoding encoding, List<T> records, OutputStream out) throws IOException {
        if (encoding == OtlpEncoding.PROTOBUF) {
            out.write(kind.encodeWire(records));
        } else {
            kind.encodeJson(records, out);
        }
    }

    /** {@code records} as one protobuf export request, in an array of exactly its size. */
    byte[] protobuf(List<T> records) {
        return kind.encodeWire(records);
    }

    /**
     * The partial_success of a 2xx response body in {@code encoding}; an empty body (OTLP's "all
     * accepted" in protobuf) has none. Bytes that are not a response give an IOException.
     */
    PartialSuccess partialSuccess(OtlpEncoding encoding, byte[] body) throws IOException {
        if (body.length == 0) {
            return new PartialSuccess(0, "");
        }
        return encoding == OtlpEncoding.PROTOBUF ? protoResponse.parse(body) : jsonPartialSuccess(body);
    }

    /** Reads {@code partialSuccess} from a JSON response, in OTLP/JSON's lowerCamelCase or proto3's snake_case. */
    private PartialSuccess jsonPartialSuccess(byte[] body) throws IOException {
        long rejected = 0;
        String message = "";
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the response is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (value != JsonToken.START_OBJECT
                        || !(field.equals("partialSuccess") || field.equals("partial_success"))) {
                    p.skipChildren();
                    continue;
                }
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String inner = p.currentName();
                    JsonToken v = p.nextToken();
                    if ((inner.equals(jsonRejected) || inner.equals(jsonRejectedSnake))
                            && (v == JsonToken.VALUE_STRING || v == JsonToken.VALUE_NUMBER_INT)) {
                        // OTLP/JSON writes int64 as a string; some servers write a number.
                        rejected = Long.parseLong(p.getText().trim());
                    } else if ((inner.equals("errorMessage") || inner.equals("error_message"))
                            && v == JsonToken.VALUE_STRING) {
                        message = p.getText();
                    } else {
                        p.skipChildren();
                    }
                }
            }
        } catch (NumberFormatException e) {
            throw new IOException("the response's " + jsonRejected + " is not an integer: " + e.getMessage(), e);
        }
        return new PartialSuccess(rejected, message);
    }

    /**
     * The message of an error reply: the {@code google.rpc.Status} message in either encoding
     * (OTLP/HTTP's error body), else the body as text, cut short.
     */
    static String errorMessage(OtlpEncoding encoding, byte[] body) {
        if (body.length == 0) {
            return "(no body)";
        }
        try {
            String message = encoding == OtlpEncoding.PROTOBUF ? protoStatusMessage(body) : jsonStatusMessage(body);
            if (message != null && !message.isEmpty()) {
                return cut(message);
            }
        } catch (IOException | RuntimeException e) {
            // Not a Status (a proxy's HTML page, say): the text itself is the best message there is.
        }
        return cut(new String(body, StandardCharsets.UTF_8).replaceAll("\\p{Cntrl}+", " ").strip());
    }

    /** Field 2 of {@code google.rpc.Status}, read from the wire so that no googleapis classes are needed. */
    private static String protoStatusMessage(byte[] body) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(body);
        String message = null;
        while (!in.isAtEnd()) {
            int tag = in.readTag();
            if (WireFormat.getTagFieldNumber(tag) == 2
                    && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                message = in.readString();
            } else {
                in.skipField(tag);
            }
        }
        return message;
    }

    private static String jsonStatusMessage(byte[] body) throws IOException {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String message = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                if (field.equals("message") && value == JsonToken.VALUE_STRING) {
                    message = p.getText();
                } else {
                    p.skipChildren();
                }
            }
            return message;
        }
    }

    private static String cut(String s) {
        return s.length() <= MAX_QUOTED ? s : s.substring(0, MAX_QUOTED) + "…";
    }
}
