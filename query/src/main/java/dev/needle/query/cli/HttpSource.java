package dev.needle.query.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import dev.needle.blocks.model.Bytes;
import dev.needle.blocks.model.LogRecord;
import dev.needle.blocks.model.SpanRecord;
import dev.needle.blocks.otlp.Decoded;
import dev.needle.blocks.otlp.OtlpJson;
import dev.needle.query.engine.BlockDecision;
import dev.needle.query.engine.Explain;
import dev.needle.query.engine.ExplainFormat;
import dev.needle.query.engine.Mechanisms;
import dev.needle.query.engine.TimeRange;
import dev.needle.query.http.QueryApi;
import dev.needle.query.ql.Expr;
import dev.needle.query.traceql.SearchQuery;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * Answers lookups by asking a running needle server through its Tempo-shaped HTTP API:
 * {@code GET /api/v2/traces/{id}}, {@code /api/search} and {@code /api/logs}, the tenant in
 * {@code X-Scope-OrgID}. Unlike a data directory, a server also answers from records it has
 * acknowledged but not yet written to a block.
 *
 * <p>The API's {@code start} and {@code end} are Unix seconds, as Tempo's are; needle's server
 * takes fractions to the nanosecond, so the range goes exactly as given.
 */
final class HttpSource implements Source {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

    /** Generous: a lookup with every mechanism off reads every block on purpose. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofMinutes(5);

    private static final JsonFactory JSON = JsonFactory.builder().build();

    private static final String NO_PARTIAL_MESSAGE = "the server answered PARTIAL without naming the blocks it could not read";

    private final URI base;
    private final HttpClient client;

    /** A source that asks the server at {@code base} (scheme, host, port, optionally a path prefix). */
    HttpSource(URI base) {
        String text = base.toString();
        this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        this.client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(CONNECT_TIMEOUT)
                .build();
    }

    @Override
    public Answer.Trace trace(Request request, Bytes traceId, boolean withLogs) throws QueryFailure {
        Map<String, String> params = params(request);
        if (withLogs) {
            params.put("logs", "true");
        }
        String path = "/api/v2/traces/" + traceId.hex();
        HttpResponse<byte[]> response = get(path, params, request);
        Body body;
        if (response.statusCode() == 404) {
            // Not found is an answer; a needle server still says why (and EXPLAIN, when asked) in JSON.
            body = parseOrEmpty(response.body());
        } else {
            body = parse(path, ok(path, response));
        }
        return new Answer.Trace(traceId, body.spans(), body.logs(), withLogs, body.problems(), body.plans());
    }

    @Override
    public Answer.Traces spans(Request request, String query, SearchQuery parsed, int limit) throws QueryFailure {
        String path = "/api/search";
        HttpResponse<byte[]> response = get(path, search(request, query, limit), request);
        Body body = parse(path, ok(path, response));
        // Tempo's search answer has no status field: a needle server says PARTIAL in headers.
        List<String> problems = new ArrayList<>(body.problems());
        if ("PARTIAL".equals(response.headers().firstValue(QueryApi.STATUS_HEADER).orElse(""))) {
            problems.add(0, response.headers().firstValue(QueryApi.MESSAGE_HEADER).filter(m -> !m.isEmpty())
                    .orElse(NO_PARTIAL_MESSAGE));
        }
        return new Answer.Traces(body.traces(), limit, problems, body.plans());
    }

    @Override
    public Answer.Logs logs(Request request, String query, Expr expr, int limit) throws QueryFailure {
        String path = "/api/logs";
        Body body = parse(path, ok(path, get(path, search(request, query, limit), request)));
        // Newest first again: OTLP JSON groups records by resource and scope.
        List<LogRecord> logs = body.logs().stream()
                .sorted(Comparator.comparingLong(LogRecord::eventTimeUnixNano).reversed()).toList();
        return new Answer.Logs(logs, limit, body.problems(), body.plans());
    }

    @Override
    public void close() {
        // Java 17's HttpClient has nothing to close; its threads are daemons.
    }

