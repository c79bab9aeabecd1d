package dev.needle.query.tempo;

import com.google.protobuf.CodedOutputStream;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.blocks.otlp.OtlpWireWriter;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.engine.TraceResult;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.JsonReplies;
import dev.needle.query.http.Params;
import dev.needle.query.metrics.QueryMetrics;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Trace by id: Tempo's {@code /api/v2/traces/{id}} and the older {@code /api/traces/{id}}. */
public final class TraceEndpoint {

    /*
     * Tempo's TraceByIDResponse, written field by field so that no .proto file is needed:
     *   1 trace    Trace, a message whose field 1 is repeated ResourceSpans (wire-identical to
     *              an OTLP ExportTraceServiceRequest)
     *   3 status   enum PartialStatus, COMPLETE = 0 (left out, as proto3 does), PARTIAL = 1
     *   4 message  string, only when partial
     * Field 2 (metrics) is not written.
     */
    private static final int TRACE_FIELD = 1;
    private static final int STATUS_FIELD = 3;
    private static final int MESSAGE_FIELD = 4;
    private static final int PARTIAL = 1;

    private final QueryEngine engine;
    private final QueryMetrics metrics;

    /** The endpoint over {@code engine}, counting each lookup in {@code metrics}. */
    public TraceEndpoint(QueryEngine engine, QueryMetrics metrics) {
        this.engine = engine;
        this.metrics = metrics;
    }

    /**
     * {@code /api/v2/traces/{id}}: {@code {"trace":{"resourceSpans":[…]},"status":…,"message"?,
     * "logs"?,"explain"?}}, or the protobuf TraceByIDResponse, which has no room for logs or plans.
     */
    public ApiReply v2(TenantId tenant, String rawId, Params params, boolean protobuf) throws ApiException, IOException {
        Bytes id = Params.traceId(rawId);
        TimeRange range = params.range();
        Mechanisms mechanisms = params.mechanisms();
        boolean withLogs = params.flag("logs") && !protobuf;
        boolean explain = params.flag("explain");
        TraceResult result = lookup(tenant, id, range, mechanisms, withLogs);
        boolean notFound = result.spans().isEmpty() && !result.partial();
        if (protobuf) {
            return notFound ? new ApiReply(404, null, new byte[0])
                    : new ApiReply(200, ApiReply.PROTOBUF, traceByIdResponse(result));
        }
        if (notFound) {
            return notFound(id, explain, result);
        }
        return JsonReplies.object(200, g -> {
            g.writeObjectFieldStart("trace");
            OtlpJson.writeResourceSpans(g, result.spans());
            g.writeEndObject();
            JsonReplies.status(g, result.problems());
            if (withLogs) {
                g.writeObjectFieldStart("logs");
                OtlpJson.writeResourceLogs(g, result.logs());
                g.writeEndObject();
            }
            JsonReplies.explain(g, explain, plans(result));
        });
    }

    /**
     * {@code /api/traces/{id}}: OTLP JSON {@code {"resourceSpans":[…]}} (with Tempo's status and
     * message added only when partial, and the plan on request), or with protobuf the Trace message.
     */
    public ApiReply v1(TenantId tenant, String rawId, Params params, boolean protobuf) throws ApiException, IOException {
        Bytes id = Params.traceId(rawId);
        TimeRange range = params.range();
        Mechanisms mechanisms = params.mechanisms();
        boolean explain = params.flag("explain");
        TraceResult result = lookup(tenant, id, range, mechanisms, false);
        boolean notFound = result.spans().isEmpty() && !result.partial();
        if (protobuf) {
            return notFound ? new ApiReply(404, null, new byte[0])
                    : new ApiReply(200, ApiReply.PROTOBUF, OtlpWireWriter.encodeSpans(result.spans()));
        }
        if (notFound) {
            return notFound(id, explain, result);
        }
        return JsonReplies.object(200, g -> {
            OtlpJson.writeResourceSpans(g, result.spans());
            JsonReplies.statusIfPartial(g, result.problems());
            JsonReplies.explain(g, explain, plans(result));
        });
    }

    private TraceResult lookup(TenantId tenant, Bytes id, TimeRange range, Mechanisms mechanisms, boolean withLogs)
            throws IOException {
        long start = System.nanoTime();
        TraceResult result = engine.trace(tenant, id, range, mechanisms, withLogs);
        metrics.record(QueryMetrics.Kind.TRACE, System.nanoTime() - start, plans(result));
        return result;
    }

    /**
     * A 404: the message as plain text, as Tempo's errors are; as JSON {@code {"error","explain"}}
     * when the plan is asked for, since why nothing was found is worth seeing.
     */
    private static ApiReply notFound(Bytes id, boolean explain, TraceResult result) {
        String message = "trace " + id.hex() + " not found";
        if (!explain) {
            return ApiReply.text(404, message);
        }
        return JsonReplies.object(404, g -> {
            g.writeStringField("error", message);
            JsonReplies.explain(g, true, plans(result));
        });
    }

    private static List<Explain> plans(TraceResult result) {
        List<Explain> plans = new ArrayList<>(2);
        plans.add(result.spanPlan());
        if (result.logPlan() != null) {
            plans.add(result.logPlan());
        }
        return plans;
    }

    private static byte[] traceByIdResponse(TraceResult result) throws IOException {
        byte[] trace = OtlpWireWriter.encodeSpans(result.spans());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(trace.length + 16);
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        out.writeByteArray(TRACE_FIELD, trace);
        if (result.partial()) {
            out.writeEnum(STATUS_FIELD, PARTIAL);
            out.writeString(MESSAGE_FIELD, JsonReplies.partialMessage(result.problems()));
        }
        out.flush();
        return bytes.toByteArray();
    }
}
