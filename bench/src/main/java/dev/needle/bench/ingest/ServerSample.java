package dev.needle.bench.ingest;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * What a running server's {@code /metrics} said at one moment of an ingest run: its head, and the
 * CPU, garbage-collection and JIT-compilation time its JVM has spent since it started.
 *
 * @param seconds    since the run began
 * @param headRows   records acknowledged and not yet in a published block ({@code needle_ingest_head_rows})
 * @param headBytes  the heap bytes the head bound counts for them ({@code needle_ingest_head_bytes})
 * @param cpuSeconds the process's CPU time, user and system ({@code process_cpu_seconds_total})
 * @param gcSeconds  the time its collectors report, summed over them ({@code jvm_gc_collection_seconds_total})
 * @param jitSeconds the time its JIT compilers report ({@code jvm_compilation_time_seconds_total}); NaN when
 *                   its JVM does not count it
 */
public record ServerSample(double seconds, long headRows, long headBytes, double cpuSeconds, double gcSeconds,
                           double jitSeconds) {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Scrapes {@code /metrics} of the server whose query API is {@code query}, as at {@code seconds}. */
    public static ServerSample scrape(URI query, double seconds) throws IOException, InterruptedException {
        HttpResponse<String> response = CLIENT.send(HttpRequest.newBuilder(query.resolve("/metrics")).timeout(TIMEOUT)
                .GET().build(), HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + query.resolve("/metrics") + " answered " + response.statusCode()
                    + ": " + response.body());
        }
        return parse(response.body(), seconds);
    }

    /** The sample in Prometheus text {@code metrics}; a metric it lacks is an error that names it. */
    static ServerSample parse(String metrics, double seconds) throws IOException {
        double headRows = Double.NaN;
        double headBytes = Double.NaN;
        double cpu = Double.NaN;
        double gc = Double.NaN;
        double jit = Double.NaN;
        for (String line : metrics.split("\n")) {
            if (line.startsWith("#") || line.isBlank()) {
                continue;
            }
            int space = line.lastIndexOf(' ');
            String series = line.substring(0, space);
            String name = series.contains("{") ? series.substring(0, series.indexOf('{')) : series;
            double value = Double.parseDouble(line.substring(space + 1));
            switch (name) {
                case "needle_ingest_head_rows" -> headRows = value;
                case "needle_ingest_head_bytes" -> headBytes = value;
                case "process_cpu_seconds_total" -> cpu = value;
                case "jvm_gc_collection_seconds_total" -> gc = (Double.isNaN(gc) ? 0 : gc) + value;
                case "jvm_compilation_time_seconds_total" -> jit = value;
                default -> { }
            }
        }
        String[] names = {"needle_ingest_head_rows", "needle_ingest_head_bytes", "process_cpu_seconds_total",
            "jvm_gc_collection_seconds_total"};
        double[] values = {headRows, headBytes, cpu, gc};
        for (int i = 0; i < names.length; i++) {
            if (Double.isNaN(values[i])) {
                throw new IOException("the server's /metrics has no " + names[i]);
            }
        }
        return new ServerSample(seconds, (long) headRows, (long) headBytes, cpu, gc, jit);
    }

    /** Writes this sample as one JSON object. */
    void write(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeNumberField("seconds", seconds);
        g.writeNumberField("headRows", headRows);
        g.writeNumberField("headBytes", headBytes);
        g.writeNumberField("cpuSeconds", cpuSeconds);
        g.writeNumberField("gcSeconds", gcSeconds);
        if (!Double.isNaN(jitSeconds)) {
            g.writeNumberField("jitSeconds", jitSeconds);
        }
        g.writeEndObject();
    }
}