    private static Map<String, String> search(Request request, String query, int limit) {
        Map<String, String> params = new LinkedHashMap<>();
        params.put("q", query);
        params.put("limit", Integer.toString(limit));
        params.putAll(params(request));
        return params;
    }

    /** The parameters every endpoint takes: the time range, explain, and the mechanisms to disable. */
    private static Map<String, String> params(Request request) {
        Map<String, String> params = new LinkedHashMap<>();
        TimeRange range = request.range();
        // The API has no times before 1970, and no record has one: an earlier start is no bound.
        if (range.fromUnixNano() > 0) {
            params.put("start", seconds(range.fromUnixNano()));
        }
        if (range.toUnixNano() != Long.MAX_VALUE) {
            params.put("end", seconds(Math.max(0, range.toUnixNano())));
        }
        if (request.explain()) {
            params.put("explain", "true");
        }
        Mechanisms m = request.mechanisms();
        StringJoiner disable = new StringJoiner(",");
        if (!m.time()) {
            disable.add(BlockDecision.Step.TIME.label());
        }
        if (!m.traceIdx()) {
            disable.add(BlockDecision.Step.TRACE_IDX.label());
        }
        if (!m.attrIdx()) {
            disable.add(BlockDecision.Step.ATTR_IDX.label());
        }
        if (!m.zoneMaps()) {
            disable.add(BlockDecision.Step.ZONE_MAPS.label());
        }
        if (!m.index()) {
            disable.add("index");
        }
        if (disable.length() > 0) {
            params.put("disable", disable.toString());
        }
        return params;
    }

    /** Unix nanoseconds as Unix seconds with as many decimals as they need: 1764446100, 1764446100.5. */
    static String seconds(long unixNano) {
        return BigDecimal.valueOf(unixNano).movePointLeft(9).stripTrailingZeros().toPlainString();
    }

    private HttpResponse<byte[]> get(String path, Map<String, String> params, Request request) throws QueryFailure {
        StringJoiner query = new StringJoiner("&", "?", "").setEmptyValue("");
        params.forEach((k, v) -> query.add(k + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20")));
        URI uri = URI.create(base + path + query);
        HttpRequest httpRequest = HttpRequest.newBuilder(uri)
                .timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json")
                .header("X-Scope-OrgID", request.tenant().value())
                .GET()
                .build();
        try {
            return client.send(httpRequest, HttpResponse.BodyHandlers.ofByteArray());
        } catch (ConnectException e) {
            throw new QueryFailure(QueryCommand.ERROR, "cannot reach the server at " + base + ": connection refused"
                    + " (is ./needle serve running there? or read a data directory with --data DIR)", e);
        } catch (HttpTimeoutException e) {
            throw new QueryFailure(QueryCommand.ERROR, "the server at " + base + " did not answer " + path
                    + " in time: " + e.getMessage(), e);
        } catch (IOException e) {
            throw new QueryFailure(QueryCommand.ERROR, "asking the server at " + base + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new QueryFailure(QueryCommand.ERROR, "interrupted while waiting for " + uri, e);
        }
    }

    /** The body of a 200; any other status is a failure with the server's message. */
    private byte[] ok(String path, HttpResponse<byte[]> response) throws QueryFailure {
        int status = response.statusCode();
        if (status == 200) {
            return response.body();
        }
        String message = errorMessage(response.body());
        if (status == 400) {
            throw new QueryFailure(QueryCommand.USAGE, "the server at " + base + " refused the request: " + message);
        }
        if (status == 404) {
            throw new QueryFailure(QueryCommand.ERROR, "the server at " + base + " has no " + path
                    + " (HTTP 404: " + message + "); is it a needle server?");
        }
        throw new QueryFailure(QueryCommand.ERROR, "the server at " + base + " answered HTTP " + status + " to " + path
                + ": " + message);
    }

    /** An error body's "message" (or "error") field, else the start of the body as text (Tempo's errors are plain text). */
    private static String errorMessage(byte[] body) {
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() == JsonToken.START_OBJECT) {
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    p.nextToken();
                    if ((field.equals("message") || field.equals("error")) && p.currentToken() == JsonToken.VALUE_STRING) {
                        return p.getText();
                    }
                    p.skipChildren();
                }
            }
        } catch (IOException e) {
            // Not JSON: the text itself says more than the parse error would.
        }
        String text = new String(body, StandardCharsets.UTF_8).strip();
        return text.isEmpty() ? "(no message)" : Text.cut(text, 300);
    }

