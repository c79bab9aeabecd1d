package dev.needle.query.head;

import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.HeadSource;
import dev.needle.query.engine.HeadSource.Part;
import dev.needle.query.http.ApiException;
import dev.needle.query.http.ApiReply;
import dev.needle.query.http.Params;
import dev.needle.query.http.QueryApi;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * An ingest node's unpublished records for query nodes ({@link RemoteHeadSource} asks): a snapshot of
 * the tenant's head in {@link HeadPartsFormat}, part by part with the block each part is being
 * published as, so that a query node keeps {@link HeadSource}'s contract as the node's own engine does.
 *
 * <pre>
 * GET /internal/head/spans             every unpublished span of the tenant (X-Scope-OrgID)
 * GET /internal/head/spans?trace=HEX   those of one trace, taken from the head's index, not by a scan
 * GET /internal/head/logs[?trace=HEX]  log records, likewise
 * </pre>
 *
 * <p>The body is streamed, one part of at most {@link HeadPartsFormat#MAX_RECORDS_PER_PART} records
 * encoded at a time; a failure while writing it breaks the connection, and the reader, missing the
 * body's closing count, reports the answer as cut short.
 */
public final class HeadEndpoint extends Handler.Abstract {

    /** The path prefix of this endpoint. */
    public static final String PATH = "/internal/head/";

    private final HeadSource head;

    /** The endpoint over {@code head}. */
    public HeadEndpoint(HeadSource head) {
        this.head = head;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        Answer<?> answer;
        try {
            answer = answer(request);
        } catch (ApiException e) {
            ApiReply.text(e.status(), e.getMessage()).send(response, callback);
            return true;
        }
        response.setStatus(200);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, HeadPartsFormat.MEDIA_TYPE);
        try (OutputStream out = Content.Sink.asOutputStream(response)) {
            answer.write(out);
        } catch (IOException | RuntimeException e) {
            // Headers may be gone already: failing the callback breaks the connection, which the reader sees.
            callback.failed(e);
            return true;
        }
        callback.succeeded();
        return true;
    }

    private Answer<?> answer(Request request) throws ApiException {
        if (!HttpMethod.GET.is(request.getMethod())) {
            throw new ApiException(405, request.getMethod() + " is not allowed: the head is read with GET");
        }
        // Mounted at PATH/*: the path in context may or may not still hold the prefix.
        String path = Request.getPathInContext(request);
        String signal = path.substring(path.lastIndexOf('/') + 1);
        TenantId tenant = QueryApi.tenant(request);
        String trace = Params.of(request).string("trace");
        Bytes traceId = trace == null ? null : Params.traceId(trace);
        return switch (signal) {
            case "spans" -> new Answer<>(HeadPartsFormat.SPANS,
                    traceId == null ? head.spanParts(tenant) : head.traceSpanParts(tenant, traceId));
            case "logs" -> new Answer<>(HeadPartsFormat.LOGS,
                    traceId == null ? head.logParts(tenant) : head.traceLogParts(tenant, traceId));
            default -> throw ApiException.notFound("no such signal: " + Params.quote(signal) + " (spans or logs)");
        };
    }

    /** A snapshot taken, and the format to write it in. */
    private record Answer<R>(HeadPartsFormat<R> format, List<Part<R>> parts) {
        void write(OutputStream out) throws IOException {
            format.write(parts, out);
        }
    }
}
