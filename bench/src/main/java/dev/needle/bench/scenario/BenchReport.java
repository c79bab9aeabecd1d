package dev.needle.bench.scenario;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.needle.bench.StoreFacts;
import dev.needle.bench.chart.Svg;
import dev.needle.bench.fpr.FprChart;
import dev.needle.bench.fpr.FprPoint;
import dev.needle.bench.fpr.FprReport;
import dev.needle.query.engine.Explain;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One benchmark run's results as {@code <corpus>-<date>.md}, {@code .json} and SVG charts: the
 * seed table's rows, every scenario under every setting, cold runs, sidecar overhead, the
 * false-positive sweep, and the sections other parts add (the DuckDB peer, ingest).
 */
public final class BenchReport {

    /** A section another part of the run adds: its Markdown and its JSON. */
    public record Section(String title, String jsonField, String markdown, JsonWriter json) {
    }

    /** Writes a section's JSON value at the generator's position. */
    @FunctionalInterface
    public interface JsonWriter {
        void write(JsonGenerator g) throws IOException;
    }

    private final String corpus;
    private final String date;
    private final String header;
    private final StoreFacts spans;
    private final StoreFacts logs;
    private final List<Setting> settings;
    private final List<Measurement> warm;
    private final List<ColdRun> cold;
    private final List<FprPoint> fpr;
    private final List<PeerRunner.PeerResult> peer;
    private final List<Section> sections = new ArrayList<>();

    /**
     * A report of one run.
     *
     * @param header lines saying how the run was made: command, machine, date
     */
    public BenchReport(String corpus, String date, String header, StoreFacts spans, StoreFacts logs,
                       List<Setting> settings, List<Measurement> warm, List<ColdRun> cold, List<FprPoint> fpr,
                       List<PeerRunner.PeerResult> peer) {
        this.corpus = corpus;
        this.date = date;
        this.header = header;
        this.spans = spans;
        this.logs = logs;
        this.settings = List.copyOf(settings);
        this.warm = List.copyOf(warm);
        this.cold = List.copyOf(cold);
        this.fpr = List.copyOf(fpr);
        this.peer = List.copyOf(peer);
    }

    /** Adds a section after the built-in ones. */
    public void add(Section section) {
        sections.add(section);
    }

    /** Writes the .md, .json and .svg files into {@code dir}; returns the Markdown file. */
    public Path write(Path dir) throws IOException {
        Files.createDirectories(dir);
        String base = corpus + "-" + date;
        Svg.write(LatencyChart.chart(corpus, warm, settings), dir.resolve(base + "-latency.svg"));
        if (!fpr.isEmpty()) {
            FprChart.writeSvg(fpr, dir.resolve(base + "-fpr.svg"));
        }
        try (OutputStream out = Files.newOutputStream(dir.resolve(base + ".json"))) {
            writeJson(out);
        }
        Path md = dir.resolve(base + ".md");
        Files.writeString(md, markdown(base), StandardCharsets.UTF_8);
        return md;
    }

    /** The headline rows: the seed store's table, measured here. */
    public String headline() {
        StringBuilder md = new StringBuilder();
        md.append("| lookup | mechanisms | blocks opened / listed | rows scanned | bytes read | cold (first query, fresh JVM) | warm p50 | warm p99 "
                + "| DuckDB row groups read / all | DuckDB cold | DuckDB warm p50 | warm: DuckDB / needle |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Measurement m : warm) {
            if (!m.scenario().headline() || (m.setting() != Setting.NONE && m.setting() != Setting.ALL)) {
                continue;
            }
            Explain.Totals t = m.totals();
            String coldText = coldOf(m).map(c -> ms(c.firstQueryMillis())).orElse("–");
            Optional<PeerRunner.PeerResult> p = m.setting() == Setting.ALL ? peerOf(m.scenario()) : Optional.empty();
            md.append(String.format(Locale.ROOT, "| %s | %s | %d / %d | %,d | %,d | %s | %s | %s | %s | %s | %s | %s |%n", m.scenario().name(),
                    m.setting() == Setting.ALL ? "all (with sidecars)" : "none (without)", t.opened(), t.listed(),
                    t.rowsScanned(), t.bytesRead(), coldText, ms(m.warmP50Millis()), ms(m.warmP99Millis()),
                    p.map(r -> r.plan().scanned() + " / " + r.plan().rowGroups()).orElse(""),
                    p.map(r -> ms((r.cold().open().p50Nanos() + r.cold().firstQuery().p50Nanos()) / 1e6)).orElse(""),
                    p.map(r -> ms(r.warm().p50Nanos() / 1e6)).orElse(""),
                    p.map(r -> ratio(r.warm().p50Nanos() / 1e6, m.warmP50Millis())).orElse("")));
        }
        return md.toString();
    }

