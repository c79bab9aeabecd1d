package dev.needle.query.tempo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.needle.query.tempopb.SearchResponse;
import java.io.IOException;

/**
 * Decodes needle's answers as Grafana's Tempo datasource does: protobuf's JSON mapping into Tempo's
 * own messages (src/test/proto), where a field the message does not have is an error, as it is for
 * Grafana's {@code jsonpb.Unmarshal}.
 */
final class GrafanaDecode {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private GrafanaDecode() {
    }

    /** A {@code /api/search} answer, as Grafana reads it; any field Tempo's message lacks fails. */
    static SearchResponse search(String json) throws InvalidProtocolBufferException {
        return decode(json, SearchResponse.newBuilder()).build();
    }

    /** Any answer into {@code builder}'s message, refusing a field the message lacks. */
    static <B extends Message.Builder> B decode(String json, B builder) throws InvalidProtocolBufferException {
        JsonFormat.parser().merge(json, builder);
        return builder;
    }

    /** An answer to {@code explain=true}, which Grafana never sends: without its "explain", exactly Tempo's shape. */
    static SearchResponse searchExplained(String json) throws IOException {
        ObjectNode body = (ObjectNode) MAPPER.readTree(json);
        if (body.remove("explain") == null) {
            throw new AssertionError("explain=true answered no plan: " + json);
        }
        return search(MAPPER.writeValueAsString(body));
    }
}