    /** What a needle answer holds; absent parts are empty. */
    private record Body(List<SpanRecord> spans, List<LogRecord> logs, List<TraceSummary> traces,
                        List<String> problems, List<Explain> plans) {
    }

    private Body parseOrEmpty(byte[] body) {
        try {
            return parse("", body);
        } catch (QueryFailure e) {
            return new Body(List.of(), List.of(), List.of(), List.of(), List.of());
        }
    }

    private Body parse(String path, byte[] body) throws QueryFailure {
        List<SpanRecord> spans = List.of();
        List<LogRecord> logs = List.of();
        List<TraceSummary> traces = new ArrayList<>();
        List<Explain> plans = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        String status = null;
        String message = null;
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                throw new IOException("the answer is not a JSON object");
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String field = p.currentName();
                JsonToken value = p.nextToken();
                switch (field) {
                    case "trace" -> {
                        Decoded<SpanRecord> d = OtlpJson.decodeSpans(new ByteArrayInputStream(copy(p)));
                        spans = d.records();
                        noteRejected(d, "spans", problems);
                    }
                    case "logs" -> {
                        Decoded<LogRecord> d = OtlpJson.decodeLogs(new ByteArrayInputStream(copy(p)));
                        logs = d.records();
                        noteRejected(d, "log records", problems);
                    }
                    case "traces" -> {
                        if (value != JsonToken.START_ARRAY) {
                            throw new IOException("\"traces\" is not an array");
                        }
                        while (p.nextToken() == JsonToken.START_OBJECT) {
                            traces.add(summary(p));
                        }
                    }
                    case "status" -> status = p.getValueAsString();
                    case "message" -> message = p.getValueAsString();
                    case "explain" -> plans.addAll(ExplainFormat.read(copy(p)));
                    default -> p.skipChildren();
                }
            }
        } catch (JsonProcessingException e) {
            throw new QueryFailure(QueryCommand.ERROR, "the answer of " + base + path + " is not JSON: "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new QueryFailure(QueryCommand.ERROR, "the answer of " + base + path
                    + " is not what needle's API promises: " + e.getMessage(), e);
        }
        if ("PARTIAL".equals(status)) {
            problems.add(0, message != null && !message.isEmpty() ? message : NO_PARTIAL_MESSAGE);
        }
        return new Body(spans, logs, traces, problems, plans);
    }

    private static void noteRejected(Decoded<?> decoded, String what, List<String> problems) {
        if (decoded.rejected() > 0) {
            problems.add(decoded.rejected() + " " + what + " in the server's answer are not valid OTLP and are left out: "
                    + decoded.message());
        }
    }

    /** The JSON value {@code p} is at the start of, as bytes of its own. */
    private static byte[] copy(JsonParser p) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JSON.createGenerator(out)) {
            g.copyCurrentStructure(p);
        }
        return out.toByteArray();
    }

    /** One trace of Tempo's search answer; Tempo writes the start time as a string and leaves zero durations out. */
    private static TraceSummary summary(JsonParser p) throws IOException {
        String traceId = "";
        String service = "";
        String name = "";
        long start = 0;
        long durationMs = 0;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            p.nextToken();
            switch (field) {
                case "traceID" -> traceId = p.getValueAsString("");
                case "rootServiceName" -> service = p.getValueAsString("");
                case "rootTraceName" -> name = p.getValueAsString("");
                case "startTimeUnixNano" -> start = p.getValueAsLong();
                case "durationMs" -> durationMs = p.getValueAsLong();
                default -> p.skipChildren();
            }
        }
        return new TraceSummary(traceId, service, name, start, durationMs);
    }
}
