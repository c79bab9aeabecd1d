package dev.needle.ingest.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.needle.corpus.cli.GenCommand;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Heavy queries against a real server in a small heap, over a generated corpus far larger than that
 * heap: line filters over every service, wide regexes, oldest-first reads and searches at their largest
 * limits, two at a time. Each must answer, with the records or a limit's clear error, never a 500;
 * afterwards a new span must still be acknowledged and found, and the server's log must hold no
 * OutOfMemoryError. Before queries ran under a memory budget, the first of them took this server down.
 */
@Tag("slow")
class HeavyQueryTest {

    /** A quarter of what the corpus's log records take decoded: a query that held them all could not fit. */
    private static final String HEAP = "256m";
    /** The corpus's hour, and more. */
    private static final String RANGE = "&start=1793491200&end=1793498400";
    private static final String TRACE = "5b8efff798038103d269b633813fc60c";
    private static final Set<Integer> ANSWERED = Set.of(200, 422, 503);

    @TempDir
    Path dir;

    @Test
    void heavyQueries_inASmallHeap_answer_andIngestGoesOn() throws Exception {
        Path data = dir.resolve("data");
        int generated = new CommandLine(new GenCommand()).execute("--spans", "100000", "--logs", "600000",
                "--block-rows", "100000", "--out", data.toString());
        assertEquals(0, generated);
        Path log = dir.resolve("server.log");
        try (ChildServer server = ChildServer.start(data, log, HEAP, List.of("--max-head-bytes", "32MiB",
                "--max-request-bytes", "4MiB", "--no-compact", "--query-timeout", "30s"))) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            String query = "http://127.0.0.1:" + server.query.getPort();
            List<String> heavy = List.of(
                    loki("{service_name=~\".+\"} |= \"no-such-token\"", 100, "backward"),
                    loki("{service_name=~\".+\"} |= \"payments:163608\"", 5000, "backward"),
                    loki("{service_name=~\".+\"} |~ \"(slow|retrying|cache).*[0-9]{5}\"", 5000, "backward"),
                    loki("{service_name=~\".+\"} != \"zzz\"", 5000, "forward"),
                    "/api/search?q=" + encode("{ }") + "&limit=1000" + RANGE,
                    "/api/search?q=" + encode("{ span.http.route =~ \".*\" }") + "&limit=1000" + RANGE,
                    "/api/search?q=" + encode("{ duration > 1ms }") + "&limit=1000&spss=100" + RANGE,
                    "/api/v2/search/tag/span.user.id/values?" + RANGE.substring(1));
            ExecutorService clients = Executors.newFixedThreadPool(2);
            try {
                List<Future<HttpResponse<String>>> answers = new ArrayList<>();
                for (String path : heavy) {
                    answers.add(clients.submit(() -> {
                        long started = System.nanoTime();
                        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(query + path))
                                .timeout(Duration.ofMinutes(2)).build(), HttpResponse.BodyHandlers.ofString());
                        System.out.printf("%d in %d ms: %s%n", answer.statusCode(),
                                (System.nanoTime() - started) / 1_000_000, path);
                        return answer;
                    }));
                }
                for (int i = 0; i < heavy.size(); i++) {
                    HttpResponse<String> answer = answers.get(i).get();
                    String path = heavy.get(i);
                    assertTrue(ANSWERED.contains(answer.statusCode()), () -> path + " answered " + answer.statusCode()
                            + ": " + answer.body() + "\n" + server.tail());
                    assertTrue(answer.statusCode() == 200 || answer.body().contains("limit"),
                            () -> path + ": a limit's error names it: " + answer.body());
                }
            } finally {
                clients.shutdownNow();
            }

            String span = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                    + "{\"stringValue\":\"after-heavy-queries\"}}]},\"scopeSpans\":[{\"spans\":[{\"traceId\":\"" + TRACE
                    + "\",\"spanId\":\"00f067aa0ba902b7\",\"name\":\"still here\",\"kind\":2,\"startTimeUnixNano\":"
                    + "\"1764446100000000000\",\"endTimeUnixNano\":\"1764446100250000000\"}]}]}]}";
            HttpResponse<String> sent = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                            + server.otlp.getPort() + "/v1/traces")).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(span)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, sent.statusCode(), sent.body());
            HttpResponse<String> found = http.send(HttpRequest.newBuilder(URI.create(query + "/api/v2/traces/" + TRACE))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, found.statusCode(), found.body());
            assertTrue(found.body().contains("still here"), found.body());
            HttpResponse<String> ready = http.send(HttpRequest.newBuilder(URI.create(query + "/ready")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ready.statusCode(), ready.body());
        }
        String written = Files.readString(log);
        assertFalse(written.contains("OutOfMemoryError"), written);
    }

    private static String loki(String logql, int limit, String direction) {
        return "/loki/api/v1/query_range?query=" + encode(logql) + "&limit=" + limit + "&direction=" + direction + RANGE;
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
