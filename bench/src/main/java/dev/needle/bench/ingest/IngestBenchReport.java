package dev.needle.bench.ingest;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.bench.ingest.IngestBench.Result;
import dev.needle.corpus.otlp.SendReport;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The markdown and JSON reports of {@code needle bench ingest}: what {@link IngestBench#run} measured. */
public final class IngestBenchReport {

    /** Points of the head's series in the Markdown. */
    private static final int SERIES_POINTS = 12;

    private IngestBenchReport() {
    }

    /**
     * The results as a Markdown table, a key to its columns, and a line for each workload that
     * got a reply other than 200 or saw an error.
     */
    public static String markdown(List<Result> results) {
        StringBuilder s = new StringBuilder();
        for (boolean preEncoded : results.stream().map(Result::preEncoded).distinct().sorted().toList()) {
            s.append(preEncoded
                    ? "Measured send: requests made and encoded before its clock started, only posted during it (--pre-encode).\n\n"
                    : "Measured send: records made and encoded by the sender as it sent them.\n\n");
        }
        s.append("| signal | encoding | records | accepted/s | p50 ms | p99 ms | retried | rejected | failed "
                + "| MiB sent | generator ceiling/s | of ceiling |\n");
        s.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Result r : results) {
            SendReport send = r.send();
            s.append(format("| %s | %s | %,d | %,.0f | %.1f | %.1f | %,d | %,d | %,d | %,.1f | %,.0f | %.0f%% |\n",
                    r.workload().signal().dirName(), r.workload().encodingLabel(), send.recordsSent(),
                    send.acceptedPerSecond(), send.latencyP50Millis(), send.latencyP99Millis(), send.retried(),
                    send.rejected(), send.failed(), send.bytesSent() / (1024.0 * 1024.0),
                    r.ceiling().recordsPerSecond(), 100 * r.ofCeiling()));
        }
        s.append("\naccepted/s: records acknowledged (fsynced in the write-ahead log) per second of wall time; "
                + "p50, p99: request latency to the whole reply; retried: requests that repeated a batch (after 429, "
                + "503 or no reply); generator ceiling: the same records made and encoded with nothing sent; "
                + "of ceiling: accepted/s as a share of it.\n");
        StringBuilder notes = new StringBuilder();
        for (Result r : results) {
            SendReport send = r.send();
            Map<String, Long> others = new TreeMap<>(send.statuses());
            others.remove("200");
            if (!others.isEmpty() || send.firstError() != null || send.stoppedBecause() != null) {
                notes.append("- ").append(r.workload().label()).append(":");
                others.forEach((status, count) -> notes.append(format(" %s ×%,d;", status, count)));
                if (send.firstError() != null) {
                    notes.append(" first error: ").append(send.firstError()).append(';');
                }
                if (send.stoppedBecause() != null) {
                    notes.append(" stopped early: ").append(send.stoppedBecause()).append(';');
                }
                notes.setLength(notes.length() - 1);
                notes.append('\n');
            }
        }
        if (notes.length() > 0) {
            s.append('\n').append(notes);
        }
        s.append("\n| signal | encoding | goal/s | accepted/s of goal | CPU s per M records | sender CPU s per M records "
                + "| GC s per M records | JIT s per M records | head max rows | head rows at end | paced offer/s "
                + "| paced accepted/s | paced p50 ms | paced p99 ms |\n");
        s.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Result r : results) {
            SendReport paced = r.pacedOrNull();
            s.append(format("| %s | %s | %,d | %.0f%% | %.2f | %.2f | %.3f | %s | %,d | %,d | %s |\n",
                    r.workload().signal().dirName(), r.workload().encodingLabel(), r.workload().goalPerSecond(),
                    100 * r.send().acceptedPerSecond() / r.workload().goalPerSecond(), r.cpuSecondsPerMillion(),
                    r.senderCpuSecondsPerMillion(), r.gcSecondsPerMillion(), Double.isNaN(r.jitSecondsPerMillion()) ? "–"
                            : format("%.2f", r.jitSecondsPerMillion()), r.headMaxRows(), r.headEndRows(), paced == null ? "– | – | – | –"
                            : format("%,d | %,.0f | %.1f | %.1f", r.workload().pacedPerSecond(),
                            paced.acceptedPerSecond(), paced.latencyP50Millis(), paced.latencyP99Millis())));
        }
        s.append(format("%nCPU, GC, JIT: the server process's CPU time (user and system, every thread), its collectors' "
                + "time, and the time its JIT compilers report (elapsed, summed over their threads: near their CPU time on "
                + "an idle machine; compiling during the send is warm-up, not a record's cost), from its /metrics before "
                + "and after the measured send, per million records accepted; sender CPU: the benchmark process's own CPU "
                + "time (generator, encoder, HTTP client, every thread) over the same send, per million records accepted, "
                + "taken from the same cores; head: the records acknowledged and not "
                + "yet published, scraped every %d ms during the send; paced: the corpus again, to another tenant, "
                + "offered at %.0f%% of the goal for at most the paced limit.%n%n",
                IngestBench.SAMPLE_MILLIS, 100 * IngestBench.PACED_SHARE));
        s.append("Head rows over the measured send (thousands, at evenly spaced samples):\n\n");
        for (Result r : results) {
            s.append("- ").append(r.workload().label()).append(": ").append(headSeries(r.samples())).append('\n');
        }
        return s.toString();
    }

    /** The head's rows at up to {@value #SERIES_POINTS} evenly spaced samples, with their times. */
    private static String headSeries(List<ServerSample> samples) {
        StringBuilder s = new StringBuilder();
        int points = Math.min(SERIES_POINTS, samples.size());
        for (int i = 0; i < points; i++) {
            ServerSample sample = samples.get(i * (samples.size() - 1) / Math.max(1, points - 1));
            s.append(i == 0 ? "" : ", ").append(format("%.0f s %,.0f", sample.seconds(), sample.headRows() / 1000.0));
        }
        return s.toString();
    }

    /**
     * Writes the results as one JSON array where {@code g} is: per workload its signal, encoding,
     * gzip, the warm-up's and the stored record counts, the share of the ceiling, the measured
     * send, the dry run and the paced run as {@link SendReport#write} writes them, the server's
     * CPU and GC and the sender's CPU per million records, and the server's metrics' samples.
     */
    public static void writeJson(JsonGenerator g, List<Result> results) throws IOException {
        g.writeStartArray();
        for (Result r : results) {
            g.writeStartObject();
            g.writeStringField("signal", r.workload().signal().dirName());
            g.writeStringField("encoding", r.workload().encoding().label());
            g.writeBooleanField("gzip", r.workload().gzip());
            g.writeBooleanField("preEncoded", r.preEncoded());
            g.writeNumberField("warmUpRecords", r.warmUpRecords());
            g.writeNumberField("storedRecords", r.storedRecords());
            g.writeNumberField("ofCeiling", r.ofCeiling());
            g.writeFieldName("send");
            r.send().write(g);
            g.writeFieldName("generatorCeiling");
            r.ceiling().write(g);
            g.writeNumberField("goalPerSecond", r.workload().goalPerSecond());
            g.writeNumberField("cpuSecondsPerMillion", r.cpuSecondsPerMillion());
            g.writeNumberField("senderCpuSecondsPerMillion", r.senderCpuSecondsPerMillion());
            g.writeNumberField("gcSecondsPerMillion", r.gcSecondsPerMillion());
            if (!Double.isNaN(r.jitSecondsPerMillion())) {
                g.writeNumberField("jitSecondsPerMillion", r.jitSecondsPerMillion());
            }
            g.writeNumberField("headMaxRows", r.headMaxRows());
            if (r.pacedOrNull() != null) {
                g.writeNumberField("pacedOfferPerSecond", r.workload().pacedPerSecond());
                g.writeFieldName("paced");
                r.pacedOrNull().write(g);
            }
            g.writeArrayFieldStart("serverSamples");
            for (ServerSample sample : r.samples()) {
                sample.write(g);
            }
            g.writeEndArray();
            g.writeEndObject();
        }
        g.writeEndArray();
    }

    private static String format(String pattern, Object... args) {
        return String.format(Locale.ROOT, pattern, args);
    }
}