    private String markdown(String base) {
        StringBuilder md = new StringBuilder();
        md.append("# needle bench: ").append(corpus).append(" corpus, ").append(date).append("\n\n");
        md.append(header).append("\n\n");
        md.append(String.format(Locale.ROOT, "Corpus: %,d spans in %d blocks (%,d bytes of data), %,d log records in %d blocks (%,d bytes).%n%n",
                spans.rows(), spans.blocks(), spans.dataBytes(), logs.rows(), logs.blocks(), logs.dataBytes()));
        md.append("## Headline\n\n").append(headline()).append('\n');
        md.append("Cold: a fresh JVM per query; the JVM's own start-up is excluded and listed below. The OS page cache is not dropped.\n\n");
        md.append("## Sidecar overhead\n\n| signal | blocks | data bytes | TRACE_IDX bytes | share | ATTR_IDX bytes | share |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (StoreFacts f : List.of(spans, logs)) {
            md.append(String.format(Locale.ROOT, "| %s | %d | %,d | %,d | %.3f%% | %,d | %.3f%% |%n", f.signal().dirName(), f.blocks(),
                    f.dataBytes(), f.traceIdxBytes(), 100 * f.traceIdxShare(), f.attrIdxBytes(), 100 * f.attrIdxShare()));
        }
        md.append("\n## Every scenario under every mechanism setting\n\n");
        md.append("Answers were compared across settings (and with the fresh-process runs): all equal. ")
                .append("Latency chart: [").append(base).append("-latency.svg](").append(base).append("-latency.svg).\n\n");
        md.append("| scenario | mechanisms | found | listed | pruned: time | TRACE_IDX | ATTR_IDX | zone maps | limit | opened | for nothing | rows scanned | bytes to decide | bytes read | runs | warm p50 | warm p99 |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Measurement m : warm) {
            Explain.Totals t = m.totals();
            md.append(String.format(Locale.ROOT, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %,d | %,d | %,d | %d | %s | %s |%n",
                    m.scenario().name(), m.setting().label(), m.answer().records(), t.listed(), t.prunedByTime(),
                    t.prunedByTraceIdx(), t.prunedByAttrIdx(), t.prunedByZoneMaps(), t.skippedByLimit(), t.opened(),
                    t.openedForNothing(), t.rowsScanned(), t.bytesToDecide(), t.bytesRead(), m.iterations(),
                    ms(m.warmP50Millis()), ms(m.warmP99Millis())));
        }
        md.append("\n## Cold runs\n\n| scenario | mechanisms | JVM start to main | first query |\n|---|---|---:|---:|\n");
        for (ColdRun c : cold) {
            md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s |%n", c.scenario().name(), c.setting().label(),
                    ms(c.jvmStartMillis()), ms(c.firstQueryMillis())));
        }
        if (!fpr.isEmpty()) {
            md.append("\n## False positives\n\nChart: [").append(base).append("-fpr.svg](").append(base).append("-fpr.svg).\n\n")
                    .append(FprReport.markdown(fpr));
        }
        if (!peer.isEmpty()) {
            md.append("\n## Peer: DuckDB over Parquet\n\n")
                    .append("The same corpus exported to Parquet (sorted like needle's blocks, 32,768-row groups, Bloom filters on the "
                            + "trace id and every flattened attribute column), queried through DuckDB ").append(PeerRunner.duckDbVersion())
                    .append(" with its Parquet footer cache on for warm runs; cold = a fresh DuckDB instance (open + first query). "
                            + "Every answer equals needle's. DuckDB writes a Bloom filter only for a dictionary-encoded column "
                            + "chunk, so the export raises its dictionary limits: `COPY ... (").append(PeerRunner.copyOptions())
                    .append(")`; `parquet_metadata()` shows a filter on every column chunk but the booleans'.\n\n");
            md.append("| scenario | row groups | pruned: time | min/max | Bloom | read | read for nothing | rows in read groups "
                    + "| DuckDB cold | DuckDB warm p50 | DuckDB warm p99 | needle warm p50 | DuckDB / needle |\n");
            md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (PeerRunner.PeerResult r : peer) {
                double needleP50 = warm.stream().filter(m -> m.setting() == Setting.ALL && m.scenario().equals(r.scenario()))
                        .mapToDouble(Measurement::warmP50Millis).findFirst().orElse(Double.NaN);
                var plan = r.plan();
                md.append(String.format(Locale.ROOT, "| %s | %d | %d | %d | %d | %d | %d | %,d | %s | %s | %s | %s | %s |%n",
                        r.scenario().name(), plan.rowGroups(), plan.prunedByTime(), plan.prunedByStatistics(), plan.prunedByBloom(),
                        plan.scanned(), plan.scannedForNothing(), plan.rowsInScanned(),
                        ms((r.cold().open().p50Nanos() + r.cold().firstQuery().p50Nanos()) / 1e6), ms(r.warm().p50Nanos() / 1e6),
                        ms(r.warm().p99Nanos() / 1e6), ms(needleP50), ratio(r.warm().p50Nanos() / 1e6, needleP50)));
            }
        }
        for (Section s : sections) {
            md.append("\n## ").append(s.title()).append("\n\n").append(s.markdown());
        }
        return md.toString();
    }

    private void writeJson(OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("corpus", corpus);
            g.writeStringField("date", date);
            g.writeStringField("header", header);
            g.writeArrayFieldStart("store");
            for (StoreFacts f : List.of(spans, logs)) {
                g.writeStartObject();
                g.writeStringField("signal", f.signal().dirName());
                g.writeNumberField("blocks", f.blocks());
                g.writeNumberField("rows", f.rows());
                g.writeNumberField("data_bytes", f.dataBytes());
                g.writeNumberField("trace_idx_bytes", f.traceIdxBytes());
                g.writeNumberField("attr_idx_bytes", f.attrIdxBytes());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("scenarios");
            for (Measurement m : warm) {
                Explain.Totals t = m.totals();
                g.writeStartObject();
                g.writeStringField("scenario", m.scenario().name());
                g.writeStringField("target", m.scenario().target());
                g.writeStringField("mechanisms", m.setting().label());
                g.writeNumberField("found", m.answer().records());
                g.writeStringField("answer", m.answer().digest());
                g.writeNumberField("listed", t.listed());
                g.writeNumberField("pruned_by_time", t.prunedByTime());
                g.writeNumberField("pruned_by_trace_idx", t.prunedByTraceIdx());
                g.writeNumberField("pruned_by_attr_idx", t.prunedByAttrIdx());
                g.writeNumberField("pruned_by_zone_maps", t.prunedByZoneMaps());
                g.writeNumberField("skipped_by_limit", t.skippedByLimit());
                g.writeNumberField("opened", t.opened());
                g.writeNumberField("opened_for_nothing", t.openedForNothing());
                g.writeNumberField("rows_scanned", t.rowsScanned());
                g.writeNumberField("bytes_to_decide", t.bytesToDecide());
                g.writeNumberField("bytes_read", t.bytesRead());
                g.writeNumberField("warm_runs", m.iterations());
                g.writeNumberField("warm_p50_ms", m.warmP50Millis());
                g.writeNumberField("warm_p99_ms", m.warmP99Millis());
                Optional<ColdRun> c = coldOf(m);
                if (c.isPresent()) {
                    g.writeNumberField("cold_jvm_start_ms", c.get().jvmStartMillis());
                    g.writeNumberField("cold_first_query_ms", c.get().firstQueryMillis());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeFieldName("false_positives");
            FprReport.writeJson(g, fpr);
            g.writeArrayFieldStart("duckdb");
            for (PeerRunner.PeerResult r : peer) {
                var plan = r.plan();
                g.writeStartObject();
                g.writeStringField("scenario", r.scenario().name());
                g.writeNumberField("found", r.answer().records());
                g.writeNumberField("row_groups", plan.rowGroups());
                g.writeNumberField("pruned_by_time", plan.prunedByTime());
                g.writeNumberField("pruned_by_statistics", plan.prunedByStatistics());
                g.writeNumberField("pruned_by_bloom", plan.prunedByBloom());
                g.writeNumberField("row_groups_read", plan.scanned());
                g.writeNumberField("row_groups_read_for_nothing", plan.scannedForNothing());
                g.writeNumberField("rows_in_read_groups", plan.rowsInScanned());
                g.writeNumberField("warm_p50_ms", r.warm().p50Nanos() / 1e6);
                g.writeNumberField("warm_p99_ms", r.warm().p99Nanos() / 1e6);
                g.writeNumberField("cold_open_ms", r.cold().open().p50Nanos() / 1e6);
                g.writeNumberField("cold_first_query_ms", r.cold().firstQuery().p50Nanos() / 1e6);
                g.writeEndObject();
            }
            g.writeEndArray();
            for (Section s : sections) {
                g.writeFieldName(s.jsonField());
                s.json().write(g);
            }
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    private Optional<PeerRunner.PeerResult> peerOf(Scenario s) {
        return peer.stream().filter(r -> r.scenario().equals(s)).findFirst();
    }

    private static String ratio(double a, double b) {
        return String.format(Locale.ROOT, "%.1f×", a / b);
    }

    private Optional<ColdRun> coldOf(Measurement m) {
        return cold.stream().filter(c -> c.scenario().equals(m.scenario()) && c.setting() == m.setting()).findFirst();
    }

    /** Milliseconds with three significant digits or so. */
    static String ms(double millis) {
        if (millis >= 100) {
            return String.format(Locale.ROOT, "%,.0f ms", millis);
        } else if (millis >= 1) {
            return String.format(Locale.ROOT, "%.2f ms", millis);
        }
        return String.format(Locale.ROOT, "%.3f ms", millis);
    }
}
