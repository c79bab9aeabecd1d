package dev.needle.bench;

import dev.needle.blocks.model.SpanRecord;
import dev.needle.query.otlp.OtlpJson;
import dev.needle.query.otlp.OtlpProto;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPOutputStream;
import org.HdrHistogram.Recorder;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * A load generator for a running needle server's OTLP/HTTP endpoint: sends pre-encoded span
 * batches from several threads for a fixed time and reports accepted spans per second and the
 * request latency percentiles. A stop-gap until corpus-gen's {@code --send} exists.
 *
 * <p>Run: {@code ./needle bench ingest --url http://127.0.0.1:4318 --seconds 20 --concurrency 8}.
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = "Send OTLP span batches to a running server and report spans/s and latency.")
public final class IngestLoad implements Callable<Integer> {

    @Option(names = "--url", description = "the server's OTLP/HTTP base URL (default ${DEFAULT-VALUE})")
    String url = "http://127.0.0.1:4318";

    @Option(names = "--seconds", description = "how long to send (default ${DEFAULT-VALUE})")
    int seconds = 20;

    @Option(names = "--concurrency", description = "requests in flight (default ${DEFAULT-VALUE})")
    int concurrency = 8;

    @Option(names = "--batch", description = "spans per request (default ${DEFAULT-VALUE})")
    int batch = 1000;

    @Option(names = "--encoding", description = "protobuf or json (default ${DEFAULT-VALUE})")
    String encoding = "protobuf";

    @Option(names = "--gzip", description = "compress request bodies")
    boolean gzip;

    @Option(names = "--rate", description = "target spans/s in all; 0 = as fast as the server takes them (default ${DEFAULT-VALUE})")
    long rate;

    /** Runs the load. */
    public static void main(String[] args) {
        System.exit(new CommandLine(new IngestLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        boolean json = encoding.equals("json");
        if (!json && !encoding.equals("protobuf")) {
            System.err.println("needle bench ingest: --encoding must be protobuf or json, got " + encoding);
            return 2;
        }
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            List<SpanRecord> spans = BenchSpans.generate(batch, 1000 + i);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (json) {
                OtlpJson.encodeSpans(spans, out);
            } else {
                OtlpProto.encodeSpans(spans).writeTo(out);
            }
            bodies.add(gzip ? gzip(out.toByteArray()) : out.toByteArray());
        }
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        URI target = URI.create(url.replaceAll("/$", "") + "/v1/traces");
        Recorder latency = new Recorder(3);
        AtomicLong accepted = new AtomicLong();
        Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long start = System.nanoTime();
        long perThreadPeriodNanos = rate == 0 ? 0 : (long) (1e9 * batch * concurrency / rate);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < concurrency; t++) {
            int offset = t;
            Thread thread = new Thread(() -> {
                long next = System.nanoTime();
                for (int i = offset; System.nanoTime() < end; i += concurrency) {
                    if (perThreadPeriodNanos > 0) {
                        next += perThreadPeriodNanos;
                        long wait = next - System.nanoTime();
                        if (wait > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(wait);
                        }
                    }
                    HttpRequest.Builder request = HttpRequest.newBuilder(target)
                            .header("Content-Type", json ? "application/json" : "application/x-protobuf")
                            .POST(HttpRequest.BodyPublishers.ofByteArray(bodies.get(i % bodies.size())));
                    if (gzip) {
                        request.header("Content-Encoding", "gzip");
                    }
                    long sent = System.nanoTime();
                    int status;
                    try {
                        status = client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
                    } catch (IOException e) {
                        status = -1;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    latency.recordValue((System.nanoTime() - sent) / 1000);
                    statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
                    if (status == 200) {
                        accepted.addAndGet(batch);
                    }
                }
            }, "needle-load-" + t);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            thread.join();
        }
        double elapsed = (System.nanoTime() - start) / 1e9;
        var histogram = latency.getIntervalHistogram();
        System.out.printf("encoding %s%s, %d spans/request, %d in flight, %.1f s%n", encoding, gzip ? "+gzip" : "",
                batch, concurrency, elapsed);
        System.out.printf("accepted %d spans: %.0f spans/s%n", accepted.get(), accepted.get() / elapsed);
        System.out.printf("latency p50 %.2f ms, p99 %.2f ms, max %.2f ms%n",
                histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
                histogram.getMaxValue() / 1000.0);
        Map<Integer, Long> byStatus = new TreeMap<>();
        statuses.forEach((k, v) -> byStatus.put(k, v.get()));
        System.out.println("responses by status (-1 = no response): " + byStatus);
        return byStatus.keySet().stream().allMatch(s -> s == 200 || s == 429 || s == 503) ? 0 : 1;
    }

    private static byte[] gzip(byte[] body) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(out)) {
            z.write(body);
        }
        return out.toByteArray();
    }
}
