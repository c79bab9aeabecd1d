package dev.needle.bench.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.needle.bench.server.QueryClient;
import dev.needle.corpus.Manifest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/**
 * Lookups through the HTTP API of a running {@code needle serve}, each timed from sending the
 * request to the reply's last byte and checked against the manifest: trace by id
 * ({@code /api/v2/traces/{id}}, JSON, as curl or a script gets it) for every present trace id,
 * and searches through {@code /api/search} and {@code /api/logs}.
 */
final class ServedLookups {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One search through the API: what it found, what the server's EXPLAIN says it did, and its warm latency.
     *
     * @param name        a short name for tables
     * @param probe       the attribute value it searches for, or null for a search without one
     * @param request     the path and query string asked for
     * @param found       traces or log records in the reply
     * @param listed      blocks the server listed
     * @param opened      blocks it opened
     * @param rowsScanned rows it scanned
     * @param bytesRead   bytes it read
     * @param timing      warm latency
     */
    record Search(String name, Manifest.AttributeProbe probe, String request, int found, long listed, long opened, long rowsScanned, long bytesRead,
                  WarmLoop.Timing timing) {
    }

    private final QueryClient client;
    private final int runs;
    private final long budgetMillis;

    /** Lookups through {@code client}, each timed up to {@code runs} times within {@code budgetMillis} (see {@link WarmLoop}). */
    ServedLookups(QueryClient client, int runs, long budgetMillis) {
        this.client = client;
        this.runs = runs;
        this.budgetMillis = budgetMillis;
    }

    /**
     * Each trace probe through {@code /api/v2/traces/{id}}; every reply must hold the trace's spans, as
     * many as the manifest says. Every id is asked once, untimed, before any is timed, so that the
     * fresh server's JIT warm-up is not charged to the first ids.
     */
    List<ProbeResult> traces(List<ProbeResult> traces, Consumer<String> progress) throws IOException {
        List<Integer> lengths = new ArrayList<>();
        for (ProbeResult r : traces) {
            lengths.add(check(r.probe().scenario().name(), client.get(path(r)), ServedLookups::spans,
                    r.probe().expectedRecords(), r.probe().expectedRecords()).body().length);
        }
        List<ProbeResult> out = new ArrayList<>();
        for (int i = 0; i < traces.size(); i++) {
            ProbeResult r = traces.get(i);
            String name = r.probe().scenario().name();
            int length = lengths.get(i);
            progress.accept("HTTP: " + name);
            out.add(r.withHttp(WarmLoop.time(runs, budgetMillis, () -> {
                QueryClient.Reply again = client.get(path(r));
                if (again.status() != 200 || again.body().length != length) {
                    throw new ScenarioRunner.WrongAnswerException(name + " over HTTP: a later reply has status "
                            + again.status() + " and " + again.body().length + " bytes, the first 200 and " + length);
                }
            })));
        }
        return out;
    }

    private static String path(ProbeResult trace) {
        return "/api/v2/traces/" + trace.probe().scenario().traceId().hex();
    }

