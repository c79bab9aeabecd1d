package dev.needle.ingest.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.CodedOutputStream;
import dev.needle.blocks.model.Signal;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsPartialSuccess;
import io.opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse;
import io.opentelemetry.proto.collector.trace.v1.ExportTracePartialSuccess;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;

/**
 * The two OTLP/HTTP encodings: how a request's Content-Type names them, and the reply bodies
 * (an Export…ServiceResponse, or a {@code google.rpc.Status}) written in each.
 */
enum Encoding {

    PROTOBUF("protobuf", "application/x-protobuf") {
        @Override
        byte[] exportResponse(Signal signal, int rejected, String message) {
            if (rejected == 0) {
                // OTLP: a response without partial_success means everything was accepted.
                return new byte[0];
            }
            return signal == Signal.SPANS
                    ? ExportTraceServiceResponse.newBuilder().setPartialSuccess(ExportTracePartialSuccess.newBuilder()
                            .setRejectedSpans(rejected).setErrorMessage(message)).build().toByteArray()
                    : ExportLogsServiceResponse.newBuilder().setPartialSuccess(ExportLogsPartialSuccess.newBuilder()
                            .setRejectedLogRecords(rejected).setErrorMessage(message)).build().toByteArray();
        }

        @Override
        byte[] status(int code, String message) {
            // google.rpc.Status { int32 code = 1; string message = 2; } written by hand, so that
            // replying needs no googleapis classes; zero and empty are left out, as protobuf does.
            int size = (code == 0 ? 0 : CodedOutputStream.computeInt32Size(1, code))
                    + (message.isEmpty() ? 0 : CodedOutputStream.computeStringSize(2, message));
            byte[] bytes = new byte[size];
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            try {
                if (code != 0) {
                    out.writeInt32(1, code);
                }
                if (!message.isEmpty()) {
                    out.writeString(2, message);
                }
                out.checkNoSpaceLeft();
            } catch (IOException e) {
                throw new UncheckedIOException("writing a Status into an array of its exact size", e);
            }
            return bytes;
        }
    },

    JSON("json", "application/json") {
        @Override
        byte[] exportResponse(Signal signal, int rejected, String message) {
            return json(g -> {
                g.writeStartObject();
                if (rejected > 0) {
                    g.writeObjectFieldStart("partialSuccess");
                    // OTLP/JSON writes int64 as a string.
                    g.writeStringField(signal == Signal.SPANS ? "rejectedSpans" : "rejectedLogRecords",
                            Long.toString(rejected));
                    g.writeStringField("errorMessage", message);
                    g.writeEndObject();
                }
                g.writeEndObject();
            });
        }

        @Override
        byte[] status(int code, String message) {
            return json(g -> {
                g.writeStartObject();
                g.writeNumberField("code", code);
                g.writeStringField("message", message);
                g.writeEndObject();
            });
        }
    };

    private static final JsonFactory JSON_FACTORY = new JsonFactory();

    private final String label;
    private final String mediaType;

    Encoding(String label, String mediaType) {
        this.label = label;
        this.mediaType = mediaType;
    }

    /**
     * The encoding a Content-Type names, ignoring case and parameters such as {@code charset};
     * null when it names neither (or is absent).
     */
    static Encoding ofContentType(String contentType) {
        if (contentType == null) {
            return null;
        }
        int semicolon = contentType.indexOf(';');
        String type = (semicolon < 0 ? contentType : contentType.substring(0, semicolon)).trim()
                .toLowerCase(Locale.ROOT);
        for (Encoding e : values()) {
            if (e.mediaType.equals(type)) {
                return e;
            }
        }
        return null;
    }

    /** The value of the metrics label {@code encoding}. */
    String label() {
        return label;
    }

    /** The reply's Content-Type: exactly this, since the Collector drops a batch whose reply it cannot parse. */
    String mediaType() {
        return mediaType;
    }

    /** A 200 reply's body: an empty response, or one with partial_success when records were rejected. */
    abstract byte[] exportResponse(Signal signal, int rejected, String message);

    /** An error reply's body: a {@code google.rpc.Status} with {@code code} (a gRPC code) and {@code message}. */
    abstract byte[] status(int code, String message);

    private interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }

    private static byte[] json(JsonWriter writer) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON_FACTORY.createGenerator(out)) {
            writer.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException("writing JSON into memory", e);
        }
        return out.toByteArray();
    }
}
