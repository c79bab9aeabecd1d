package dev.needle.corpus.otlp;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.blocks.cli.Units;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one {@link OtlpSender} run did: records sent and what became of them, requests and
 * retries, bytes, request latency, and the replies by status.
 *
 * <p>Each record sent ends up in exactly one of accepted, rejected and failed, so that
 * {@code recordsSent = accepted + rejected + failed}; in a dry run all three are 0.
 *
 * @param signal           {@code spans} or {@code logs}
 * @param dryRun           whether batches were only encoded, not sent
 * @param requests         HTTP requests made, retries included
 * @param retried          the requests among them that repeated a batch
 * @param recordsSent      records taken from the iterator and encoded
 * @param accepted         records the server took (a 2xx, less its partial_success rejections)
 * @param rejected         records the server refused for good (partial_success, or a 4xx other than 429)
 * @param failed           records not delivered: retryable failures after the last attempt, or a status
 *                         that is neither success nor rejection nor retryable (a 500, say)
 * @param bytesSent        request body bytes, as sent (gzipped when asked), over every attempt; in a dry
 *                         run, the bytes encoded
 * @param elapsedSeconds   wall time from the first batch taken to the last finished
 * @param latencyP50Millis median time of one request that got a reply, from sending to the whole reply
 *                         (0 when none did)
 * @param latencyP99Millis 99th percentile of the same
 * @param latencyMaxMillis the slowest such request
 * @param statuses         replies by HTTP status, and attempts that got no reply by the exception's
 *                         simple name (such as {@code ConnectException})
 * @param firstError       the first problem seen, with the server's message: a rejection, a partial
 *                         success, or a batch given up; null when there was none
 * @param stoppedBecause   why the run stopped before the iterator was exhausted; null when it was not
 */
public record SendReport(String signal, boolean dryRun, long requests, long retried, long recordsSent, long accepted,
                         long rejected, long failed, long bytesSent, double elapsedSeconds, double latencyP50Millis,
                         double latencyP99Millis, double latencyMaxMillis, Map<String, Long> statuses,
                         String firstError, String stoppedBecause) {

    public SendReport {
        statuses = Map.copyOf(statuses);
    }

    /** Records sent (encoded, in a dry run) per second of wall time. */
    public double recordsPerSecond() {
        return perSecond(recordsSent);
    }

    /** Records accepted per second of wall time: the ingest rate the server sustained. */
    public double acceptedPerSecond() {
        return perSecond(accepted);
    }

    private double perSecond(long n) {
        return elapsedSeconds > 0 ? n / elapsedSeconds : 0;
    }

    /** Writes this report as one JSON object. */
    public void write(JsonGenerator g) throws IOException {
        g.writeStartObject();
        g.writeStringField("signal", signal);
        g.writeBooleanField("dryRun", dryRun);
        g.writeNumberField("requests", requests);
        g.writeNumberField("retried", retried);
        g.writeNumberField("recordsSent", recordsSent);
        g.writeNumberField("accepted", accepted);
        g.writeNumberField("rejected", rejected);
        g.writeNumberField("failed", failed);
        g.writeNumberField("bytesSent", bytesSent);
        g.writeNumberField("elapsedSeconds", elapsedSeconds);
        g.writeNumberField("recordsPerSecond", recordsPerSecond());
        g.writeNumberField("acceptedPerSecond", acceptedPerSecond());
        g.writeObjectFieldStart("latencyMillis");
        g.writeNumberField("p50", latencyP50Millis);
        g.writeNumberField("p99", latencyP99Millis);
        g.writeNumberField("max", latencyMaxMillis);
        g.writeEndObject();
        g.writeObjectFieldStart("statuses");
        for (Map.Entry<String, Long> e : new TreeMap<>(statuses).entrySet()) {
            g.writeNumberField(e.getKey(), e.getValue());
        }
        g.writeEndObject();
        g.writeStringField("firstError", firstError);
        g.writeStringField("stoppedBecause", stoppedBecause);
        g.writeEndObject();
    }

    /** A few lines for a person. */
    public String toText() {
        StringBuilder s = new StringBuilder();
        if (dryRun) {
            s.append(format("%s, dry run (nothing sent): %,d %s encoded in %.2f s: %,.0f records/s, %s%n",
                    signal, recordsSent, Units.plural(recordsSent, "record"), elapsedSeconds, recordsPerSecond(), bytes(bytesSent)));
        } else {
            s.append(format("%s: %,d %s in %,d %s (%,d %s) in %.2f s: %,.0f records/s accepted%n",
                    signal, recordsSent, Units.plural(recordsSent, "record"), requests, Units.plural(requests, "request"),
                    retried, Units.plural(retried, "retry", "retries"), elapsedSeconds, acceptedPerSecond()));
            s.append(format("  accepted %,d, rejected %,d, failed %,d; %s sent%n", accepted, rejected, failed,
                    bytes(bytesSent)));
            s.append(format("  request latency: p50 %.1f ms, p99 %.1f ms, max %.1f ms%n",
                    latencyP50Millis, latencyP99Millis, latencyMaxMillis));
            StringBuilder byStatus = new StringBuilder();
            new TreeMap<>(statuses).forEach((status, count) ->
                    byStatus.append(byStatus.length() == 0 ? "" : ", ").append(format("%s: %,d", status, count)));
            s.append("  replies: ").append(byStatus.length() == 0 ? "none" : byStatus).append(System.lineSeparator());
        }
        if (firstError != null) {
            s.append("  first error: ").append(firstError).append(System.lineSeparator());
        }
        if (stoppedBecause != null) {
            s.append("  stopped early: ").append(stoppedBecause).append(System.lineSeparator());
        }
        return s.toString();
    }

    private static String format(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }

    /** A byte count in binary units: {@code 812 B}, {@code 3.4 MiB}. */
    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int unit = -1;
        while (v >= 1024 && unit < units.length - 1) {
            v /= 1024;
            unit++;
        }
        return format("%.1f %s", v, units[unit]);
    }
}