    /**
     * The searches: the rarest present {@code user.id} of spans through {@code /api/search} and of logs
     * through {@code /api/logs}, and the newest traces, {@code { }}, through {@code /api/search}; each
     * with a limit of {@value Lookups#LIMIT}.
     */
    List<Search> searches(Manifest manifest, Consumer<String> progress) throws IOException {
        List<Search> out = new ArrayList<>();
        Manifest.AttributeProbe spans = Scenarios.rarestUser(manifest, "spans");
        if (spans != null) {
            // The API lists traces: at least one, and no more than the spans that match.
            out.add(search("rare " + spans.key() + " (" + plural(spans.count(), "span") + ") via /api/search", spans,
                    "/api/search?q=" + query(spans) + "&limit=" + Lookups.LIMIT, ServedLookups::traces, 1,
                    Math.min(spans.count(), Lookups.LIMIT), progress));
        }
        Manifest.AttributeProbe logs = Scenarios.rarestUser(manifest, "logs");
        if (logs != null) {
            long expected = Math.min(logs.count(), Lookups.LIMIT);
            out.add(search("rare " + logs.key() + " (" + plural(logs.count(), "log record") + ") via /api/logs", logs,
                    "/api/logs?q=" + query(logs) + "&limit=" + Lookups.LIMIT, ServedLookups::logRecords, expected, expected,
                    progress));
        }
        // The endpoint lists the newest traces, the limit of them when the corpus holds that many.
        out.add(search("{ } (the newest traces) via /api/search", null, "/api/search?q=" + QueryClient.encode("{ }")
                + "&limit=" + Lookups.LIMIT, ServedLookups::traces, 1, Lookups.LIMIT, progress));
        return out;
    }

    private Search search(String name, Manifest.AttributeProbe probe, String request, ToIntFunction<JsonNode> found,
                          long min, long max, Consumer<String> progress) throws IOException {
        progress.accept("HTTP: " + name);
        QueryClient.Reply first = check(name, client.get(request + "&explain=true"), found, min, max);
        JsonNode root = JSON.readTree(first.body());
        JsonNode totals = root.path("explain").path(0).path("totals");
        if (!totals.isObject()) {
            throw new IOException(name + ": the reply to explain=true holds no plan: " + first.text());
        }
        int count = found.applyAsInt(root);
        WarmLoop.Timing timing = WarmLoop.time(runs, budgetMillis, () -> check(name, client.get(request), found, count, count));
        return new Search(name, probe, request, count, totals.path("blocksListed").asLong(), totals.path("opened").asLong(),
                totals.path("rowsScanned").asLong(), totals.path("bytesRead").asLong(), timing);
    }

    /** {@code reply}, after checking that it is a 200 whose JSON holds {@code min} to {@code max} of what {@code found} counts. */
    private static QueryClient.Reply check(String name, QueryClient.Reply reply, ToIntFunction<JsonNode> found, long min,
                                           long max) throws IOException {
        if (reply.status() != 200) {
            throw new ScenarioRunner.WrongAnswerException(name + " over HTTP: status " + reply.status() + ": " + reply.text());
        }
        int n = found.applyAsInt(JSON.readTree(reply.body()));
        if (n < min || n > max) {
            throw new ScenarioRunner.WrongAnswerException(name + " over HTTP: found " + n + ", expected "
                    + (min == max ? Long.toString(min) : min + " to " + max));
        }
        return reply;
    }

    /** {@code 1 span}, {@code 2 spans}. */
    static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static String query(Manifest.AttributeProbe p) {
        return QueryClient.encode("{ " + Scenarios.condition(p) + " }");
    }

    /** Spans in a trace-by-id reply. */
    static int spans(QueryClient.Reply reply) throws IOException {
        return spans(JSON.readTree(reply.body()));
    }

    /** Spans in a trace-by-id reply's JSON: {@code trace.resourceSpans[].scopeSpans[].spans[]}. */
    static int spans(JsonNode reply) {
        int n = 0;
        for (JsonNode resource : reply.path("trace").path("resourceSpans")) {
            for (JsonNode scope : resource.path("scopeSpans")) {
                n += scope.path("spans").size();
            }
        }
        return n;
    }

    /** Traces in a search reply. */
    static int traces(JsonNode reply) {
        return reply.path("traces").size();
    }

    /** Log records in an {@code /api/logs} reply: {@code logs.resourceLogs[].scopeLogs[].logRecords[]}. */
    static int logRecords(JsonNode reply) {
        int n = 0;
        for (JsonNode resource : reply.path("logs").path("resourceLogs")) {
            for (JsonNode scope : resource.path("scopeLogs")) {
                n += scope.path("logRecords").size();
            }
        }
        return n;
    }
}
