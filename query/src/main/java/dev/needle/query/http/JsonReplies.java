package dev.needle.query.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.ExplainFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/** JSON replies: one object per response, written with Jackson's streaming generator. */
public final class JsonReplies {

    private static final JsonFactory FACTORY = new JsonFactory();

    /** Writes the fields of the reply's top-level object. */
    public interface Fields {
        void write(JsonGenerator g) throws IOException;
    }

    private JsonReplies() {
    }

    /** A reply whose body is one object holding what {@code fields} writes. */
    public static ApiReply object(int status, Fields fields) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.writeStartObject();
            fields.write(g);
            g.writeEndObject();
        } catch (IOException e) {
            // Only the generator's own bugs can fail a write into memory.
            throw new UncheckedIOException(e);
        }
        return new ApiReply(status, ApiReply.JSON, out.toByteArray());
    }

    /**
     * {@code "status":"COMPLETE"} or {@code "status":"PARTIAL"} with a {@code "message"} naming
     * the blocks that could not be read.
     */
    public static void status(JsonGenerator g, List<String> problems) throws IOException {
        g.writeStringField("status", problems.isEmpty() ? "COMPLETE" : "PARTIAL");
        if (!problems.isEmpty()) {
            g.writeStringField("message", partialMessage(problems));
        }
    }

    /** Only when partial: the same status and message, for shapes that have no status field of their own. */
    public static void statusIfPartial(JsonGenerator g, List<String> problems) throws IOException {
        if (!problems.isEmpty()) {
            status(g, problems);
        }
    }

    /** The message of a partial answer: how many blocks (or ingest nodes) were unreadable, and each problem. */
    public static String partialMessage(List<String> problems) {
        return problems.size() + (problems.size() == 1 ? " block or ingest node" : " blocks or ingest nodes")
                + " could not be read, so the answer may miss records: " + String.join("; ", problems);
    }

    /** {@code "explain":[plan, …]} when {@code explain}. */
    public static void explain(JsonGenerator g, boolean explain, List<Explain> plans) throws IOException {
        if (!explain) {
            return;
        }
        g.writeFieldName("explain");
        ExplainFormat.write(plans, g);
    }
}
