package dev.needle.query.http;

import dev.needle.blocks.store.TenantId;
import dev.needle.query.engine.QueryAbortedException;
import dev.needle.query.engine.QueryEngine;
import dev.needle.query.loki.LokiApi;
import dev.needle.query.metrics.QueryMetrics;
import dev.needle.query.tempo.LogsEndpoint;
import dev.needle.query.tempo.SearchEndpoint;
import dev.needle.query.tempo.TagsEndpoint;
import dev.needle.query.tempo.TraceEndpoint;
import dev.needle.sidecar.cli.NeedleVersion;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The query HTTP API, shaped like Grafana Tempo's so that Tempo clients can read needle, and Loki's
 * for logs. GET only but for Loki's paths, which take POST forms too (anything else is 405 with
 * {@code Allow: GET}); errors are, as Tempo's, the message as plain text with a 4xx, a 503 with
 * Retry-After when the store cannot be listed, or a 500 for a failure inside needle (Grafana shows
 * such a body as it is). A query that passes its limits ({@link dev.needle.query.engine.QueryLimits})
 * stops with a 422 (it needs more memory than a query may hold) or a 503 (it ran past its time, or the
 * running queries hold all the memory queries may: then with Retry-After).
 *
 * <pre>
 * GET /api/v2/traces/{id}   Tempo's trace by id: {"trace":{"resourceSpans":[…]},"status":"COMPLETE"|"PARTIAL",
 *                           "message"?, "logs"?:{"resourceLogs":[…]}, "explain"?:[spans plan, logs plan?]};
 *                           with Accept: application/protobuf (or application/x-protobuf) the protobuf
 *                           TraceByIDResponse; 404 when no span is found and no block was unreadable
 * GET /api/traces/{id}      OTLP JSON {"resourceSpans":[…]} (protobuf: the Trace message); 404 likewise
 * GET /api/search           q=&lt;selector&gt; or tags=&lt;logfmt&gt;, spss: Tempo's SearchResponse (see SearchEndpoint)
 * GET /api/logs             q=&lt;selector&gt; over logs: {"logs":{"resourceLogs":[…]},"status":…}
 * GET /api/v2/search/tags, /api/v2/search/tag/{tag}/values, /api/search/tags, /api/search/tag/{tag}/values
 *                           Tempo's tag names and values (see TagsEndpoint)
 * GET /api/echo             "echo"
 * GET|POST /loki/api/v1/…   Loki's query_range, query, labels, label/{name}/values, series (see LokiApi)
 * GET /api/status/buildinfo {"version","revision","branch","buildUser","buildDate","goVersion"}, Tempo's shape
 * anything else             404
 * </pre>
 *
 * <p>Parameters: {@code start}, {@code end} (Unix seconds, fractions allowed, inclusive, either
 * may be left out), {@code limit} (search: traces, default 20, at most 1000; logs: records,
 * default 100, at most 10000), {@code explain=true} (adds each lookup's plan), {@code disable=}
 * a comma list of {@code time,trace_idx,attr_idx,zone_maps,index} (turns pruning off, never changes an
 * answer), {@code logs=true} (v2 trace by id: also the trace's log records). A bad parameter is a
 * 400 naming it; unknown parameters are ignored, as Tempo's are. The tenant is the
 * {@code X-Scope-OrgID} header ({@code single-tenant} when absent); an invalid one is a 400, and a
 * request sees only its tenant's records.
 *
 * <p>The handler answers every request it is given, unknown paths included, so a server that
 * serves other paths too (such as {@code /metrics}) puts this handler last.
 */
public final class QueryApi extends Handler.Abstract {

    /** Search and tags: {@code COMPLETE}, or {@code PARTIAL} when a block could not be read (Tempo's messages have no field for it). */
    public static final String STATUS_HEADER = "X-Needle-Status";
    /** Search and tags, only when partial: the blocks that could not be read, in printable ASCII. */
    public static final String MESSAGE_HEADER = "X-Needle-Message";
    /** Search: the blocks the span search opened. */
    public static final String INSPECTED_HEADER = "X-Needle-Inspected-Blocks";
    /** Search: the blocks the span search did not open (pruned, or left unread past the limit). */
    public static final String SKIPPED_HEADER = "X-Needle-Skipped-Blocks";

    private static final Logger LOG = LoggerFactory.getLogger(QueryApi.class);
    private static final String V2_TRACES = "/api/v2/traces/";
    private static final String V1_TRACES = "/api/traces/";
    private static final String V2_TAGS = "/api/v2/search/tags";
    private static final String V1_TAGS = "/api/search/tags";
    private static final String V2_TAG = "/api/v2/search/tag/";
    private static final String V1_TAG = "/api/search/tag/";
    private static final String VALUES = "/values";

    private final TraceEndpoint traces;
    private final SearchEndpoint search;
    private final LogsEndpoint logs;
    private final TagsEndpoint tags;
    private final LokiApi loki;
    private final QueryMetrics metrics;

    /** The API over {@code engine}, counting each lookup in {@code metrics}. */
    public QueryApi(QueryEngine engine, QueryMetrics metrics) {
        // Blocking (Handler.Abstract's default): a lookup waits for the engine's block reads.
        this.traces = new TraceEndpoint(engine, metrics);
        this.search = new SearchEndpoint(engine, metrics);
        this.logs = new LogsEndpoint(engine, metrics);
        this.tags = new TagsEndpoint(engine);
        this.loki = new LokiApi(engine, metrics);
        this.metrics = metrics;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        reply(request).send(response, callback);
        return true;
    }

    private ApiReply reply(Request request) {
        try {
            return route(request);
        } catch (ApiException e) {
            return ApiReply.text(e.status(), e.getMessage());
        } catch (QueryAbortedException e) {
            // Prometheus' statuses: 422 for a query that needs more than it may have, 503 for one that ran
            // out of time or found the server's query memory taken.
            metrics.aborted(e.reason());
            LOG.warn("query stopped: {}: {}", request.getHttpURI(), e.getMessage());
            ApiReply reply = ApiReply.text(e.reason() == QueryAbortedException.Reason.MEMORY ? 422 : 503, e.getMessage());
            return e.reason() == QueryAbortedException.Reason.BUSY
                    ? reply.withHeader(HttpHeader.RETRY_AFTER.asString(), "5") : reply;
        } catch (IOException | UncheckedIOException e) {
            // The store could not be listed (a bucket that is down): there is no partial answer to give,
            // and it is not needle's fault. A block that cannot be read makes an answer PARTIAL instead.
            LOG.warn("query failed: {}: the store could not be read ({})", request.getHttpURI(), e.getMessage());
            return ApiReply.text(503, "the store could not be read, try again later: " + e.getMessage())
                    .withHeader(HttpHeader.RETRY_AFTER.asString(), "5");
        } catch (Exception e) {
            // Input is checked before it reaches the engine, so this is needle's fault (or the disk's).
            LOG.error("query failed: {}", request.getHttpURI(), e);
            return ApiReply.text(500, "internal error: " + e);
        }
    }

    private ApiReply route(Request request) throws Exception {
        String path = Request.getPathInContext(request);
        if (path.startsWith(LokiApi.PREFIX) && LokiApi.allows(request.getMethod())) {
            return loki.answer(tenant(request), path, request);
        }
        if (!HttpMethod.GET.is(request.getMethod())) {
            throw new ApiException(405, request.getMethod() + " is not allowed: the query API serves GET only");
        }
        if (path.equals("/api/echo")) {
            return ApiReply.text(200, "echo");
        }
        if (path.startsWith(V2_TRACES)) {
            return traces.v2(tenant(request), path.substring(V2_TRACES.length()), Params.of(request), protobuf(request));
        }
        if (path.startsWith(V1_TRACES)) {
            return traces.v1(tenant(request), path.substring(V1_TRACES.length()), Params.of(request), protobuf(request));
        }
        if (path.equals("/api/status/buildinfo")) {
            return buildInfo();
        }
        if (path.equals("/api/search")) {
            return search.answer(tenant(request), Params.of(request));
        }
        if (path.equals(V2_TAGS)) {
            return tags.v2Tags(tenant(request), Params.of(request));
        }
        if (path.equals(V1_TAGS)) {
            return tags.v1Tags(tenant(request), Params.of(request));
        }
        if (path.startsWith(V2_TAG) && path.endsWith(VALUES)) {
            return tags.v2Values(tenant(request), tagOf(path, V2_TAG), Params.of(request));
        }
        if (path.startsWith(V1_TAG) && path.endsWith(VALUES)) {
            return tags.v1Values(tenant(request), tagOf(path, V1_TAG), Params.of(request));
        }
        if (path.equals("/api/logs")) {
            return logs.answer(tenant(request), Params.of(request));
        }
        throw ApiException.notFound("no such endpoint: " + Params.quote(path));
    }

    /**
     * Tempo's build info (Prometheus' version struct): needle's version; needle's jars do not record
     * their revision, branch, builder or date, so those are empty; the runtime is Java, not Go.
     */
    private static ApiReply buildInfo() {
        return JsonReplies.object(200, g -> {
            g.writeStringField("version", NeedleVersion.version());
            g.writeStringField("revision", "");
            g.writeStringField("branch", "");
            g.writeStringField("buildUser", "");
            g.writeStringField("buildDate", "");
            g.writeStringField("goVersion", "java" + Runtime.version());
        });
    }

    /** The {@code {tag}} of {@code prefix{tag}/values}; at least the prefix and "/values" are there. */
    private static String tagOf(String path, String prefix) {
        return path.length() <= prefix.length() + VALUES.length() ? ""
                : path.substring(prefix.length(), path.length() - VALUES.length());
    }

    /** The request's tenant, from {@code X-Scope-OrgID}; an invalid one is a 400. */
    public static TenantId tenant(Request request) throws ApiException {
        try {
            return TenantId.fromHeader(request.getHeaders().get("X-Scope-OrgID"));
        } catch (IllegalArgumentException e) {
            throw ApiException.badRequest("X-Scope-OrgID: " + e.getMessage());
        }
    }

    /** Whether the client asks for protobuf, as Grafana's Tempo datasource does; JSON otherwise. */
    private static boolean protobuf(Request request) {
        for (String accept : request.getHeaders().getCSV(HttpHeader.ACCEPT, false)) {
            int semicolon = accept.indexOf(';');
            String type = (semicolon < 0 ? accept : accept.substring(0, semicolon)).trim().toLowerCase(Locale.ROOT);
            if (type.equals("application/protobuf") || type.equals("application/x-protobuf")) {
                return true;
            }
        }
        return false;
    }
}
